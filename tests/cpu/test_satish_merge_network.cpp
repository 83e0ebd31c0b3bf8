// Batcher's odd-even merge sort (kernels/sort/primitives/odd_even_merge_sort.cuh), the tile sort of Satish,
// Harris & Garland (IPDPS 2009) Section IV, walked on the CPU stage by stage as the kernel walks it:
//  - the 0-1 principle: a comparator network that sorts every 0/1 input sorts every input; all 0/1
//    inputs of every size up to 16 keys, and every shorter length (the skipped comparators of a
//    partial tile);
//  - random keys with specials and ties at the tile sizes the sorter uses, values travelling along;
//  - a planted error (the comparators of stage (p, k) without the k mod p offset) is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "sort/primitives/odd_even_merge_sort.cuh"

namespace depthsort::primitives::odd_even {
namespace {

using Partner = std::function<int(int, int, int)>;
using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// The kernel's loop: network of the next power of two of len, comparators past len skipped.
void network_sort(Pairs& v, const Partner& partner_of) {
  const int len = static_cast<int>(v.size());
  int m = 1;
  while (m < len) m <<= 1;
  for (int p = 1; p < m; p <<= 1)
    for (int k = p; k >= 1; k >>= 1)
      for (int x = 0; x < len; ++x) {
        const int y = partner_of(x, p, k);
        if (y >= 0 && y < len && v[y].first < v[x].first) std::swap(v[x], v[y]);
      }
}

const Partner kNetwork = [](int x, int p, int k) { return partner(x, p, k); };

// The planted error: every stage's comparators start at 0, as if k mod p were always 0.
const Partner kNoOffset = [](int x, int p, int k) {
  if ((x & (2 * k - 1)) >= k) return -1;
  return (x / (2 * p)) == ((x + k) / (2 * p)) ? x + k : -1;
};

// True if the network sorts every 0/1 input of every length 1..max_len.
bool sorts_all_zero_one_inputs(const Partner& partner_of, int max_len) {
  for (int len = 1; len <= max_len; ++len)
    for (std::uint32_t bits = 0; bits < (1u << len); ++bits) {
      Pairs v;
      for (int i = 0; i < len; ++i) v.emplace_back((bits >> i) & 1u, i);
      network_sort(v, partner_of);
      for (int i = 1; i < len; ++i)
        if (v[i - 1].first > v[i].first) return false;
    }
  return true;
}

TEST(SatishMergeNetwork, SortsEveryZeroOneInputUpTo16Keys) { EXPECT_TRUE(sorts_all_zero_one_inputs(kNetwork, 16)); }

TEST(SatishMergeNetwork, PlantedErrorIsCaught) { EXPECT_FALSE(sorts_all_zero_one_inputs(kNoOffset, 16)); }

TEST(SatishMergeNetwork, ComparatorsOfAStageAreDisjoint) {
  for (int m = 2; m <= 2048; m <<= 1)
    for (int p = 1; p < m; p <<= 1)
      for (int k = p; k >= 1; k >>= 1) {
        std::vector<int> used(m, 0);
        for (int x = 0; x < m; ++x) {
          const int y = partner(x, p, k);
          if (y < 0) continue;
          ASSERT_LT(y, m);
          ++used[x];
          ++used[y];
        }
        ASSERT_TRUE(std::all_of(used.begin(), used.end(), [](int u) { return u <= 1; })) << m << " " << p << " " << k;
      }
}

TEST(SatishMergeNetwork, CandidatesEnumerateExactlyTheComparators) {
  // The kernel walks candidates lower_of(c); the comparators it finds must be partner()'s.
  for (int m = 2; m <= 2048; m <<= 1)
    for (int p = 1; p < m; p <<= 1)
      for (int k = p; k >= 1; k >>= 1) {
        std::vector<int> from_partner, from_candidates;
        for (int x = 0; x < m; ++x)
          if (partner(x, p, k) >= 0) from_partner.push_back(x);
        for (int c = 0; c < m / 2; ++c) {
          const int x = lower_of(c, p, k), y = x + k;
          if (y < m && (x ^ y) < 2 * p) from_candidates.push_back(x);
        }
        std::sort(from_candidates.begin(), from_candidates.end());
        ASSERT_EQ(from_candidates, from_partner) << m << " " << p << " " << k;
      }
}

TEST(SatishMergeNetwork, StageCount) {
  EXPECT_EQ(stage_count(256), 36);
  EXPECT_EQ(stage_count(1024), 55);
  EXPECT_EQ(stage_count(1), 0);
}

TEST(SatishMergeNetwork, RandomKeysWithTiesKeepTheirValues) {
  std::mt19937 rng(5);
  for (const int len : {63, 64, 200, 256, 257, 1000, 1024, 2048}) {
    for (int trial = 0; trial < 20; ++trial) {
      Pairs v;
      for (int i = 0; i < len; ++i)
        v.emplace_back(trial % 2 ? rng() % 7 : rng() | (rng() % 3 == 0 ? 0xFFFFFFFFu : 0u), i);
      Pairs expected = v;
      network_sort(v, kNetwork);
      std::sort(expected.begin(), expected.end());
      Pairs got = v;
      for (int i = 1; i < len; ++i) ASSERT_LE(v[i - 1].first, v[i].first);
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, expected) << "len " << len;
    }
  }
}

}  // namespace
}  // namespace depthsort::primitives::odd_even
