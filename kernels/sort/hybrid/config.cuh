// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): what
// every step of the hybrid sort shares (docs/algorithms/hybrid.md, "Steps"): the tuning constants
// and the small per-sort Control block the device steps hand each other (min/max of Section 5.1,
// the work list of the vector-mergesort of Sections 4 and 6).
#pragma once

#include <cstdint>

namespace depthsort::hybrid {

// ---------------------------------------------------------------------------------------------
// Tuning constants, in one place. Measured on an H200 (docs/results/hybrid.md): auto L =
// n/2816 was the fastest L at 4M and 16M; kCap 3328 (4 blocks/SM) with it beat kCap 4096 with
// n/3072 (0.954 vs 1.007 ms at 16M, count step included); the two-level reposition beat one scatter
// into L buckets (0.31 vs 0.63-0.91 ms at 16M).
// ---------------------------------------------------------------------------------------------
inline constexpr int kCap = 3328;              // pairs one block sorts on chip: 52 KB of smem, 4 blocks/SM
inline constexpr int kSortThreads = kCap / 16;  // each thread owns a 16-pair tile per merge pass
inline constexpr int kTargetBucket = 2816;     // auto L = n / 2816: 85% of kCap on average
inline constexpr int kMinBuckets = 64;
inline constexpr int kMaxAutoBuckets = 1 << 16;
// Sample splitter (deviation 12): sampled buckets vary more in size than Fig. 5's on smooth inputs
// (about 1/sqrt(oversample) relative), so the auto L aims lower, at 62% of kCap; at most the L whose
// pivots, table and counters fit the count's shared memory (2 L + H + 1 words <= 200 KB).
inline constexpr int kSampleTargetBucket = 2048;
inline constexpr int kSampleMaxBuckets = 24576;
inline constexpr int kSmemBucketsMax = 16384;  // block-local counters while L fits shared memory
inline constexpr int kPassThreads = 512;       // count / scatter blocks
inline constexpr int kPassItems = 16;          // keys per thread per tile in those
inline constexpr int kOneBlock = 1024;         // single-block kernels (refine, offsets)
// hybrid-coherent: the last frame's pivots are kept while at most L/64 buckets (and at
// least 2) exceed kCap and none exceeds 4 kCap; beyond that the frame is a cut and is bucketed from
// scratch. Oversized buckets stay exact either way (the global merge); the limits bound its cost.
inline constexpr unsigned kCoherentOversizedShare = 64;
inline constexpr unsigned kCoherentMaxBucket = 4 * kCap;

// Small per-sort state; zeroed by one memset each sort.
struct Control {
  std::uint32_t omin_c;  // complement of the smallest ordered key (atomicMax of complements)
  std::uint32_t omax;    // largest ordered key
  std::uint32_t num_items;
  std::uint32_t num_oversized;
  std::uint32_t max_passes;
  std::uint32_t fine_tiles;  // tiles of the fine scatter (two-level reposition)
};

}  // namespace depthsort::hybrid
