// libFuzzer target: the one reader of OBJ and MTL lines and numbers (scene/obj_text.hpp) on any
// bytes. Numbers: whatever the reader accepts is a decimal number that strtof (the C library's
// reading, in the "C" locale) gives the same float for, or a value beyond a float's range that
// strtof makes infinite; what it refuses strtof does not read whole, or reads as a hexadecimal,
// infinite or NaN value. Lines: no word holds a blank, a line end or a comment, and the line
// numbers count the line ends. Any other outcome aborts (a finding).
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "scene/obj_text.hpp"

namespace {

void check_number(std::string_view word) {
  using depthsort::app::ObjNumber;
  float value = 0.0f;
  const ObjNumber read = depthsort::app::read_obj_number(word, value);
  const std::string text(word);
  char* end = nullptr;
  errno = 0;
  const float expected = std::strtof(text.c_str(), &end);
  const bool whole = !text.empty() && end == text.c_str() + text.size();
  const bool hex = text.find_first_of("xX") != std::string::npos;
  switch (read) {
    case ObjNumber::Ok:
      if (!whole || !std::isfinite(value)) std::abort();
      if (std::isfinite(expected) && std::memcmp(&value, &expected, sizeof value) != 0 &&
          !(value == 0.0f && expected == 0.0f && std::signbit(value) == std::signbit(expected)))
        std::abort();
      if (!std::isfinite(expected)) std::abort();
      break;
    case ObjNumber::NotFinite:
      if (!whole || std::isfinite(expected)) std::abort();
      break;
    case ObjNumber::NotANumber:
      // strtof also reads hexadecimal, inf and nan spellings: those are refused here on purpose.
      if (whole && !hex && std::isfinite(expected) && text.find_first_of("iInN") == std::string::npos &&
          !std::isspace(static_cast<unsigned char>(text[0])))
        std::abort();
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  depthsort::app::ObjLines lines(text);
  depthsort::app::ObjLine line;
  std::size_t count = 0;
  while (lines.next(line)) {
    if (line.number != ++count) std::abort();
    for (const std::string_view word : line.words) {
      if (word.empty() || word.find_first_of(" \t\v\f\r\n#") != std::string_view::npos) std::abort();
      check_number(word);
      long long vertex = 0;
      depthsort::app::read_obj_reference(word, vertex);
    }
  }
  // As many lines as line ends (a last line without one counts too).
  std::size_t ends = 0;
  for (std::size_t i = 0; i < size; ++i)
    ends += text[i] == '\n' || (text[i] == '\r' && (i + 1 >= size || text[i + 1] != '\n'));
  const bool open_last_line = size > 0 && text[size - 1] != '\n' && text[size - 1] != '\r';
  if (count != ends + (open_last_line ? 1 : 0)) std::abort();
  if (size > 0 && depthsort::app::obj_line_at(text, size - 1) != count) std::abort();
  return 0;
}
