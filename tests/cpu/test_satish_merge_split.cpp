// Satish, Harris & Garland (IPDPS 2009) Section IV-A: one level of the merge, run on the CPU with
// the functions the kernels use (kernels/sort/satish_merge/satish_merge_rank.hpp) and the kernels'
// loop structure: split points of every t-th key, sub-tile pairs of at most t + t keys, each
// element placed at its own index plus its rank in the other sub-tile.
//  - random runs with ties and the special keys, many splitters (small t) and odd lengths: the
//    output equals std::merge (A before B on ties), every sub-tile is within t;
//  - a planted error (B's elements ranked with A's tie rule, two equal keys on one place) is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "sort/satish_merge/satish_merge_rank.hpp"

namespace depthsort::satish_merge {
namespace {

using primitives::rank_in;

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
constexpr std::uint32_t kHole = 0xDEADBEEFu;

struct LevelResult {
  Pairs out;
  bool tiles_within_t = true;
};

// Merges a = buffer[0, la) and b = buffer[la, la + lb) as splitter_kernel + merge_tiles_kernel do.
LevelResult merge_level(const Pairs& buffer, std::uint32_t la, std::uint32_t lb, std::uint32_t t, bool planted) {
  auto key_a = [&](std::uint32_t j) { return buffer[j].first; };
  auto key_b = [&](std::uint32_t j) { return buffer[la + j].first; };
  const std::uint32_t sa = (la + t - 1) / t, sb = (lb + t - 1) / t;
  std::vector<SplitPoint> points(1 + sa + sb, SplitPoint{kHole, kHole});
  points[0] = {0, 0};
  for (std::uint32_t i = 0; i < sa; ++i) {
    std::uint32_t slot = 0;
    const SplitPoint p = splitter_point<false>(key_a, key_b, lb, t, i, &slot);
    points.at(1 + slot) = p;
  }
  for (std::uint32_t i = 0; i < sb; ++i) {
    std::uint32_t slot = 0;
    const SplitPoint p = splitter_point<true>(key_b, key_a, la, t, i, &slot);
    points.at(1 + slot) = p;
  }
  points.push_back({la, lb});
  LevelResult r;
  r.out.assign(la + lb, {kHole, kHole});
  for (std::size_t s = 0; s + 1 < points.size(); ++s) {
    const SplitPoint lo = points[s], hi = points[s + 1];
    if (lo.a == kHole || hi.a < lo.a || hi.b < lo.b) {
      r.tiles_within_t = false;
      return r;
    }
    const std::uint32_t na = hi.a - lo.a, nb = hi.b - lo.b;
    if (na > t || nb > t) r.tiles_within_t = false;
    auto tile_a = [&](std::uint32_t j) { return buffer[lo.a + j].first; };
    auto tile_b = [&](std::uint32_t j) { return buffer[la + lo.b + j].first; };
    const std::uint32_t out0 = lo.a + lo.b;
    for (std::uint32_t x = 0; x < na; ++x)
      r.out[out0 + x + rank_in<false>(tile_b, 0, nb, tile_a(x))] = buffer[lo.a + x];
    for (std::uint32_t x = 0; x < nb; ++x) {
      const std::uint32_t rank =
          planted ? rank_in<false>(tile_a, 0, na, tile_b(x)) : rank_in<true>(tile_a, 0, na, tile_b(x));
      r.out[out0 + x + rank] = buffer[la + lo.b + x];
    }
  }
  return r;
}

std::uint32_t random_key(std::mt19937& rng, int mode) {
  static const float specials[] = {0.0f,
                                   -0.0f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   -std::numeric_limits<float>::quiet_NaN(),
                                   1.0f,
                                   -1.0f};
  if (mode == 0) return rng() % 4;  // all ties
  if (mode == 1) return ordered_key(specials[rng() % 8]);
  return rng();
}

Pairs random_runs(std::mt19937& rng, std::uint32_t la, std::uint32_t lb, int mode) {
  Pairs v;
  for (std::uint32_t i = 0; i < la + lb; ++i) v.emplace_back(random_key(rng, mode), i);
  auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::stable_sort(v.begin(), v.begin() + la, by_key);
  std::stable_sort(v.begin() + la, v.end(), by_key);
  return v;
}

Pairs reference_merge(const Pairs& v, std::uint32_t la) {
  Pairs out;
  std::merge(v.begin(), v.begin() + la, v.begin() + la, v.end(), std::back_inserter(out),
             [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

TEST(SatishMergeSplit, LevelEqualsStdMergeWithTiesAndSpecials) {
  std::mt19937 rng(17);
  for (const std::uint32_t t : {1u, 2u, 4u, 8u, 256u}) {
    for (int trial = 0; trial < 400; ++trial) {
      const std::uint32_t w = t * (1u + rng() % 16);
      const std::uint32_t la = trial % 5 == 0 ? w : 1 + rng() % w;
      const std::uint32_t lb = trial % 7 == 0 ? 0 : rng() % (w + 1);
      const Pairs v = random_runs(rng, la, lb, trial % 3);
      const LevelResult r = merge_level(v, la, lb, t, false);
      ASSERT_TRUE(r.tiles_within_t) << "t " << t << " la " << la << " lb " << lb;
      ASSERT_EQ(r.out, reference_merge(v, la)) << "t " << t << " la " << la << " lb " << lb;
    }
  }
}

TEST(SatishMergeSplit, PlantedTieErrorIsCaught) {
  std::mt19937 rng(3);
  const Pairs v = random_runs(rng, 40, 37, 0);
  const LevelResult r = merge_level(v, 40, 37, 8, true);
  EXPECT_NE(r.out, reference_merge(v, 40));
}

TEST(SatishMergeSplit, RankInCountsBelowAndAtOrBelow) {
  const std::uint32_t keys[] = {1, 3, 3, 3, 7};
  auto at = [&](std::uint32_t i) { return keys[i]; };
  EXPECT_EQ(rank_in<false>(at, 0, 5, 3), 1u);
  EXPECT_EQ(rank_in<true>(at, 0, 5, 3), 4u);
  EXPECT_EQ(rank_in<false>(at, 0, 5, 0), 0u);
  EXPECT_EQ(rank_in<true>(at, 0, 5, 9), 5u);
  EXPECT_EQ(rank_in<true>(at, 2, 2, 9), 2u);
}

}  // namespace
}  // namespace depthsort::satish_merge
