// libFuzzer target: the count parser and the message quoting of host/count_text.cpp,
// which read what users type (--sizes 16M, 2^24) and what files contain (quoted in messages).
// Checked properties, beyond "no crash, no sanitizer report":
//   - a parsed count lies in [min, max] and format_count spells it back to the same count;
//   - quote_for_message's result holds no control byte and stays near its bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "depthsort/host/count_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first 17 bytes choose min, max and the quoting bound; the rest is the text.
  std::uint64_t min = 0, max = UINT64_MAX;
  std::size_t bound = 60;
  if (size >= 17) {
    std::memcpy(&min, data, 8);
    std::memcpy(&max, data + 8, 8);
    bound = data[16];
    data += 17;
    size -= 17;
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  std::string why;
  if (const auto count = depthsort::parse_count(text, min, max, &why)) {
    if (*count < min || *count > max || !why.empty()) std::abort();
    const std::string spelled = depthsort::format_count(*count);
    const auto again = depthsort::parse_count(spelled, 0, UINT64_MAX);
    if (!again || *again != *count) std::abort();
  } else if (why.empty()) {
    std::abort();  // a refusal always says why
  }

  const std::string quoted = depthsort::quote_for_message(text, bound);
  if (quoted.size() < 2 || quoted.front() != '\'') std::abort();
  for (const char c : quoted)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();
  // Each character shown costs at most 4 bytes (\xNN); the cut adds "...(N bytes)" and quotes.
  if (quoted.size() > 4 * bound + 64) std::abort();
  return 0;
}
