#include "scene/obj_text.hpp"

#include <charconv>
#include <limits>
#include <system_error>

namespace depthsort::app {

namespace {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// A signed integer of decimal digits, the whole of `text`, within long long.
bool read_integer(std::string_view text, long long& value) noexcept {
  if (text.empty()) return false;
  std::size_t start = text[0] == '+' || text[0] == '-' ? 1 : 0;
  if (start == text.size()) return false;
  for (std::size_t i = start; i < text.size(); ++i)
    if (!is_digit(text[i])) return false;
  // from_chars takes a '-' but not a '+'.
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  const auto [end, error] = std::from_chars(first, text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}

}  // namespace

std::string_view ObjLine::rest(std::size_t first) const noexcept {
  if (first >= words.size()) return {};
  const char* begin = words[first].data();
  const char* end = words.back().data() + words.back().size();
  return {begin, static_cast<std::size_t>(end - begin)};
}

bool ObjLines::next(ObjLine& line) {
  if (at_ >= text_.size()) return false;
  std::size_t end = at_;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  std::string_view text = text_.substr(at_, end - at_);
  at_ = end;
  if (at_ < text_.size()) at_ += text_[at_] == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n' ? 2 : 1;
  line.number = ++number_;
  text = text.substr(0, text.find('#'));
  line.words.clear();
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_obj_blank(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_obj_blank(text[i])) ++i;
    if (i > start) line.words.push_back(text.substr(start, i - start));
  }
  line.text = text;
  return true;
}

std::size_t obj_line_at(std::string_view text, std::size_t offset) noexcept {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) ++line;
  return line;
}

ObjNumber read_obj_number(std::string_view word, float& value) noexcept {
  // The grammar first: from_chars alone would also take "inf", "nan" and "1e", read hexadecimal
  // differently, and refuses a leading '+'.
  std::size_t i = 0;
  const bool negative = i < word.size() && word[i] == '-';
  if (i < word.size() && (word[i] == '+' || word[i] == '-')) ++i;
  const std::size_t mantissa = i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < word.size() && is_digit(word[i])) ++i, ++int_digits;
  const std::size_t point = i;
  if (i < word.size() && word[i] == '.') {
    ++i;
    while (i < word.size() && is_digit(word[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return ObjNumber::NotANumber;
  long long exponent = 0;
  if (i < word.size() && (word[i] == 'e' || word[i] == 'E')) {
    ++i;
    const bool exponent_negative = i < word.size() && word[i] == '-';
    if (i < word.size() && (word[i] == '+' || word[i] == '-')) ++i;
    if (i == word.size() || !is_digit(word[i])) return ObjNumber::NotANumber;
    for (; i < word.size() && is_digit(word[i]); ++i)
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (word[i] - '0');  // saturates: far past any float
    if (exponent_negative) exponent = -exponent;
  }
  if (i != word.size()) return ObjNumber::NotANumber;

  float parsed = 0.0f;
  const auto [end, error] =
      std::from_chars(word.data() + mantissa, word.data() + word.size(), parsed, std::chars_format::general);
  if (end != word.data() + word.size()) return ObjNumber::NotANumber;
  if (error == std::errc::result_out_of_range) {
    // Too large or too small for a float: the decimal exponent of the first significant digit
    // says which.
    long long magnitude = 0;
    bool found = false;
    for (std::size_t d = mantissa; d < point && !found; ++d)
      if (word[d] != '0') {
        magnitude = static_cast<long long>(point - d) - 1;
        found = true;
      }
    for (std::size_t d = point + 1; d < point + 1 + frac_digits && !found; ++d)
      if (word[d] != '0') {
        magnitude = -static_cast<long long>(d - point);
        found = true;
      }
    if (found && magnitude + exponent >= 0) return ObjNumber::NotFinite;
    value = negative ? -0.0f : 0.0f;
    return ObjNumber::Ok;
  }
  if (error != std::errc{}) return ObjNumber::NotANumber;
  value = negative ? -parsed : parsed;
  return ObjNumber::Ok;
}

bool read_obj_reference(std::string_view word, long long& vertex) noexcept {
  const std::size_t slash = word.find('/');
  if (!read_integer(word.substr(0, slash), vertex)) return false;
  if (slash == std::string_view::npos) return true;
  // Texture and normal numbers are not used, but must still be numbers (or left out).
  std::string_view others = word.substr(slash + 1);
  const std::size_t second = others.find('/');
  std::string_view texture = others.substr(0, second);
  std::string_view normal = second == std::string_view::npos ? std::string_view{} : others.substr(second + 1);
  if (normal.find('/') != std::string_view::npos) return false;
  long long unused = 0;
  return (texture.empty() || read_integer(texture, unused)) && (normal.empty() || read_integer(normal, unused));
}

}  // namespace depthsort::app
