// Satish, Harris & Garland (IPDPS 2009), Section III: the per-thread arithmetic of `satish-radix`
// (kernels/sort/satish_radix/satish_radix_digits.hpp), run on the CPU as the kernels run it:
//  - the pass plan covers the 32 key bits exactly once for every b in 4..8;
//  - b stable 1-bit splits of a 1024-pair tile (pads past the end) sort it stably by the digit;
//  - a whole LSD sort built from them equals std::stable_sort in the key order, ±0, NaN payloads and all;
//  - a planted error (a split that forgets the zeros' total) is caught by the same check.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "sort/satish_radix/satish_radix_digits.hpp"

namespace depthsort::satish_radix {
namespace {

struct Pair {
  std::uint32_t key;
  std::uint32_t value;
};
using Tile = std::vector<Pair>;
using RankFn = std::uint32_t (*)(std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t);

// One split of the tile by `bit`, as split_sort_tile runs it: the exclusive scan of the 0-flags
// in tile order gives each item's zeros_before, and the rank function places it.
Tile split(const Tile& in, int bit, RankFn rank) {
  std::uint32_t total_zeros = 0;
  for (const Pair& p : in) total_zeros += 1u - ((p.key >> bit) & 1u);
  Tile out(in.size(), Pair{0xDEADBEEFu, 0xDEADBEEFu});
  std::uint32_t zeros_before = 0;
  for (std::uint32_t pos = 0; pos < in.size(); ++pos) {
    const std::uint32_t one = (in[pos].key >> bit) & 1u;
    const std::uint32_t to = rank(one, pos, zeros_before, total_zeros);
    if (to < out.size()) out[to] = in[pos];
    zeros_before += 1u - one;
  }
  return out;
}

Tile local_sort(Tile tile, int shift, int bits, RankFn rank = split_rank) {
  for (int bit = shift; bit < shift + bits; ++bit) tile = split(tile, bit, rank);
  return tile;
}

// True when `out` is `in` stably sorted by the digit (values are the input positions).
bool stably_sorted_by_digit(const Tile& in, const Tile& out, int shift, int bits) {
  Tile expect = in;
  std::stable_sort(expect.begin(), expect.end(), [&](const Pair& a, const Pair& b) {
    return digit_of(a.key, shift, bits) < digit_of(b.key, shift, bits);
  });
  return std::equal(expect.begin(), expect.end(), out.begin(), out.end(),
                    [](const Pair& a, const Pair& b) { return a.key == b.key && a.value == b.value; });
}

Tile random_tile(std::size_t size, std::uint32_t key_mask, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Tile tile(size);
  for (std::uint32_t i = 0; i < size; ++i) tile[i] = {static_cast<std::uint32_t>(rng()) & key_mask, i};
  return tile;
}

TEST(SatishRadixDigits, PassPlanCoversEveryKeyBitOnce) {
  for (int b = 4; b <= 8; ++b) {
    int covered = 0;
    for (int pass = 0; pass < pass_count(b); ++pass) {
      EXPECT_EQ(pass_shift(pass, b), covered) << "b = " << b;
      EXPECT_GE(pass_bits(pass, b), 1);
      EXPECT_LE(pass_bits(pass, b), b);
      covered += pass_bits(pass, b);
    }
    EXPECT_EQ(covered, kKeyBits) << "b = " << b;
  }
  EXPECT_EQ(pass_count(4), 8);
  EXPECT_EQ(pass_count(5), 7);
  EXPECT_EQ(pass_bits(6, 5), 2);
  EXPECT_EQ(digit_of(0xABCDEF12u, 28, 4), 0xAu);
  EXPECT_EQ(digit_of(0xABCDEF12u, 0, 8), 0x12u);
  EXPECT_EQ(digit_of(0xABCDEF12u, 30, 2), 0x2u);
}

TEST(SatishRadixDigits, SplitsSortATileStablyByTheDigit) {
  // Full tiles and a short one padded as load_tile pads it; few distinct keys make many ties.
  for (const std::uint32_t mask : {0xFFFFFFFFu, 0x0000000Fu, 0x00000F0Fu, 0u}) {
    for (int b = 4; b <= 8; ++b) {
      for (int pass = 0; pass < pass_count(b); ++pass) {
        Tile tile = random_tile(1024, mask, 7u * b + pass);
        for (std::size_t i = 1000; i < tile.size(); ++i) tile[i] = {0xFFFFFFFFu, 0u};
        const int shift = pass_shift(pass, b), bits = pass_bits(pass, b);
        const Tile sorted = local_sort(tile, shift, bits);
        ASSERT_TRUE(stably_sorted_by_digit(tile, sorted, shift, bits)) << "b = " << b << ", pass " << pass;
        // Pads (the largest key, last in the tile) stay behind every real pair.
        for (std::size_t i = 1000; i < sorted.size(); ++i) ASSERT_EQ(sorted[i].key, 0xFFFFFFFFu);
      }
    }
  }
}

TEST(SatishRadixDigits, LsdPassesOfSplitsSortFloatKeysInTheKeyOrder) {
  std::mt19937 rng(3);
  std::vector<float> keys(1024);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  for (float& k : keys) k = uniform(rng);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::bit_cast<float>(0x7FC01234u),
                            std::bit_cast<float>(0xFFC05678u),
                            std::numeric_limits<float>::denorm_min(),
                            1.0f};
  for (std::size_t i = 0; i < keys.size(); i += 3) keys[i] = specials[i % 8];
  for (int b = 4; b <= 8; ++b) {
    Tile tile(keys.size());
    for (std::uint32_t i = 0; i < keys.size(); ++i) tile[i] = {ordered_key(keys[i]), i};
    for (int pass = 0; pass < pass_count(b); ++pass) tile = local_sort(tile, pass_shift(pass, b), pass_bits(pass, b));
    std::vector<std::uint32_t> order(keys.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t c) { return key_less(keys[a], keys[c]); });
    for (std::size_t i = 0; i < order.size(); ++i) {
      ASSERT_EQ(tile[i].value, order[i]) << "b = " << b << ", position " << i;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(key_from_ordered(tile[i].key)),
                std::bit_cast<std::uint32_t>(keys[order[i]]));
    }
  }
}

// The ballot scan of the kernels (scan_zeros with kBallot), emulated lane by lane over warp-striped
// items: zeros before each item from the ballots of its warp plus the totals of the warps before it.
std::vector<std::uint32_t> ballot_zeros_before(const std::vector<std::uint32_t>& zero_at_position, int items) {
  std::vector<std::uint32_t> result(zero_at_position.size());
  std::uint32_t warps_before = 0;
  for (std::uint32_t warp = 0; warp < 8; ++warp) {
    std::uint32_t in_warp = 0;
    for (int i = 0; i < items; ++i) {
      std::uint32_t ballot = 0;
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        ballot |= zero_at_position[striped_position(warp * 32 + lane, i, items)] << lane;
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        result[striped_position(warp * 32 + lane, i, items)] =
            warps_before + in_warp + std::popcount(ballot & ((1u << lane) - 1u));
      in_warp += std::popcount(ballot);
    }
    warps_before += in_warp;
  }
  return result;
}

TEST(SatishRadixDigits, ItemPositionsCoverTheTileAndTheBallotScanCountsZerosBefore) {
  std::mt19937 rng(5);
  for (const int items : {4, 8, 16}) {
    const std::size_t tile = 256u * items;
    std::vector<int> striped_hits(tile), blocked_hits(tile);
    for (std::uint32_t t = 0; t < 256; ++t)
      for (int i = 0; i < items; ++i) {
        ++striped_hits[striped_position(t, i, items)];
        ++blocked_hits[blocked_position(t, i, items)];
      }
    EXPECT_TRUE(std::all_of(striped_hits.begin(), striped_hits.end(), [](int h) { return h == 1; }));
    EXPECT_TRUE(std::all_of(blocked_hits.begin(), blocked_hits.end(), [](int h) { return h == 1; }));
    std::vector<std::uint32_t> zero(tile);
    for (auto& z : zero) z = rng() & 1u;
    const std::vector<std::uint32_t> got = ballot_zeros_before(zero, items);
    std::uint32_t serial = 0;
    for (std::size_t pos = 0; pos < tile; ++pos) {
      ASSERT_EQ(got[pos], serial) << "items " << items << ", position " << pos;
      serial += zero[pos];
    }
  }
}

// Planted error: the 1-bit items placed without the zeros' total land on top of the 0-bit ones.
std::uint32_t split_rank_without_total(std::uint32_t bit, std::uint32_t pos, std::uint32_t zeros_before,
                                       std::uint32_t) {
  return bit ? pos - zeros_before : zeros_before;
}

TEST(SatishRadixDigits, PlantedErrorInTheSplitIsCaught) {
  const Tile tile = random_tile(1024, 0xFFFFFFFFu, 11);
  EXPECT_TRUE(stably_sorted_by_digit(tile, local_sort(tile, 0, 4), 0, 4));
  EXPECT_FALSE(stably_sorted_by_digit(tile, local_sort(tile, 0, 4, split_rank_without_total), 0, 4));
}

}  // namespace
}  // namespace depthsort::satish_radix
