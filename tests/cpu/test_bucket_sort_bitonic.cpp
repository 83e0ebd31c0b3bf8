// Dehne & Zaboli (2010), Section 4: the bitonic sorts of GPU Bucket Sort
// (kernels/sort/primitives/bitonic_sort.cuh), run on the CPU exactly as the kernels run them:
//  - the block sort's rounds (three steps per register group) sort every 0/1 input of 8 and 16
//    words (the 0-1 principle) and random words with ties at every power of two up to 16384;
//  - the global-memory path of steps 4 and 9 (chunks sorted, the flip and the half-cleaners
//    in global memory with virtual pads past the segment's end, the chunk merges) sorts segments
//    of every awkward length;
//  - (key, value) words come out in depthsort's key order with each value beside its key;
//  - a planted error (one round left out, a half-cleaner direction flipped) is caught;
//  - the merge by rank of the on-chip bucket sort (kernels/sort/primitives/merge_rank.hpp, option onchip):
//    two sorted 8192-key halves, ties across them, the second half padded with maximal keys after
//    its real ones (real maximal keys too), every real element lands on its own place in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "sort/primitives/bitonic_sort.cuh"
#include "sort/primitives/merge_rank.hpp"
#include "depthsort/sort/keys.hpp"

namespace depthsort::primitives::bitonic {
namespace {

using Words = std::vector<std::uint64_t>;

// The block sort as a CPU loop over groups; skip_round (if >= 0) leaves one round out.
void cpu_block_sort(Words& data, int skip_round = -1) {
  const auto P = static_cast<std::uint32_t>(data.size());
  int round_index = 0;
  for_each_round(P, [&](std::uint32_t k, int low, int bits) {
    if (round_index++ == skip_round) return;
    for (std::uint32_t g = 0; g < (P >> bits); ++g) run_round(data.data(), g, low, bits, k, IdentityIndex{});
  });
}

// The same through the padded shared-memory layout the kernels use.
void cpu_block_sort_padded(Words& data) {
  const auto P = static_cast<std::uint32_t>(data.size());
  Words smem(padded_size(P), 0);
  for (std::uint32_t i = 0; i < P; ++i) smem[padded(i)] = data[i];
  for_each_round(P, [&](std::uint32_t k, int low, int bits) {
    for (std::uint32_t g = 0; g < (P >> bits); ++g) run_round(smem.data(), g, low, bits, k, PaddedIndex{});
  });
  for (std::uint32_t i = 0; i < P; ++i) data[i] = smem[padded(i)];
}

// The global-memory path of bucket_sort/segment_sort.cuh for one segment of any size, chunk C.
// KeyOnly: the buckets' execution, chunks sorted by key alone (radix_chunks, as the radix chunk
// sort leaves them: ties in any order) or by the bitonic sort of whole words, every later
// comparator by key. flip_descending plants an error: the flip
// compares the wrong way.
template <bool KeyOnly = false>
void cpu_segment_sort(Words& seg, std::uint32_t C, bool flip_descending = false, bool radix_chunks = true) {
  const auto size = static_cast<std::uint32_t>(seg.size());
  std::uint32_t P = 1;
  while (P < size) P <<= 1;
  const auto chunk_pass = [&](auto&& body) {
    for (std::uint32_t first = 0; first < size; first += C) {
      const std::uint32_t count = std::min(C, size - first);
      const std::uint32_t width = size <= C ? std::max(8u, P) : C;
      Words tile(width, ~std::uint64_t{0});
      std::copy_n(seg.begin() + first, count, tile.begin());
      body(tile, count);
      std::copy_n(tile.begin(), count, seg.begin() + first);
    }
  };
  if (KeyOnly && radix_chunks) {
    // Ties of a key come out in reverse input order (any order must do), the pads after them (the
    // radix chunk sort loads blocked and sorts stably, so its pads stay last).
    chunk_pass([](Words& tile, std::uint32_t count) {
      std::reverse(tile.begin(), tile.begin() + count);
      std::stable_sort(tile.begin(), tile.end(), [](auto a, auto b) { return key_of(a) < key_of(b); });
    });
  } else {
    chunk_pass([](Words& tile, std::uint32_t) { cpu_block_sort(tile); });
  }
  int chunk_log2 = 0;
  while ((1u << chunk_log2) < C) ++chunk_log2;
  for (std::uint64_t k = 2ull * C; k <= P; k *= 2) {
    for (std::uint64_t j = k / 2; j >= C; j /= 2) {
      const bool flip = j == k / 2;
      for (std::uint32_t i = 0; i < size; ++i) {
        if ((i & j) != 0) continue;
        const std::uint64_t partner = flip ? (i ^ (k - 1)) : (i + j);
        if (partner >= size) continue;
        compare_exchange<KeyOnly>(seg[i], seg[partner], !(flip && flip_descending));
      }
    }
    chunk_pass([&](Words& tile, std::uint32_t) {
      for_each_merge_round(chunk_log2 - 1, [&](int low, int bits) {
        for (std::uint32_t g = 0; g < (C >> bits); ++g)
          run_round<KeyOnly>(tile.data(), g, low, bits, 2 * C, IdentityIndex{});
      });
    });
  }
}

bool all_zero_one_sorted(int P, int skip_round = -1) {
  for (std::uint32_t bits = 0; bits < (1u << P); ++bits) {
    Words w(P);
    for (int i = 0; i < P; ++i) w[i] = (bits >> i) & 1u;
    cpu_block_sort(w, skip_round);
    if (!std::is_sorted(w.begin(), w.end())) return false;
  }
  return true;
}

Words random_words(std::size_t n, std::mt19937& rng, std::uint32_t key_range) {
  Words w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = pack(rng() % key_range, static_cast<std::uint32_t>(i));
  return w;
}

TEST(BucketSortBitonic, CompareExchangeOrdersBothWays) {
  std::uint64_t a = 5, b = 3;
  compare_exchange(a, b, true);
  EXPECT_EQ(a, 3u);
  EXPECT_EQ(b, 5u);
  compare_exchange(a, b, false);
  EXPECT_EQ(a, 5u);
  EXPECT_EQ(b, 3u);
}

TEST(BucketSortBitonic, GroupBaseInsertsZeroBits) {
  // Groups of bits [2, 5): g = 0b1011 keeps bits 0-1 (0b11) and moves the rest above bit 5.
  EXPECT_EQ(group_base(0b1011u, 2, 3), (0b10u << 5) | 0b11u);
  EXPECT_EQ(group_base(7u, 0, 3), 7u << 3);
}

TEST(BucketSortBitonic, SortsEveryZeroOneInput) {
  EXPECT_TRUE(all_zero_one_sorted(8));
  EXPECT_TRUE(all_zero_one_sorted(16));
}

TEST(BucketSortBitonic, PlantedMissingRoundIsCaught) {
  // Leaving out any one round of the 16-word network must leave some 0/1 input unsorted.
  int rounds = 0;
  for_each_round(16, [&](std::uint32_t, int, int) { ++rounds; });
  for (int r = 0; r < rounds; ++r) EXPECT_FALSE(all_zero_one_sorted(16, r)) << "round " << r;
}

TEST(BucketSortBitonic, SortsRandomWordsWithTiesAtEveryPowerOfTwo) {
  std::mt19937 rng(7);
  for (std::uint32_t P = 2; P <= 16384; P *= 2) {
    for (const std::uint32_t range : {3u, 1000u, 0xFFFFFFFFu}) {
      Words w = random_words(P, rng, range);
      Words expected = w;
      std::sort(expected.begin(), expected.end());
      Words padded_copy = w;
      cpu_block_sort(w);
      cpu_block_sort_padded(padded_copy);
      ASSERT_EQ(w, expected) << "P " << P << " range " << range;
      ASSERT_EQ(padded_copy, expected) << "padded, P " << P;
    }
  }
}

TEST(BucketSortBitonic, GlobalPathSortsSegmentsOfAnyLength) {
  std::mt19937 rng(11);
  for (const std::uint32_t C : {8u, 64u}) {
    for (const std::uint32_t size :
         {1u, 7u, 8u, 9u, 63u, 64u, 65u, 100u, 128u, 129u, 500u, 1000u, 1024u, 1025u, 3000u}) {
      Words w = random_words(size, rng, size < 100 ? 5u : 0xFFFFFFFFu);
      Words expected = w;
      std::sort(expected.begin(), expected.end());
      cpu_segment_sort(w, C);
      ASSERT_EQ(w, expected) << "chunk " << C << " size " << size;
    }
  }
}

TEST(BucketSortBitonic, KeyOnlyGlobalPathSortsByKeyAndKeepsEveryPair) {
  std::mt19937 rng(17);
  for (const std::uint32_t size : {9u, 100u, 129u, 1000u, 1025u, 3000u}) {
    for (const std::uint32_t range : {2u, 50u, 0xFFFFFFFFu}) {
      Words w = random_words(size, rng, range);
      w.push_back(pack(0xFFFFFFFFu, 7));  // a real word with the pads' key
      Words expected = w;
      cpu_segment_sort<true>(w, 64);
      for (std::size_t i = 1; i < w.size(); ++i) ASSERT_LE(key_of(w[i - 1]), key_of(w[i])) << "size " << size;
      std::sort(expected.begin(), expected.end());
      Words got = w;
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, expected) << "size " << size << " range " << range;
    }
  }
}

TEST(BucketSortBitonic, KeyOnlyGlobalPathAfterBitonicChunksKeepsRealMaxKeys) {
  // Many real words with the pads' key 0xFFFFFFFF: the GPU run of 2026-11-23 lost one when the
  // chunk sort compared keys alone (a pad came out inside the segment).
  std::mt19937 rng(19);
  for (const std::uint32_t size : {9u, 100u, 1000u, 1025u, 3000u}) {
    Words w = random_words(size, rng, 4);
    for (std::uint32_t i = 0; i < size; i += 3) w[i] = pack(0xFFFFFFFFu, i);
    Words expected = w;
    cpu_segment_sort<true>(w, 64, false, /*radix_chunks=*/false);
    for (std::size_t i = 1; i < w.size(); ++i) ASSERT_LE(key_of(w[i - 1]), key_of(w[i])) << "size " << size;
    std::sort(expected.begin(), expected.end());
    std::sort(w.begin(), w.end());
    ASSERT_EQ(w, expected) << "size " << size;
  }
}

TEST(BucketSortBitonic, PlantedKeyOnlyBitonicChunkSortLosesAMaxKey) {
  // The planted error: the padded chunk sorted by key alone, as the failing kernel did.
  std::mt19937 rng(23);
  bool lost = false;
  for (int trial = 0; trial < 200 && !lost; ++trial) {
    const std::uint32_t size = 5 + rng() % 58;
    Words tile(64, ~std::uint64_t{0});
    for (std::uint32_t i = 0; i < size; ++i) tile[i] = pack(rng() % 2 ? 0xFFFFFFFFu : 1u, i);
    for_each_round(64, [&](std::uint32_t k, int low, int bits) {
      for (std::uint32_t g = 0; g < (64u >> bits); ++g) run_round<true>(tile.data(), g, low, bits, k, IdentityIndex{});
    });
    for (std::uint32_t i = 0; i < size; ++i) lost = lost || tile[i] == ~std::uint64_t{0};
  }
  EXPECT_TRUE(lost);
}

TEST(BucketSortBitonic, PlantedWrongFlipIsCaught) {
  std::mt19937 rng(13);
  Words w = random_words(1000, rng, 0xFFFFFFFFu);
  cpu_segment_sort(w, 64, /*flip_descending=*/true);
  EXPECT_FALSE(std::is_sorted(w.begin(), w.end()));
}

TEST(BucketSortBitonic, KeysInDepthsortOrderWithValuesBesideThem) {
  const float keys[] = {1.0f,
                        -0.0f,
                        0.0f,
                        -1.0f,
                        std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::denorm_min()};
  Words w;
  for (std::uint32_t i = 0; i < 8; ++i) w.push_back(pack(ordered_key(keys[i]), 100 + i));
  cpu_block_sort(w);
  for (std::size_t i = 1; i < w.size(); ++i) EXPECT_TRUE(key_of(w[i - 1]) < key_of(w[i]));
  for (const std::uint64_t word : w) {
    const std::uint32_t v = value_of(word) - 100;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(key_from_ordered(key_of(word))), std::bit_cast<std::uint32_t>(keys[v]));
  }
}

// The merge of bucket_tile_kernel<2, ...>, element by element as its threads run it: the first
// half full (8192 real keys), the second with real_b real keys then pads (0xFFFFFFFF). The real
// elements must land on a permutation of [0, 8192 + real_b), in order, ties first half first.
void check_rank_merge(std::uint32_t real_b, std::uint32_t key_range, std::uint32_t seed) {
  constexpr std::uint32_t kHalf = 8192;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, key_range);
  auto draw = [&] {  // the top of the range stands for the real maximal key 0xFFFFFFFF
    const std::uint32_t k = key(rng);
    return k == key_range ? 0xFFFFFFFFu : k;
  };
  std::vector<std::uint32_t> a(kHalf), b(kHalf, 0xFFFFFFFFu);
  for (auto& k : a) k = draw();
  for (std::uint32_t j = 0; j < real_b; ++j) b[j] = draw();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.begin() + real_b);
  const std::uint32_t size = kHalf + real_b;
  // Value = origin: first half i, second half kHalf + j.
  std::vector<std::uint64_t> out(size, ~std::uint64_t{0});
  for (std::uint32_t i = 0; i < kHalf; ++i) {
    const std::uint32_t place = primitives::place_of_first(i, a[i], b.data(), kHalf);
    ASSERT_LT(place, size);
    ASSERT_EQ(out[place], ~std::uint64_t{0}) << "place " << place << " taken twice";
    out[place] = pack(a[i], i);
  }
  for (std::uint32_t j = 0; j < real_b; ++j) {
    const std::uint32_t place = primitives::place_of_second(j, b[j], a.data(), kHalf);
    ASSERT_LT(place, size);
    ASSERT_EQ(out[place], ~std::uint64_t{0}) << "place " << place << " taken twice";
    out[place] = pack(b[j], kHalf + j);
  }
  // Every place filled exactly once (size writes, none twice), so sorted words mean: keys in
  // order and, on ties, the first half first and each half in its own order.
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
}

TEST(BucketSortRankMerge, MergesHalvesWithTiesAndPads) {
  for (const std::uint32_t real_b : {1u, 2u, 100u, 4095u, 8191u, 8192u})
    for (const std::uint32_t range : {1u, 16u, 1000u, 0xFFFFFFFEu}) check_rank_merge(real_b, range, real_b + range);
}

TEST(BucketSortRankMerge, PlantedStrictTieOnBothSidesIsCaught) {
  // Both halves counting only strictly smaller keys put equal keys on one place.
  const std::uint32_t a[] = {5, 7}, b[] = {5, 9};
  const std::uint32_t first = primitives::place_of_first(0, a[0], b, 2);
  const std::uint32_t second_wrong = 0 + primitives::rank_in<false>(a, 2, b[0]);
  const std::uint32_t second = primitives::place_of_second(0, b[0], a, 2);
  EXPECT_EQ(first, second_wrong);
  EXPECT_NE(first, second);
}

}  // namespace
}  // namespace depthsort::primitives::bitonic
