// Karsin et al. (ICS 2018), Section 5.1: the per-lane pieces of GPU-MMS
// (kernels/sort/gpu_mms/gpu_mms_networks.hpp), composed on the CPU exactly as the kernels compose
// them across the 32 lanes of a warp:
//  - the register merge (split_low_high, then five half-cleaner steps) on every 0/1 input pair of
//    sorted lists (the 0-1 principle: a comparator network that merges every 0/1 input merges all),
//    and on random pairs with ties, whose values must travel with their keys;
//  - the base case's bitonic network with the row/column index mapping of the kernel, 0/1 inputs of
//    16 and random 1024-element tiles; the transpose swizzle is a bank-conflict-free bijection;
//  - the K-way partition against a brute-force rank on random lists with many ties;
//  - a planted error (the merge missing its last half-cleaner step) is caught by the same check.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "sort/gpu_mms/gpu_mms_networks.hpp"

namespace depthsort::gpu_mms {
namespace {

// (key << 32 | value) words, as the kernels move the registry's pairs.
using Word = std::uint64_t;
struct Less {
  using total_order = void;  // the kernels' one-predicate path
  bool operator()(Word a, Word b) const { return a < b; }
};
// Orders by key only, so equal keys with different values must not be duplicated or lost.
struct KeyLess {
  bool operator()(Word a, Word b) const { return (a >> 32) < (b >> 32); }
};

// The warp merge of the kernel (warp_merge), lane by lane; `steps` half-cleaner distances.
template <class L>
void simulate_warp_merge(const std::array<Word, kW>& a, const std::array<Word, kW>& b, std::array<Word, kW>& low,
                         std::array<Word, kW>& high, L less, int last_distance = 1) {
  for (int lane = 0; lane < kW; ++lane) split_low_high(a[lane], b[kW - 1 - lane], low[lane], high[lane], less);
  for (int d = kW / 2; d >= last_distance; d /= 2) {
    const auto pl = low, ph = high;  // what the shuffles read: every lane's value before the step
    for (int lane = 0; lane < kW; ++lane) {
      const bool upper = (lane & d) != 0;
      low[lane] = half_cleaner_keep(pl[lane], pl[lane ^ d], upper, less);
      high[lane] = half_cleaner_keep(ph[lane], ph[lane ^ d], upper, less);
    }
  }
}

template <class L>
::testing::AssertionResult merged(std::array<Word, kW> a, std::array<Word, kW> b, L less, int last_distance = 1) {
  std::array<Word, kW> low{}, high{};
  simulate_warp_merge(a, b, low, high, less, last_distance);
  std::vector<Word> out(low.begin(), low.end());
  out.insert(out.end(), high.begin(), high.end());
  for (std::size_t i = 1; i < out.size(); ++i)
    if (less(out[i], out[i - 1])) return ::testing::AssertionFailure() << "out of order at " << i;
  std::vector<Word> in(a.begin(), a.end());
  in.insert(in.end(), b.begin(), b.end());
  std::sort(in.begin(), in.end());
  std::sort(out.begin(), out.end());
  if (in != out) return ::testing::AssertionFailure() << "elements lost or duplicated";
  return ::testing::AssertionSuccess();
}

// The base case's network (base_case_kernel): stages k, strides j, index e as the kernel pairs them.
template <class L>
void bitonic_sort(std::vector<Word>& v, L less) {
  const std::uint32_t n = static_cast<std::uint32_t>(v.size());
  for (std::uint32_t k = 2; k <= n; k *= 2)
    for (std::uint32_t j = k / 2; j >= 1; j /= 2)
      for (std::uint32_t e = 0; e < n; ++e)
        if ((e & j) == 0) compare_exchange(v[e], v[e ^ j], bitonic_ascending(e, k), less);
}

// Sorted 0/1 list of 32 with `ones` ones, values tagging each position.
std::array<Word, kW> zero_one(int ones, Word tag) {
  std::array<Word, kW> r{};
  for (int i = 0; i < kW; ++i) r[i] = (Word(i >= kW - ones) << 32) | (tag + i);
  return r;
}

TEST(GpuMmsNetworks, WarpMergeMergesEveryZeroOneInput) {
  // A sorted 0/1 list of w is fixed by its number of ones: (w+1)^2 inputs cover all of them.
  for (int x = 0; x <= kW; ++x)
    for (int y = 0; y <= kW; ++y) EXPECT_TRUE(merged(zero_one(x, 0), zero_one(y, 100), KeyLess{})) << x << " " << y;
}

TEST(GpuMmsNetworks, WarpMergeKeepsValuesWithKeysOnRandomTies) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5000; ++trial) {
    std::array<Word, kW> a{}, b{};
    for (int i = 0; i < kW; ++i) {
      a[i] = (Word(rng() % 6) << 32) | i;
      b[i] = (Word(rng() % 6) << 32) | (100 + i);
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_TRUE(merged(a, b, KeyLess{})) << "trial " << trial;
  }
}

TEST(GpuMmsNetworks, TotalOrderPathMergesAndSortsZeroOneAndRandomWords) {
  static_assert(kTotal<Less> && !kTotal<KeyLess>);
  // 0/1 keys with equal values: equal elements are bitwise equal, as the total path requires.
  for (int x = 0; x <= kW; ++x)
    for (int y = 0; y <= kW; ++y) {
      std::array<Word, kW> a = zero_one(x, 0), b = zero_one(y, 0);
      for (auto* l : {&a, &b})
        for (Word& e : *l) e &= ~Word{0xFFFFFFFFu};
      EXPECT_TRUE(merged(a, b, Less{})) << x << " " << y;
    }
  std::mt19937 rng(13);
  for (int trial = 0; trial < 5000; ++trial) {
    std::array<Word, kW> a{}, b{};
    for (int i = 0; i < kW; ++i) {
      a[i] = (Word(rng() % 6) << 32) | (rng() % 3);
      b[i] = (Word(rng() % 6) << 32) | (rng() % 3);
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_TRUE(merged(a, b, Less{})) << "trial " << trial;
    std::vector<Word> v(a.begin(), a.end());
    bitonic_sort(v, Less{});
    ASSERT_TRUE(std::is_sorted(v.begin(), v.end()));
  }
}

TEST(GpuMmsNetworks, PlantedErrorMissingLastStepIsCaught) {
  bool caught = false;
  for (int x = 0; x <= kW && !caught; ++x)
    for (int y = 0; y <= kW && !caught; ++y) caught = !merged(zero_one(x, 0), zero_one(y, 100), KeyLess{}, 2);
  EXPECT_TRUE(caught) << "a merge without its distance-1 step passed the 0/1 check";
}

TEST(GpuMmsNetworks, BaseCaseNetworkSortsEveryZeroOneInputOf16) {
  for (unsigned bits = 0; bits < (1u << 16); ++bits) {
    std::vector<Word> v(16);
    for (int i = 0; i < 16; ++i) v[i] = (Word((bits >> i) & 1u) << 32) | i;
    bitonic_sort(v, KeyLess{});
    for (int i = 1; i < 16; ++i) ASSERT_LE(v[i - 1] >> 32, v[i] >> 32) << "bits " << bits;
  }
}

TEST(GpuMmsNetworks, BaseCaseNetworkSortsRandomTilesWithTies) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Word> v(kBaseCase);
    for (int i = 0; i < kBaseCase; ++i) v[i] = (Word(rng() % 50) << 32) | i;
    std::vector<Word> expect = v;
    bitonic_sort(v, KeyLess{});
    for (int i = 1; i < kBaseCase; ++i) ASSERT_LE(v[i - 1] >> 32, v[i] >> 32);
    std::sort(expect.begin(), expect.end());
    std::sort(v.begin(), v.end());
    ASSERT_EQ(v, expect);
  }
}

TEST(GpuMmsNetworks, TransposeSwizzleIsABankConflictFreeBijection) {
  std::vector<int> seen(kBaseCase, 0);
  for (std::uint32_t r = 0; r < kW; ++r)
    for (std::uint32_t c = 0; c < kW; ++c) ++seen[tile_slot(r, c)];
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  // 8-byte elements: a half-warp's 16 accesses must fall in 16 distinct 8-byte bank pairs, both
  // for a row (lane = col) and for a column (lane = row).
  for (std::uint32_t fixed = 0; fixed < kW; ++fixed)
    for (std::uint32_t half = 0; half < 2; ++half) {
      std::array<int, 16> row_banks{}, col_banks{};
      for (std::uint32_t l = half * 16; l < half * 16 + 16; ++l) {
        ++row_banks[tile_slot(fixed, l) % 16];
        ++col_banks[tile_slot(l, fixed) % 16];
      }
      for (int b = 0; b < 16; ++b) {
        EXPECT_EQ(row_banks[b], 1);
        EXPECT_EQ(col_banks[b], 1);
      }
    }
}

TEST(GpuMmsNetworks, KwayPartitionSplitsAtEveryRank) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 2 << (trial % 5);  // 2..32
    std::vector<std::vector<Word>> lists(k);
    std::vector<std::uint32_t> len(k);
    std::vector<std::pair<Word, int>> all;  // (element, list): the total order of the search
    for (int i = 0; i < k; ++i) {
      len[i] = rng() % 40;
      for (std::uint32_t j = 0; j < len[i]; ++j) lists[i].push_back(Word(rng() % 7) << 32);  // heavy ties
      std::sort(lists[i].begin(), lists[i].end());
      for (Word x : lists[i]) all.emplace_back(x, i);
    }
    std::sort(all.begin(), all.end());
    auto get = [&](int i, std::uint32_t j) { return lists[i][j]; };
    for (std::uint32_t p = 0; p <= all.size(); p += 1 + trial % 3) {
      std::vector<std::uint32_t> s(k), expect(k, 0);
      kway_partition<Word>(get, len.data(), k, p, s.data(), KeyLess{});
      for (std::uint32_t r = 0; r < p; ++r) ++expect[all[r].second];
      ASSERT_EQ(s, expect) << "k " << k << " p " << p;
    }
  }
}

}  // namespace
}  // namespace depthsort::gpu_mms
