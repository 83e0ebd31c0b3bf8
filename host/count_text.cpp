#include "depthsort/host/count_text.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace depthsort {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Digits only: from_chars alone would accept a leading '-' for signed types and we want no sign.
std::optional<std::uint64_t> parse_digits(std::string_view s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_count(std::string_view text, std::uint64_t min, std::uint64_t max,
                                         std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<std::uint64_t> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  auto too_large = [&] {
    const std::string digits = std::to_string(max);
    const std::string short_form = format_count(max);
    return fail("above the limit " + (short_form == digits ? digits : short_form + " (" + digits + ")"));
  };
  text = trim_blanks(text);
  if (text.empty()) return fail("empty");

  std::uint64_t value = 0;
  if (const std::size_t caret = text.find('^'); caret != std::string_view::npos) {
    const auto base = parse_digits(text.substr(0, caret));
    const auto exponent = parse_digits(text.substr(caret + 1));
    if (!base || !exponent || *base < 2) return fail("not a count");
    value = 1;
    for (std::uint64_t i = 0; i < *exponent; ++i) {
      if (value > max / *base) return too_large();  // stops before overflow, however large the exponent
      value *= *base;
    }
  } else {
    int shift = 0;
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift != 0) text.remove_suffix(1);
    const auto mantissa = parse_digits(text);
    if (!mantissa) {
      // An overlong run of digits is a count too large, not a typo.
      const bool all_digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
      return all_digits ? too_large() : fail("not a count");
    }
    if (*mantissa > (max >> shift)) return too_large();
    value = *mantissa << shift;
  }
  if (value > max) return too_large();
  if (value < min) return fail("below the minimum " + format_count(min));
  return value;
}

std::string format_count(std::uint64_t n) {
  constexpr std::pair<int, char> units[] = {{30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& [shift, suffix] : units) {
    const std::uint64_t unit = std::uint64_t{1} << shift;
    if (n >= unit && n % unit == 0) return std::to_string(n / unit) + suffix;
  }
  return std::to_string(n);
}

std::string byte_text(std::uint64_t bytes, ByteUnits units) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20, kGiB = std::uint64_t{1} << 30;
  const auto gib = [&](int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f GiB", decimals, static_cast<double>(bytes) / static_cast<double>(kGiB));
    return std::string(text);
  };
  switch (units) {
    case ByteUnits::Exact:
      return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
    case ByteUnits::GiB:
      return gib(1);
    case ByteUnits::WholeGiB:
      return gib(0);
    case ByteUnits::MiBOrGiB:
      if (bytes >= kGiB) return gib(1);
      break;
    case ByteUnits::MiB:
      break;
  }
  return std::to_string(bytes / kMiB + (bytes % kMiB != 0 ? 1 : 0)) + " MiB";
}

namespace {

// Length of the valid UTF-8 sequence at the start of `s` that encodes a printable code point
// (not C1 controls, not surrogates, no overlong forms), or 0.
std::size_t printable_utf8_length(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07u;
  } else
    return 0;
  if (s.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (byte(i) & 0x3Fu);
  }
  constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp < 0xA0) return 0;
  return length;
}

}  // namespace

std::string quote_for_message(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  std::size_t chars = 0;
  std::size_t i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t length = printable_utf8_length(text.substr(i)); length != 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  out += '\'';
  if (i < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string shown_path(std::string_view path) {
  std::string quoted = quote_path(path);
  if (quoted.size() == path.size() + 2 && quoted.compare(1, path.size(), path) == 0) return std::string(path);
  return quoted;
}

}  // namespace depthsort
