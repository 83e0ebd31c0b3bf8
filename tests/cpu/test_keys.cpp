// The key order of keys.hpp: every class of float in its place, and the transform's round trip.
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <vector>

#include "depthsort/sort/keys.hpp"

namespace depthsort {
namespace {

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(KeyOrder, EveryClassOfFloatInItsPlace) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // Ascending in the documented order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
  const std::vector<float> ascending{
      from_bits(0xFFFFFFFFu),  // -NaN, largest payload
      from_bits(0xFFC00000u),  // -NaN, quiet
      from_bits(0xFF800001u),  // -NaN, smallest payload
      -kInf,
      std::numeric_limits<float>::lowest(),
      -1.0f,
      -std::numeric_limits<float>::min(),  // smallest negative normal
      from_bits(0x807FFFFFu),              // largest negative denormal
      -std::numeric_limits<float>::denorm_min(),
      -0.0f,
      0.0f,
      std::numeric_limits<float>::denorm_min(),
      from_bits(0x007FFFFFu),
      std::numeric_limits<float>::min(),
      1.0f,
      std::numeric_limits<float>::max(),
      kInf,
      from_bits(0x7F800001u),
      from_bits(0x7FC00000u),
      from_bits(0x7FFFFFFFu),
  };
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(ordered_key(ascending[i]), ordered_key(ascending[i + 1])) << "at " << i;
    EXPECT_TRUE(key_less(ascending[i], ascending[i + 1])) << "at " << i;
    EXPECT_FALSE(key_less(ascending[i + 1], ascending[i])) << "at " << i;
  }
}

TEST(KeyOrder, AgreesWithFloatLessOnOrdinaryNumbers) {
  std::uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 1664525u + 1013904223u;
    const float a = from_bits(state);
    state = state * 1664525u + 1013904223u;
    const float b = from_bits(state);
    if (a != a || b != b || (a == 0.0f && b == 0.0f)) continue;  // NaN and the zeros are defined above
    EXPECT_EQ(a < b, key_less(a, b)) << a << " vs " << b;
  }
}

TEST(KeyOrder, TransformRoundTripsEveryBitPattern) {
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 0x10001ull) {
    const auto b = static_cast<std::uint32_t>(bits);
    EXPECT_EQ(b, float_bits_from_ordered_bits(ordered_bits_from_float_bits(b)));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(key_from_ordered(ordered_key(from_bits(b)))), b);
  }
}

TEST(KeyOrder, ExtremesMapToTheEnds) {
  EXPECT_EQ(ordered_key(from_bits(0xFFFFFFFFu)), 0u);
  EXPECT_EQ(ordered_key(from_bits(0x7FFFFFFFu)), 0xFFFFFFFFu);
  EXPECT_EQ(ordered_key(-0.0f) + 1, ordered_key(0.0f));
}

}  // namespace
}  // namespace depthsort
