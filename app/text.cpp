#include "text.hpp"

#include <cstdint>
#include <cstdio>

namespace depthsort::app {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if none starts there (overlong
// forms, surrogates and code points above U+10FFFF are invalid, as in RFC 3629).
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;  // range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) length = 2;
  else if (b0 == 0xE0) length = 3, lo = 0xA0;
  else if (b0 == 0xED) length = 3, hi = 0x9F;
  else if (b0 >= 0xE1 && b0 <= 0xEF) length = 3;
  else if (b0 == 0xF0) length = 4, lo = 0x90;
  else if (b0 == 0xF4) length = 4, hi = 0x8F;
  else if (b0 >= 0xF1 && b0 <= 0xF3) length = 4;
  else return 0;
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

void append_hex(std::string& out, std::uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  out += buf;
}

// Escapes text[0, end) into out, stopping once `max_chars` characters were taken; returns how
// many bytes of the input were consumed.
std::size_t escape_into(std::string& out, std::string_view text, std::size_t max_chars) {
  std::size_t i = 0, chars = 0;
  while (i < text.size() && chars < max_chars) {
    const auto b = static_cast<std::uint8_t>(text[i]);
    const std::size_t n = utf8_sequence(text, i);
    if (b == '\\') {
      out += "\\\\";
    } else if (n == 0 || b < 0x20 || b == 0x7F) {
      append_hex(out, b);
      i += 1;
      ++chars;
      continue;
    } else if (n == 2 && b == 0xC2 && static_cast<std::uint8_t>(text[i + 1]) < 0xA0) {
      // C1 controls (U+0080..U+009F): CSI (U+009B) starts an escape sequence on some terminals.
      append_hex(out, b);
      append_hex(out, static_cast<std::uint8_t>(text[i + 1]));
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
    ++chars;
  }
  return i;
}

}  // namespace

std::string escape_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape_into(out, text, text.size());
  return out;
}

std::string quote_content(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  const std::size_t used = escape_into(out, text, max_chars);
  out += "'";
  if (used < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace depthsort::app
