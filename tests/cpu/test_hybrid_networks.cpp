// Sintorn & Assarsson (JPDC 2008), Section 4: the per-thread networks of the vector-mergesort
// (kernels/sort/hybrid/hybrid_networks.hpp), run on the CPU exactly as the kernels run them.
//  - all 0/1 inputs of 4 and 8 keys (the 0-1 principle: a comparator network that sorts every
//    0/1 input sorts every input);
//  - random keys with ties, NaN of both signs, +-0, +-inf and denormals, values travelling with
//    their keys through sort_elements, merge_step, sort16 and the merge-path tiles of Fig. 3;
//  - a planted error (the paper's two-predicate notation, which duplicates a value on equal keys,
//    and a network missing one comparator) is caught by the same checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {
namespace {

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Pairs to_pairs(const KV4* vectors, int count) {
  Pairs p;
  for (int v = 0; v < count; ++v)
    for (int j = 0; j < 4; ++j) p.emplace_back(vectors[v].k[j], vectors[v].v[j]);
  return p;
}

// Sorted by key, and the multiset of (key, value) pairs is the input's.
::testing::AssertionResult sorted_permutation(Pairs in, const Pairs& out) {
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i - 1].first > out[i].first) return ::testing::AssertionFailure() << "keys out of order at " << i;
  Pairs sorted_out = out;
  std::sort(in.begin(), in.end());
  std::sort(sorted_out.begin(), sorted_out.end());
  if (in != sorted_out) return ::testing::AssertionFailure() << "pairs lost, duplicated or separated";
  return ::testing::AssertionSuccess();
}

KV4 vector_from_bits(unsigned bits, unsigned value_base) {
  KV4 r{};
  for (int j = 0; j < 4; ++j) {
    r.k[j] = (bits >> j) & 1u;
    r.v[j] = value_base + j;
  }
  return r;
}

// Keys in depthsort's order with every special value, many ties.
std::uint32_t random_key(std::mt19937& rng) {
  static const float specials[] = {0.0f,
                                   -0.0f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   -std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::denorm_min(),
                                   -std::numeric_limits<float>::denorm_min(),
                                   1.0f,
                                   -1.0f};
  const unsigned pick = rng() % 16;
  if (pick < 10) return ordered_key(specials[pick]);
  if (pick < 13) return ordered_key(static_cast<float>(rng() % 5));  // heavy ties
  return ordered_key(std::uniform_real_distribution<float>(-3.f, 3.f)(rng));
}

TEST(HybridNetworks, SortElementsSortsAllZeroOneInputs) {
  for (unsigned bits = 0; bits < 16; ++bits) {
    KV4 r = vector_from_bits(bits, 100);
    const Pairs in = to_pairs(&r, 1);
    sort_elements(r);
    EXPECT_TRUE(sorted_permutation(in, to_pairs(&r, 1))) << "input bits " << bits;
  }
}

TEST(HybridNetworks, MergeStepMergesAllZeroOneInputs) {
  // Every 0/1 input of 8 keys: a and b are first sorted (the precondition of Fig. 1), then merged.
  for (unsigned bits = 0; bits < 256; ++bits) {
    KV4 v[2] = {vector_from_bits(bits & 15u, 0), vector_from_bits(bits >> 4, 4)};
    const Pairs in = to_pairs(v, 2);
    sort_elements(v[0]);
    sort_elements(v[1]);
    merge_step(v[0], v[1]);
    EXPECT_TRUE(sorted_permutation(in, to_pairs(v, 2))) << "input bits " << bits;
  }
}

TEST(HybridNetworks, Sort16SortsAllZeroOneInputsOfEachRunPair) {
  // 16 keys have 65536 0/1 inputs: all of them.
  for (unsigned bits = 0; bits < (1u << 16); ++bits) {
    KV4 v[4];
    for (int q = 0; q < 4; ++q) v[q] = vector_from_bits((bits >> (4 * q)) & 15u, 4 * q);
    const Pairs in = to_pairs(v, 4);
    sort16(v[0], v[1], v[2], v[3]);
    ASSERT_TRUE(sorted_permutation(in, to_pairs(v, 4))) << "input bits " << bits;
  }
}

TEST(HybridNetworks, RandomKeysWithSpecialsKeepTheirValues) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20000; ++trial) {
    KV4 v[4];
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < 4; ++j) {
        v[q].k[j] = random_key(rng);
        v[q].v[j] = static_cast<std::uint32_t>(4 * q + j);
      }
    const Pairs in = to_pairs(v, 4);
    sort16(v[0], v[1], v[2], v[3]);
    ASSERT_TRUE(sorted_permutation(in, to_pairs(v, 4))) << "trial " << trial;
  }
}

// Runs the Fig. 3 tiles of a whole merge exactly as the kernels do: co-rank split, then merge_tile.
Pairs merge_by_tiles(const Pairs& buffer, std::uint32_t na, std::uint32_t nb, std::uint32_t tile) {
  auto key = [&](std::uint32_t i) { return buffer[i].first; };
  auto load = [&](std::uint32_t i, std::uint32_t& k, std::uint32_t& v) {
    k = buffer[i].first;
    v = buffer[i].second;
  };
  Pairs out(na + nb);
  for (std::uint32_t d = 0; d < na + nb; d += tile) {
    const std::uint32_t d1 = std::min(d + tile, na + nb);
    const std::uint32_t i0 = co_rank(d, 0, na, na, nb, key), i1 = co_rank(d1, 0, na, na, nb, key);
    const int vectors = static_cast<int>((d1 - d + 3) / 4);
    merge_tile(
        load,
        [&](int vi, const KV4& r) {
          for (int j = 0; j < 4; ++j)
            if (d + 4 * vi + j < d1) out[d + 4 * vi + j] = {r.k[j], r.v[j]};
        },
        i0, i1, na + (d - i0), na + (d1 - i1), vectors);
  }
  return out;
}

TEST(HybridNetworks, MergePathTilesMergeRandomRunsWithTies) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::uint32_t na = rng() % 70, nb = rng() % 70;
    Pairs buffer;
    for (std::uint32_t i = 0; i < na + nb; ++i) {
      std::uint32_t k = random_key(rng);
      if (k == kSentinelHigh) k -= 1;  // merged keys are below the sentinel by construction
      buffer.emplace_back(k, i);
    }
    std::sort(buffer.begin(), buffer.begin() + na);
    std::sort(buffer.begin() + na, buffer.end());
    const std::uint32_t tile = trial % 2 ? 16 : 64;
    ASSERT_TRUE(sorted_permutation(buffer, merge_by_tiles(buffer, na, nb, tile)))
        << "trial " << trial << " na " << na << " nb " << nb;
  }
}

TEST(HybridNetworks, WholeListsOneThreadPerPairAsFig3) {
  // One tile covering the whole merge: the paper's one thread per pair of lists.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint32_t na = 4 * (1 + rng() % 16), nb = 4 * (rng() % 17);
    Pairs buffer;
    for (std::uint32_t i = 0; i < na + nb; ++i) buffer.emplace_back(rng() % 2, i);  // 0/1 keys, many ties
    std::sort(buffer.begin(), buffer.begin() + na);
    std::sort(buffer.begin() + na, buffer.end());
    ASSERT_TRUE(sorted_permutation(buffer, merge_by_tiles(buffer, na, nb, na + nb))) << "trial " << trial;
  }
}

// The word path of the on-chip merge: the same networks on single 32-bit words (K4).
TEST(HybridNetworks, WordNetworksSortAllZeroOneInputsOf16) {
  for (unsigned bits = 0; bits < (1u << 16); ++bits) {
    K4 v[4];
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < 4; ++j) v[q].k[j] = (bits >> (4 * q + j)) & 1u;
    sort16(v[0], v[1], v[2], v[3]);
    int ones = 0;
    for (int i = 0; i < 16; ++i) {
      const std::uint32_t x = v[i / 4].k[i % 4];
      if (i > 0) {
        ASSERT_LE(v[(i - 1) / 4].k[(i - 1) % 4], x) << "bits " << bits << " at " << i;
      }
      ones += static_cast<int>(x);
    }
    ASSERT_EQ(ones, std::popcount(bits)) << "bits " << bits;
  }
}

TEST(HybridNetworks, WordMergePathTilesSortKeyIndexWords) {
  // Words (key << 12) | index as the kernel builds them: distinct, merged by tiles of 8 and 16.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::uint32_t na = rng() % 70, nb = rng() % 70;
    std::vector<std::uint32_t> buffer;
    for (std::uint32_t i = 0; i < na + nb; ++i) buffer.push_back(((rng() % 6) << 12) | i);
    std::sort(buffer.begin(), buffer.begin() + na);
    std::sort(buffer.begin() + na, buffer.end());
    const std::uint32_t tile = trial % 2 ? 8 : 16;
    auto key = [&](std::uint32_t i) { return buffer[i]; };
    std::vector<std::uint32_t> out(na + nb);
    for (std::uint32_t d = 0; d < na + nb; d += tile) {
      const std::uint32_t d1 = std::min(d + tile, na + nb);
      const std::uint32_t i0 = co_rank(d, 0, na, na, nb, key), i1 = co_rank(d1, 0, na, na, nb, key);
      merge_tile<K4>([&](std::uint32_t i, std::uint32_t& k) { k = buffer[i]; },
                     [&](int vi, const K4& r) {
                       for (int j = 0; j < 4; ++j)
                         if (d + 4 * vi + j < d1) out[d + 4 * vi + j] = r.k[j];
                     },
                     i0, i1, na + (d - i0), na + (d1 - i1), static_cast<int>((d1 - d + 3) / 4));
    }
    std::vector<std::uint32_t> expect = buffer;
    std::sort(expect.begin(), expect.end());
    ASSERT_EQ(out, expect) << "trial " << trial << " na " << na << " nb " << nb;
  }
}

TEST(HybridNetworks, OrderedKeysGiveTheProjectOrder) {
  // -NaN < -inf < -1 < -0 < +0 < denormal < 1 < +inf < +NaN, as the networks compare them.
  const float order[] = {-std::numeric_limits<float>::quiet_NaN(),
                         -std::numeric_limits<float>::infinity(),
                         -1.0f,
                         -0.0f,
                         0.0f,
                         std::numeric_limits<float>::denorm_min(),
                         1.0f,
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN()};
  KV4 a{}, b{};
  for (int j = 0; j < 4; ++j) {
    a.k[j] = ordered_key(order[8 - j]);
    a.v[j] = 8 - j;
    b.k[j] = ordered_key(order[4 - j]);
    b.v[j] = 4 - j;
  }
  sort_elements(a);
  sort_elements(b);
  merge_step(a, b);
  const KV4 both[2] = {a, b};
  const Pairs out = to_pairs(both, 2);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(key_from_ordered(out[i].first)), std::bit_cast<std::uint32_t>(order[i + 1]))
        << i;
    EXPECT_EQ(out[i].second, static_cast<std::uint32_t>(i + 1));
  }
}

// --- Planted errors: the checks above must catch a wrong network. ---

// The paper's notation taken literally: two predicates per comparator pair.
void merge_step_two_predicates(KV4& a, KV4& b) {
  const KV4 a0 = a, b0 = b;
  for (int i = 0; i < 4; ++i) {
    const bool lo_a = a0.k[i] < b0.k[3 - i];  // a = (a < b.wzyx) ? a : b.wzyx
    a.k[i] = lo_a ? a0.k[i] : b0.k[3 - i];
    a.v[i] = lo_a ? a0.v[i] : b0.v[3 - i];
    const bool hi_b = b0.k[i] >= a0.k[3 - i];  // b = (b >= a.wzyx) ? b : a.wzyx
    b.k[i] = hi_b ? b0.k[i] : a0.k[3 - i];
    b.v[i] = hi_b ? b0.v[i] : a0.v[3 - i];
  }
  sort_elements(a);
  sort_elements(b);
}

// sortElements with its last comparator (y, z) left out.
void sort_elements_missing_comparator(KV4& r) {
  cas(r.k[0], r.v[0], r.k[1], r.v[1]);
  cas(r.k[2], r.v[2], r.k[3], r.v[3]);
  cas(r.k[0], r.v[0], r.k[2], r.v[2]);
  cas(r.k[1], r.v[1], r.k[3], r.v[3]);
}

TEST(HybridNetworks, PlantedTwoPredicateMergeIsCaught) {
  int failures = 0;
  for (unsigned bits = 0; bits < 256; ++bits) {
    KV4 v[2] = {vector_from_bits(bits & 15u, 0), vector_from_bits(bits >> 4, 4)};
    const Pairs in = to_pairs(v, 2);
    sort_elements(v[0]);
    sort_elements(v[1]);
    merge_step_two_predicates(v[0], v[1]);
    if (!sorted_permutation(in, to_pairs(v, 2))) ++failures;
  }
  EXPECT_GT(failures, 0) << "the value-duplicating variant passed the check";
}

TEST(HybridNetworks, PlantedMissingComparatorIsCaught) {
  int failures = 0;
  for (unsigned bits = 0; bits < 16; ++bits) {
    KV4 r = vector_from_bits(bits, 0);
    const Pairs in = to_pairs(&r, 1);
    sort_elements_missing_comparator(r);
    if (!sorted_permutation(in, to_pairs(&r, 1))) ++failures;
  }
  EXPECT_GT(failures, 0) << "a network missing a comparator passed the 0/1 check";
}

}  // namespace
}  // namespace depthsort::hybrid
