// KeyRange::cub_differing_bits (sort/primitives/key_range.hpp): every key of a range shares CUB's
// radix key above that many low bits, so CUB may sort those alone; checked against CUB's key as
// its documentation defines it (ordered bits, -0.0 read as +0.0), computed here on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/key_range.hpp"

namespace depthsort {
namespace {

std::uint32_t cub_radix_key(float key) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(key == 0.0f ? 0.0f : key);
  return (bits & 0x80000000u) ? ~bits : bits ^ 0x80000000u;
}

// The keys' range as the reduction leaves it.
primitives::KeyRange range_of(const std::vector<float>& keys) {
  primitives::KeyRange range{~ordered_key(keys.front()), ordered_key(keys.front())};
  for (const float key : keys) {
    range.lo_complement = std::max(range.lo_complement, ~ordered_key(key));
    range.hi = std::max(range.hi, ordered_key(key));
  }
  return range;
}

// The low bits in which CUB's keys of the set differ, from every pair of keys.
int cub_bits_differing(const std::vector<float>& keys) {
  std::uint32_t differ = 0;
  for (const float key : keys) differ |= cub_radix_key(key) ^ cub_radix_key(keys.front());
  return std::bit_width(differ);
}

TEST(KeyRange, CubDifferingBitsCoverEveryKeyOfTheRange) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<std::vector<float>> sets{
      {2.0f, 5.9f, 3.0f},                         // two octaves: 24 bits
      {3.0f, 9.0f},                               // across a power of two where the difference would need 24
      {1.5f},                                     // one value
      {0.0f, 1.0f, 0.5f},                         // +0.0 with positives
      {-0.0f, 1.0f},                              // -0.0 with positives: CUB reads +0.0
      {-0.0f, -1.0f, -1.5f},                      // negatives topped by -0.0: CUB puts it above them
      {-0.0f, 0.0f},                              // both zeros: equal in CUB's key, apart in depthsort's
      {-0.0f},                                    // -0.0 alone
      {-2.0f, -3.0f},                             // negatives
      {-kInf, kInf},                              // everything
      {std::bit_cast<float>(0x7FC00000u), 1.0f},  // +NaN above the positives
  };
  for (const std::vector<float>& keys : sets) {
    const int bits = range_of(keys).cub_differing_bits();
    const int needed = cub_bits_differing(keys);
    EXPECT_GE(bits, needed) << "first key " << keys.front();
    // Exact except where depthsort's range is wider than CUB's: -0.0 beside +0.0 or above negatives.
    if (bits != 32) {
      EXPECT_EQ(bits, needed) << "first key " << keys.front();
    }
  }
  EXPECT_EQ(range_of({2.0f, 5.9f}).cub_differing_bits(), 24);
  EXPECT_EQ(range_of({1.5f}).cub_differing_bits(), 0);
  EXPECT_EQ(range_of({-0.0f, -1.0f}).cub_differing_bits(), 32);
}

}  // namespace
}  // namespace depthsort
