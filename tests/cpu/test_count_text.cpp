// Counts as both programs spell them (binary K/M/G, 2^N, digits) and the quoting of file text
// and paths in messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "depthsort/host/count_text.hpp"

namespace depthsort {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::string why_rejected(std::string_view text, std::uint64_t min = 1, std::uint64_t max = kMax) {
  std::string why;
  EXPECT_FALSE(parse_count(text, min, max, &why).has_value()) << "accepted '" << text << "'";
  return why;
}

TEST(CountText, SuffixesAreBinaryAndCaseInsensitive) {
  EXPECT_EQ(parse_count("1K", 1, kMax), 1024u);
  EXPECT_EQ(parse_count("1k", 1, kMax), 1024u);
  EXPECT_EQ(parse_count("16M", 1, kMax), std::uint64_t{1} << 24);
  EXPECT_EQ(parse_count("1G", 1, kMax), std::uint64_t{1} << 30);
  EXPECT_EQ(parse_count("3g", 1, kMax), std::uint64_t{3} << 30);
}

TEST(CountText, PowersDigitsAndBlanks) {
  EXPECT_EQ(parse_count("2^24", 1, kMax), std::uint64_t{1} << 24);
  EXPECT_EQ(parse_count("2^63", 1, kMax), std::uint64_t{1} << 63);
  EXPECT_EQ(parse_count("10^6", 1, kMax), 1000000u);
  EXPECT_EQ(parse_count("2^0", 1, kMax), 1u);
  EXPECT_EQ(parse_count(" 1000000 ", 1, kMax), 1000000u);
  EXPECT_EQ(parse_count("0", 0, kMax), 0u);
  EXPECT_EQ(parse_count("18446744073709551615", 0, kMax), kMax);
}

TEST(CountText, LimitsAreInclusiveAndNamedInTheReason) {
  EXPECT_EQ(parse_count("4G", 1, std::uint64_t{1} << 32), std::uint64_t{1} << 32);
  EXPECT_EQ(parse_count("2^32", 1, std::uint64_t{1} << 32), std::uint64_t{1} << 32);
  EXPECT_EQ(why_rejected("4294967297", 1, std::uint64_t{1} << 32), "above the limit 4G (4294967296)");
  EXPECT_EQ(why_rejected("5G", 1, std::uint64_t{1} << 32), "above the limit 4G (4294967296)");
  EXPECT_EQ(why_rejected("2^33", 1, std::uint64_t{1} << 32), "above the limit 4G (4294967296)");
  // Huge exponents and digit runs beyond 64 bits are "too large", found without overflow.
  EXPECT_EQ(why_rejected("2^99999999999"), "above the limit 18446744073709551615");
  EXPECT_EQ(why_rejected("99999999999999999999").substr(0, 15), "above the limit");
  EXPECT_EQ(why_rejected("17179869184G").substr(0, 15), "above the limit");  // 2^34 G = 2^64
  EXPECT_EQ(why_rejected("0"), "below the minimum 1");
  EXPECT_EQ(why_rejected("0K"), "below the minimum 1");
  EXPECT_EQ(why_rejected("1K", 2048), "below the minimum 2K");
}

TEST(CountText, MalformedIsNotACount) {
  EXPECT_EQ(why_rejected(""), "empty");
  EXPECT_EQ(why_rejected("   "), "empty");
  for (std::string_view bad : {"M", "1X", "1.5M", "-1", "+1", "2^", "^24", "1^5", "0^3", "1MM", "2^24K", "abc", "1e6",
                               "16 M", "1,000", "0x10", "2^-1", "2^^3"})
    EXPECT_EQ(why_rejected(bad), "not a count") << bad;
}

TEST(CountText, FormatIsTheShortestExactSpelling) {
  EXPECT_EQ(format_count(std::uint64_t{1} << 24), "16M");
  EXPECT_EQ(format_count(3072), "3K");
  EXPECT_EQ(format_count(std::uint64_t{1} << 32), "4G");
  EXPECT_EQ(format_count(1000000), "1000000");
  EXPECT_EQ(format_count(0), "0");
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{3} << 20, std::uint64_t{5} << 30})
    EXPECT_EQ(parse_count(format_count(n), 1, kMax), n);
}

TEST(ByteText, EachUnitsAsTheMessagesWriteThem) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20, kGiB = std::uint64_t{1} << 30;
  EXPECT_EQ(byte_text(0, ByteUnits::MiB), "0 MiB");
  EXPECT_EQ(byte_text(1, ByteUnits::MiB), "1 MiB");  // rounded up: never 0 MiB for something
  EXPECT_EQ(byte_text(12 * kMiB, ByteUnits::MiB), "12 MiB");
  EXPECT_EQ(byte_text(3 * kGiB, ByteUnits::MiB), "3072 MiB");
  EXPECT_EQ(byte_text(5 * kMiB + 1, ByteUnits::MiBOrGiB), "6 MiB");
  EXPECT_EQ(byte_text(3 * kGiB / 2, ByteUnits::MiBOrGiB), "1.5 GiB");
  EXPECT_EQ(byte_text(kGiB / 2, ByteUnits::GiB), "0.5 GiB");
  EXPECT_EQ(byte_text(80 * kGiB - kGiB / 3, ByteUnits::WholeGiB), "80 GiB");
  EXPECT_EQ(byte_text(kGiB, ByteUnits::Exact), "1024 MiB");
  EXPECT_EQ(byte_text(kGiB + 1, ByteUnits::Exact), "1073741825 bytes");  // a limit is never rounded
}

TEST(QuoteForMessage, PrintableTextIsQuotedAsIs) {
  EXPECT_EQ(quote_for_message("scene.obj"), "'scene.obj'");
  EXPECT_EQ(quote_for_message(""), "''");
  EXPECT_EQ(quote_for_message("it's a\\b"), "'it\\'s a\\\\b'");
  EXPECT_EQ(quote_for_message("caf\xc3\xa9 \xe2\x82\xac"), "'caf\xc3\xa9 \xe2\x82\xac'");  // valid UTF-8 kept
}

TEST(QuoteForMessage, ControlBytesAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(quote_for_message("\x1b[2J\x07"
                              "a\n"),
            "'\\x1b[2J\\x07a\\x0a'");
  EXPECT_EQ(quote_for_message(std::string_view("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(quote_for_message("\xff\xfe"), "'\\xff\\xfe'");                    // a UTF-16 byte-order mark
  EXPECT_EQ(quote_for_message("\xc3"), "'\\xc3'");                             // truncated sequence
  EXPECT_EQ(quote_for_message("\xc0\xaf"), "'\\xc0\\xaf'");                    // overlong '/'
  EXPECT_EQ(quote_for_message("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");           // a surrogate
  EXPECT_EQ(quote_for_message("\xc2\x9b"), "'\\xc2\\x9b'");                    // C1 CSI, an escape too
  EXPECT_EQ(quote_for_message("\xf4\x90\x80\x80"), "'\\xf4\\x90\\x80\\x80'");  // beyond U+10FFFF
}

TEST(QuoteForMessage, LongTextIsCutAndItsSizeSaid) {
  const std::string token(10'000'000, 'x');
  const std::string q = quote_for_message(token);
  EXPECT_EQ(q, "'" + std::string(60, 'x') + "'...(10000000 bytes)");
  EXPECT_EQ(quote_for_message("abcdef", 3), "'abc'...(6 bytes)");
  EXPECT_EQ(quote_for_message("abc", 3), "'abc'");
  EXPECT_EQ(quote_for_message("\x01\x02\x03\x04", 2), "'\\x01\\x02'...(4 bytes)");
}

}  // namespace
}  // namespace depthsort
