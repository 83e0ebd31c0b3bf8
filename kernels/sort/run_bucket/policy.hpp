// run-bucket (docs/algorithms/run-bucket.md; depthsort's own design): its tuning in one place, the
// tile and bucket shapes, the sample, the bucket sort's block shapes and the limits of the bucket
// path. What each value was measured against (on an H100 unless said) is in
// docs/results/run-bucket.md.
#pragma once

#include <cstddef>
#include <cstdint>

namespace depthsort::run_bucket {

// A block shape of the bucket sort.
struct SortShape {
  int threads;
  int items;
  int min_blocks;  // per multiprocessor, for the register budget
  int radix_bits;  // of CUB's block radix sort
  constexpr std::uint32_t capacity() const { return static_cast<std::uint32_t>(threads * items); }
};

struct Policy {
  // The scatter's tile: kTileThreads * kTileItems consecutive input pairs per step of a block.
  static constexpr int kTileThreads = 256;
  static constexpr int kTileItems = 8;
  static constexpr std::uint32_t kTile = kTileThreads * kTileItems;
  // The room every bucket has (three times the target size), and the two block shapes of the
  // bucket sort: most buckets fit the small one, which leaves room for more blocks per
  // multiprocessor; the large one holds a full bucket and sorts the few listed for it.
  static constexpr std::uint32_t kBucketTarget = 2048;
  static constexpr std::uint32_t kBucketCapacity = 3 * kBucketTarget;
  static constexpr SortShape kSmallSort{256, 12, 3, 5};
  static constexpr SortShape kLargeSort{512, 12, 1, 5};
  // Samples per bucket: with 16, a bucket's size has a spread of about a quarter of its mean, and
  // three times the mean is beyond any of 32768 buckets.
  static constexpr std::uint32_t kSamplesPerBucket = 16;
  // At most this many buckets (64M pairs): the splitter search takes at most 15 steps (kSearchSteps).
  static constexpr std::uint32_t kMaxBuckets = 32768;
  // Samples of one tile's worth of input (kTile / (kBucketTarget / kSamplesPerBucket)).
  static constexpr std::uint32_t kSamplesPerTile = kTile * kSamplesPerBucket / kBucketTarget;
  // Four scatter blocks fit a multiprocessor's shared memory, and the register budget matches (64,
  // no spills). Three took as long: the scatter is bound by instruction issue and its barriers.
  static constexpr int kScatterBlocksPerMultiprocessor = 4;
  // The scatter counts the pairs of a tile whose buckets lie within this many around the bucket of
  // the tile's middle pair in shared memory and writes them in runs. Tiles of frames that take the
  // bucket path span about 10-150 buckets (camera steps, the orbit, a fly-through, the mesh at 4M
  // pairs: docs/algorithms/run-bucket.md); the window's scan grows with it.
  static constexpr std::uint32_t kWindow = 512;
  // At most this many buckets overflow their room, and the spill area holds n / kSpillShare pairs
  // (at least one bucket's room): beyond either, the fallback. Sorting more spilled pairs after the
  // other buckets cost more than the fallback saves (the cuts path's shots spilled up to a million
  // pairs at 15M).
  static constexpr std::uint32_t kMostOverflowedBuckets = 16;
  static constexpr std::size_t kSpillShare = 64;
  // Buckets whose keys span fewer values than this are sorted by counting (one pass).
  static constexpr std::uint32_t kCountingSlots = 4096;
  // few_runs (plan.cuh): where max_runs allows it, at most this many per 1000 samples may lie
  // outside their tile's window.
  static constexpr std::uint64_t kMostOutsideInFewRuns = 400;
  // The probe (plan.cuh) judges the input on this many tiles spread over it.
  static constexpr std::uint32_t kProbeTiles = 512;
  // Splitters kept from an output (plan.cuh): where there are buckets enough, kOuterBuckets at each
  // end lie beyond the output's range, as wide as the mean of its kEndWidthBuckets end buckets.
  static constexpr std::uint32_t kOuterBuckets = 32;
  static constexpr std::uint32_t kEndWidthBuckets = 8;
  // Above this many samples in one bucket (three times the expected 16, the room a bucket has),
  // the last sort's splitters are not used.
  static constexpr std::uint32_t kMostSamplesInABucket = 3 * kSamplesPerBucket;
  // This many fallbacks in a row each have a probe beside them (the frames after a cut find the
  // bucket path again at once); after them, every probe_every-th.
  static constexpr std::uint32_t kFallbacksProbedEachTime = 8;
  // The most buckets one block of the small-bucket kernel keeps the starts of (its grid is at least
  // (buckets + 1) / this): 64 where a grid of one block per 64 buckets fits the GPU at once (up to
  // about 25000 buckets on an H100, three blocks on each of 132 multiprocessors), else 128, which
  // keeps the grid to one wave up to 32768 buckets. One instantiation each: 128 at every size made
  // the bucket sort at 15M pairs slower on an H100.
  static constexpr std::uint32_t kFewBucketsPerSmallSortBlock = 64;
  static constexpr std::uint32_t kManyBucketsPerSmallSortBlock = 128;
};

}  // namespace depthsort::run_bucket
