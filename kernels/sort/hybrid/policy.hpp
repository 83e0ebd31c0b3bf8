// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): the
// tuning of every step of `hybrid`, `hybrid-coherent` and `hybrid-quick` in one place: block
// shapes, bucket sizes and the limits of the frame-coherent pivots. What each value was measured
// against, on an H200, is in docs/results/hybrid.md.
#pragma once

#include <cstddef>

namespace depthsort::hybrid {

struct Policy {
  // Section 4 / 6, the on-chip vector-mergesort. kCap 3328 (4 blocks/SM) with auto L = n/2816
  // beat kCap 4096 with n/3072 at 16M, count step included; n/2816 was the fastest L at 4M and 16M.
  static constexpr int kCap = 3328;               // pairs one block sorts on chip: 52 KB of smem, 4 blocks/SM
  static constexpr int kSortThreads = kCap / 16;  // each thread owns a 16-pair tile per merge pass
  static constexpr int kTargetBucket = 2816;      // auto L = n / 2816: 85% of kCap on average
  static constexpr int kMinBuckets = 64;
  static constexpr int kMaxAutoBuckets = 1 << 16;
  // Sample splitter (deviation 12): sampled buckets vary more in size than Fig. 5's on smooth inputs
  // (about 1/sqrt(oversample) relative), so the auto L aims lower, at 62% of kCap; at most the L whose
  // pivots, table and counters fit the count's shared memory (2 L + H + 1 words <= 200 KB).
  static constexpr int kSampleTargetBucket = 2048;
  static constexpr int kSampleMaxBuckets = 24576;
  // Shared memory the default count may take for its counters, pivots and table (one block per SM),
  // at most: less where the device allows a block less.
  static constexpr std::size_t kSearchSmemMax = 200 * 1024;
  static constexpr int kSmemBucketsMax = 16384;  // block-local counters while L fits shared memory
  static constexpr int kPassThreads = 512;       // count / scatter blocks
  static constexpr int kPassItems = 16;          // keys per thread per tile in those
  static constexpr int kOneBlock = 1024;         // single-block kernels (refine, offsets)
  // Step 6, the two-level reposition (bucketing.cuh), which beat one scatter into L buckets at 16M:
  // at most kCoarse destinations a pass, tiles of kScatterTile pairs.
  static constexpr int kCoarse = 128;
  static constexpr int kScatterThreads = 512;
  static constexpr int kScatterItems = 8;
  static constexpr int kScatterTile = kScatterThreads * kScatterItems;
  // hybrid-coherent: the last frame's pivots are kept while at most L/64 buckets (and at
  // least 2) exceed kCap and none exceeds 4 kCap; beyond that the frame is a cut and is bucketed from
  // scratch. Oversized buckets stay exact either way (the global merge); the limits bound its cost.
  static constexpr unsigned kCoherentOversizedShare = 64;
  static constexpr unsigned kCoherentMaxBucket = 4 * kCap;
};

}  // namespace depthsort::hybrid
