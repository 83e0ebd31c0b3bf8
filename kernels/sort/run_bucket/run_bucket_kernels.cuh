// run-bucket's kernels (docs/algorithms/run-bucket.md; depthsort's own design): a sample sort
// for depth streams whose input order already follows the key order (a frame's keys listed in the
// last frame's order, a mesh's triangles in mesh order), so that a tile of consecutive input keys
// falls into a few consecutive buckets and leaves as a few long runs.
//
// Keys are handled as ordered keys (keys.hpp); which bucket a key belongs to is said in
// splitter_search.cuh.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cuda/functional>
#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/keys.hpp"
#include "sort/primitives/key_range.hpp"
#include "sort/primitives/pinned_mailbox.hpp"
#include "sort/primitives/warp_block.cuh"
#include "sort/run_bucket/sample_position.hpp"
#include "sort/run_bucket/splitter_search.cuh"

namespace depthsort::run_bucket {

// The scatter's tile: kTileThreads * kTileItems consecutive input pairs per step of a block.
inline constexpr int kTileThreads = 256;
inline constexpr int kTileItems = 8;
inline constexpr std::uint32_t kTile = kTileThreads * kTileItems;
static_assert(kTileItems % 4 == 0, "the scatter moves a thread's pairs 16 bytes at a time");
// The room every bucket has (three times the target size), and the two block shapes of the
// bucket sort: most buckets fit the small one, which leaves room for more blocks per
// multiprocessor; the large one holds a full bucket and sorts the few listed for it.
inline constexpr std::uint32_t kBucketTarget = 2048;
inline constexpr std::uint32_t kBucketCapacity = 3 * kBucketTarget;
struct SortShape {
  int threads;
  int items;
  int min_blocks;  // per multiprocessor, for the register budget
  int radix_bits;  // of CUB's block radix sort
  constexpr std::uint32_t capacity() const { return static_cast<std::uint32_t>(threads * items); }
};
inline constexpr SortShape kSmallSort{256, 12, 3, 5};
inline constexpr SortShape kLargeSort{512, 12, 1, 5};
static_assert(kLargeSort.capacity() == kBucketCapacity && kSmallSort.capacity() < kBucketCapacity);
// Samples per bucket: with 16, a bucket's size has a spread of about a quarter of its mean, and
// three times the mean is beyond any of 8192 buckets.
inline constexpr std::uint32_t kSamplesPerBucket = 16;
// At most this many buckets: the splitter search takes 13 steps (kSearchSteps).
inline constexpr std::uint32_t kMaxBuckets = 8192;
static_assert(kSplitterSlots >= kMaxBuckets - 1);
// Samples of one tile's worth of input (kTile / (kBucketTarget / kSamplesPerBucket)).
inline constexpr std::uint32_t kSamplesPerTile = kTile * kSamplesPerBucket / kBucketTarget;
static_assert(kSamplesPerTile == 16);

// Four scatter blocks fit a multiprocessor's shared memory, and the register budget matches (64,
// no spills). Three took as long: the scatter is bound by instruction issue and its barriers
// (docs/results/run-bucket.md).
inline constexpr int kScatterBlocksPerMultiprocessor = 4;

// The scatter counts the pairs of a tile whose buckets lie within this many around the bucket of
// the tile's middle pair in shared memory and writes them in runs. Tiles of frames that take the
// bucket path span about 10-150 buckets (camera steps, the orbit, a fly-through, the mesh at 4M
// pairs: docs/algorithms/run-bucket.md); the window's scan grows with it.
inline constexpr std::uint32_t kWindow = 512;

// What the plan and the scatter leave for the host (zeroed for the next sort by finish_attempt, or
// by the plan's last block where it calls the attempt off).
struct Plan {
  std::uint32_t outside_samples;     // samples outside their tile's window (plan_kernel)
  std::uint32_t spread_sum;          // the buckets each tile's samples span, summed over tiles (plan_kernel)
  std::uint32_t shared_buckets;      // ordered pairs of samples of one tile in one bucket, over tiles (plan_kernel)
  std::uint32_t hot_buckets;         // buckets with more samples than their room holds (plan_kernel)
  std::uint32_t excess_samples;      // the samples beyond that room, summed over those buckets (plan_kernel)
  std::uint32_t plan_blocks_done;    // plan_kernel's blocks that have counted
  std::uint32_t verdict;             // plan_kernel's last block: Verdict
  std::uint32_t spilled_pairs;       // pairs beyond their bucket's room, in the spill area (scatter_kernel)
  std::uint32_t overflow;            // the spill area or the list of overflowed buckets ran out: the fallback
  std::uint32_t overflowed_buckets;  // buckets beyond their room (bucket_starts_kernel)
  std::uint32_t large_buckets;       // buckets too large for the small sort shape (bucket_starts_kernel)
  std::uint32_t wide_buckets;        // buckets the small shape sorts by radix (bucket_starts_kernel)
  primitives::KeyRange sample_range;  // the plan's sample's smallest and largest ordered key (plan_kernel)
  std::uint32_t sort_blocks_done;    // blocks of the attempt's last kernel that are done (finish_attempt)
};

// A bucket that receives more than kBucketCapacity pairs keeps that many in its region; the rest
// go to the spill area, and the bucket is sorted after the others with every other overflowed
// bucket (overflow.cuh). At most this many buckets overflow, and the spill area holds n/64 pairs:
// beyond either, the fallback (the plan judges the same from its sample).
inline constexpr std::uint32_t kMostOverflowedBuckets = 16;

// The plan's decision, taken on the device and posted to the host by the plan's last block. The
// scatter is queued before the host has it and returns at once unless it is kBucketPath; the host
// queues the rest of the bucket path, or the fallback, once it has the verdict, which it gets while
// the scatter runs.
enum Verdict : std::uint32_t {
  kBucketPath = 0,
  kIncoherent = 1,  // too many pairs far from their tile's window: the library sort
  kUnfit = 2,       // the last sort's splitters leave too many buckets, or pairs, beyond their room: the library sort
};

// Buckets whose keys span fewer values than this are sorted by counting (one pass).
inline constexpr std::uint32_t kCountingSlots = 4096;

// Whether bucket b's keys, by its splitters alone, span fewer than kCountingSlots values: a bucket
// between two splitters holds keys in [s[b-1], s[b]), or only s[b-1] between equal splitters
// (splitter_search.cuh). The first and the last bucket are open-ended.
__device__ __forceinline__ bool counting_sorts(const std::uint32_t* s, std::uint32_t count, std::uint32_t b) {
  return b > 0 && b < count && s[b] - s[b - 1] <= kCountingSlots;
}

// The sample: m ordered keys at sample_position (sample_position.hpp).
__global__ void gather_sample_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t m,
                                     std::uint32_t* __restrict__ sample) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) sample[j] = ordered_key(keys[sample_position(j, n, m)]);
}

// splitter[i] = the sorted sample's (i+1)*kSamplesPerBucket-th key, i < buckets - 1; the rest of
// the kSplitterSlots padded with 0xFFFFFFFF.
__global__ void pick_splitters_kernel(const std::uint32_t* __restrict__ sorted_sample, std::uint32_t buckets,
                                      std::uint32_t* __restrict__ splitters) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kSplitterSlots) splitters[i] = i + 1 < buckets ? sorted_sample[(i + 1) * kSamplesPerBucket] : 0xFFFFFFFFu;
}

// The scatter's verdict on an input, from its sample (or the probe's): whether the tiles leave long
// enough runs. Either few samples lie outside their tile's window (max_outside_permille of them:
// the pairs the scatter writes one by one), or, where max_runs allows it, a tile's pairs fall into
// at most max_runs buckets on average and at most kMostOutsideInFewRuns per 1000 samples lie
// outside. The buckets a tile's pairs fall into are estimated from how often two of its samples
// share one: each of the 240 ordered pairs of a tile's 16 samples does so with a chance of 1/D for
// pairs spread evenly over D buckets, more where they crowd into a few (a mesh's tile, whose rings
// lie at the same depths, against a camera step's, whose keys are spread by the motion).
inline constexpr std::uint64_t kMostOutsideInFewRuns = 400;
DEPTHSORT_HD bool few_runs(std::uint64_t outside, std::uint64_t shared_buckets, std::uint64_t samples,
                           std::uint32_t max_outside_permille, std::uint32_t max_runs) {
  if (outside * 1000 <= max_outside_permille * samples) return true;
  const std::uint64_t sample_pairs = samples / kSamplesPerTile * kSamplesPerTile * (kSamplesPerTile - 1);
  return max_runs != 0 && outside * 1000 <= kMostOutsideInFewRuns * samples &&
         shared_buckets * max_runs >= sample_pairs;
}

// Judges this warp's samples, in groups of kSamplesPerTile lanes (one tile of input each): adds
// to *outside the samples whose bucket lies outside kWindow around the bucket of their group's
// middle sample (the pairs the scatter writes one by one instead of in runs), and to *spread_sum
// the buckets each group spans, its largest bucket less its smallest (the scatter's cost grows with
// the runs a tile leaves: about as many as the buckets it spans), and to *shared_buckets the
// ordered pairs of the group's samples that share a bucket (few_runs reads it). Every lane of the
// warp calls it; a group is valid or not as a whole.
__device__ __forceinline__ void judge_tile_samples(std::uint32_t bucket, bool valid, std::uint32_t* outside,
                                                   std::uint32_t* spread_sum, std::uint32_t* shared_buckets) {
  static_assert(32 % kSamplesPerTile == 0 && kSamplesPerTile < 32);
  const unsigned group_lanes = ((1u << kSamplesPerTile) - 1) << (threadIdx.x & 31 & ~(kSamplesPerTile - 1));
  const unsigned same_bucket = __match_any_sync(0xFFFFFFFFu, valid ? bucket : 0xFFFFFFFFu) & group_lanes;
  const std::uint32_t shared_in_warp = __reduce_add_sync(0xFFFFFFFFu, valid ? __popc(same_bucket) - 1 : 0u);
  const std::uint32_t middle = __shfl_sync(0xFFFFFFFFu, bucket, kSamplesPerTile / 2, kSamplesPerTile);
  const std::uint32_t low = middle > kWindow / 2 ? middle - kWindow / 2 : 0u;
  const unsigned outside_in_warp = __popc(__ballot_sync(0xFFFFFFFFu, valid && bucket - low >= kWindow));
  std::uint32_t lowest = bucket, highest = bucket;
#pragma unroll
  for (int lanes = kSamplesPerTile / 2; lanes > 0; lanes /= 2) {
    lowest = min(lowest, __shfl_xor_sync(0xFFFFFFFFu, lowest, lanes, kSamplesPerTile));
    highest = max(highest, __shfl_xor_sync(0xFFFFFFFFu, highest, lanes, kSamplesPerTile));
  }
  const bool group_lead = threadIdx.x % kSamplesPerTile == 0;
  const std::uint32_t spread_in_warp = __reduce_add_sync(0xFFFFFFFFu, valid && group_lead ? highest - lowest : 0u);
  if ((threadIdx.x & 31) == 0) {
    if (outside_in_warp != 0) atomicAdd(outside, outside_in_warp);
    if (spread_in_warp != 0) atomicAdd(spread_sum, spread_in_warp);
    if (shared_in_warp != 0) atomicAdd(shared_buckets, shared_in_warp);
  }
}

// The plan, one thread a sample (the keys at sample_position, m of them): how coherent the input
// order is (the samples whose bucket lies outside kWindow around the bucket of the middle sample
// of their group of kSamplesPerTile, one tile of input: the pairs the scatter writes one by one
// instead of in runs) and how even the buckets are (splitters from the last frame may no longer
// fit this one). The last block to finish takes the verdict and posts the plan to `judged`, where
// the host watches for it; where the verdict calls the attempt off, that block also ends it.
// Incoherence comes first: it holds with any splitters (too few buckets make the window look wide,
// not narrow), and the library sort is the answer to it either way.
//
// The blocks after the first plan_blocks(m) build the scatter's splitter table (splitter_search.cuh)
// meanwhile, one thread an entry: like the plan's searches it waits on dependent loads, and beside
// them it costs nearly nothing, where as a kernel of its own between the plan and the scatter it
// took about 6 microseconds of every attempt.
DEPTHSORT_HD std::uint32_t plan_blocks(std::uint32_t m) { return (m + 255) / 256; }
inline constexpr std::uint32_t kTableBlocks = (kTableSlots + 1 + 255) / 256;
__global__ void __launch_bounds__(256) plan_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t m,
                                                   const std::uint32_t* __restrict__ splitters, std::uint32_t buckets,
                                                   std::uint32_t* __restrict__ sample_counts, Plan* plan,
                                                   std::uint32_t max_outside_permille, std::uint32_t max_runs,
                                                   std::uint32_t most_in_a_bucket,
                                                   std::uint32_t most_excess_samples,
                                                   std::uint32_t* __restrict__ splitter_table,
                                                   primitives::Posted<Plan>* judged, std::uint32_t sequence) {
  const std::uint32_t sample_blocks = plan_blocks(m);
  if (blockIdx.x >= sample_blocks) {
    const std::uint32_t entry = (blockIdx.x - sample_blocks) * blockDim.x + threadIdx.x;
    if (entry <= kTableSlots) fill_splitter_table_entry(splitters, buckets - 1, entry, splitter_table);
    return;
  }
  // What the block's samples add to the plan, gathered in shared memory and added to it once (one
  // global atomic a warp on the same few words queues them behind each other).
  __shared__ std::uint32_t outside, spread, shared_buckets, excess, hot;
  __shared__ primitives::KeyRange range;
  if (threadIdx.x == 0) {
    outside = spread = shared_buckets = excess = hot = 0;
    range = {};
  }
  __syncthreads();
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = j < m;
  const std::uint32_t key = valid ? ordered_key(keys[sample_position(j, n, m)]) : 0u;
  // The scatter's bucket (with its spread of a repeated splitter value by tile) for the balance.
  const std::uint32_t b = valid ? bucket_of(splitters, buckets - 1, key, j / kSamplesPerTile) : 0u;
  judge_tile_samples(b, valid, &outside, &spread, &shared_buckets);
  // The sample's key range: where the plan calls the bucket path off and the sample's keys alone
  // are too wide for the span sort, the fallback skips the key span.
  const std::uint32_t lo_complement = __reduce_max_sync(0xFFFFFFFFu, valid ? ~key : 0u);
  const std::uint32_t hi = __reduce_max_sync(0xFFFFFFFFu, valid ? key : 0u);
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&range.lo_complement, lo_complement);
    atomicMax(&range.hi, hi);
  }
  // One atomic per warp and bucket (a heavy key value sends every sample to one bucket).
  const unsigned peers = __match_any_sync(0xFFFFFFFFu, valid ? b : 0xFFFFFFFFu);
  if (valid && static_cast<int>(threadIdx.x & 31) == __ffs(peers) - 1) {
    const std::uint32_t before = atomicAdd(&sample_counts[b], __popc(peers)), after = before + __popc(peers);
    if (after > most_in_a_bucket) {
      atomicAdd(&excess, after - max(before, most_in_a_bucket));
      if (before <= most_in_a_bucket) atomicAdd(&hot, 1u);
    }
  }
  __syncthreads();
  __shared__ bool called_off;
  if (threadIdx.x == 0) {
    called_off = false;
    if (outside != 0) atomicAdd(&plan->outside_samples, outside);
    if (spread != 0) atomicAdd(&plan->spread_sum, spread);
    if (shared_buckets != 0) atomicAdd(&plan->shared_buckets, shared_buckets);
    if (excess != 0) atomicAdd(&plan->excess_samples, excess);
    if (hot != 0) atomicAdd(&plan->hot_buckets, hot);
    atomicMax(&plan->sample_range.lo_complement, range.lo_complement);
    atomicMax(&plan->sample_range.hi, range.hi);
    __threadfence();
    if (atomicAdd(&plan->plan_blocks_done, 1u) == sample_blocks - 1) {
      __threadfence();
      // What every block added, read past the cache (atomics), and the verdict on it.
      Plan outcome{};
      outcome.outside_samples = atomicAdd(&plan->outside_samples, 0u);
      outcome.spread_sum = atomicAdd(&plan->spread_sum, 0u);
      outcome.shared_buckets = atomicAdd(&plan->shared_buckets, 0u);
      outcome.hot_buckets = atomicAdd(&plan->hot_buckets, 0u);
      outcome.excess_samples = atomicAdd(&plan->excess_samples, 0u);
      outcome.sample_range = {atomicAdd(&plan->sample_range.lo_complement, 0u), atomicAdd(&plan->sample_range.hi, 0u)};
      const bool unfit = outcome.hot_buckets > kMostOverflowedBuckets || outcome.excess_samples > most_excess_samples;
      const bool coherent =
          few_runs(outcome.outside_samples, outcome.shared_buckets, m, max_outside_permille, max_runs);
      outcome.verdict = !coherent ? kIncoherent : unfit ? kUnfit : kBucketPath;
      plan->verdict = outcome.verdict;
      primitives::post_to_host(judged, outcome, sequence);
      called_off = outcome.verdict != kBucketPath;
    }
  }
  __syncthreads();
  if (called_off) {
    // The attempt ends here: the scatter returns at once, and no kernel after it is queued. What
    // the plan counted in is zeroed for the next attempt; the verdict stays for the scatter to read
    // (the next plan sets it before its scatter runs).
    for (std::uint32_t bucket = threadIdx.x; bucket < buckets; bucket += blockDim.x) sample_counts[bucket] = 0;
    if (threadIdx.x == 0) {
      Plan cleared{};
      cleared.verdict = plan->verdict;
      *plan = cleared;
    }
  }
}

// While the sorter falls back: whether the input would have taken the bucket path, judged as
// plan_kernel judges it but on kProbeTiles tiles spread over the input (kSamplesPerTile
// samples each, at the places the full sample takes), in one launch of a few microseconds and
// with no read-back in the sort. The last block to finish writes the count of samples outside
// their tile's window, the sum of the tiles' spreads and the pairs of samples that share a bucket
// to verdict[0], [1] and [2] (page-locked host memory, read once an event after the launch has
// completed) and zeroes counters ([0] samples outside, [1] blocks done, [2] spreads, [3] shared
// buckets) for the next.
inline constexpr std::uint32_t kProbeTiles = 512;
// The tiles the probe looks at for n pairs (fewer than kProbeTiles where the input has fewer).
DEPTHSORT_HD std::uint32_t probed_tiles(std::uint32_t n) {
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  return tiles < kProbeTiles ? tiles : kProbeTiles;
}
__global__ void __launch_bounds__(256) probe_kernel(const float* __restrict__ keys, std::uint32_t n,
                                                    const std::uint32_t* __restrict__ splitters,
                                                    std::uint32_t buckets, std::uint32_t* counters,
                                                    std::uint32_t* verdict) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  const std::uint32_t probed = probed_tiles(n);
  const std::uint32_t group = j / kSamplesPerTile;
  const bool valid = group < probed;
  const std::uint32_t tile = valid ? static_cast<std::uint32_t>(std::uint64_t{group} * tiles / probed) : 0u;
  const std::uint32_t sample = tile * kSamplesPerTile + j % kSamplesPerTile;
  const std::uint32_t b =
      valid ? bucket_of(splitters, buckets - 1, ordered_key(keys[sample_position(sample, n, tiles * kSamplesPerTile)]),
                        tile)
            : 0u;
  judge_tile_samples(b, valid, &counters[0], &counters[2], &counters[3]);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&counters[1], 1u) == gridDim.x - 1) {
      verdict[0] = atomicExch(&counters[0], 0u);
      verdict[1] = atomicExch(&counters[2], 0u);
      verdict[2] = atomicExch(&counters[3], 0u);
      counters[1] = 0;
    }
  }
}

// What the next sort takes from this one's sorted output: its keys at equal ranks as splitters,
// and its first and last ordered keys, the keys' range, written where the host reads them without
// a wait (page-locked memory). Where there are buckets enough, kOuterBuckets at each end lie beyond
// this output's range, as wide as the output's end buckets: a camera flying forward or back moves
// every key the same way, and the keys that leave the range would fill one open-ended end bucket
// (up to 30 times its share on the benchmark's fly-through), which the bucket path must then sort
// after the others.
inline constexpr std::uint32_t kOuterBuckets = 32;
inline constexpr std::uint32_t kEndWidthBuckets = 8;  // the end buckets whose mean width the outer ones take
__global__ void keep_from_output_kernel(const float* __restrict__ keys_out, std::uint64_t n, std::uint32_t buckets,
                                        std::uint32_t* __restrict__ splitters, std::uint32_t* ends) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    ends[0] = ordered_key(keys_out[0]);
    ends[1] = ordered_key(keys_out[n - 1]);
  }
  if (i >= kSplitterSlots) return;
  if (i + 1 >= buckets) {
    splitters[i] = 0xFFFFFFFFu;
    return;
  }
  const std::uint32_t outer = buckets >= 8 * kOuterBuckets ? kOuterBuckets : 0u;
  const std::uint32_t inner = buckets - 2 * outer;  // buckets within the range: inner - 1 splitters
  const auto inner_splitter = [&](std::uint32_t k) { return ordered_key(keys_out[(k + 1) * n / inner]); };
  if (i < outer) {
    const std::uint32_t first = inner_splitter(0);
    const std::uint32_t width = (inner_splitter(kEndWidthBuckets) - first) / kEndWidthBuckets;
    const std::uint64_t below = std::uint64_t{outer - i} * width;
    splitters[i] = first > below ? static_cast<std::uint32_t>(first - below) : 0u;
  } else if (i < outer + inner - 1) {
    splitters[i] = inner_splitter(i - outer);
  } else {
    const std::uint32_t last = inner_splitter(inner - 2);
    const std::uint32_t width = (last - inner_splitter(inner - 2 - kEndWidthBuckets)) / kEndWidthBuckets;
    const std::uint64_t above = std::uint64_t{i - (outer + inner - 2)} * width;
    splitters[i] = 0xFFFFFFFFull - last > above ? static_cast<std::uint32_t>(last + above) : 0xFFFFFFFFu;
  }
}

// The buckets' places in the output, an exclusive sum of their counts (count + 1 entries, the
// last the total), in one block; and three lists: the buckets beyond their room (sorted with the
// spill area), the buckets too large for the small sort shape (for the large one), and those of
// the small one that its counting sort cannot take (by radix).
inline constexpr int kStartsThreads = 1024;
inline constexpr int kStartsItems = (kMaxBuckets + 1 + kStartsThreads - 1) / kStartsThreads;
__global__ void __launch_bounds__(kStartsThreads) bucket_starts_kernel(const std::uint32_t* __restrict__ counts,
                                                                       std::uint32_t buckets,
                                                                       std::uint32_t small_capacity,
                                                                       const std::uint32_t* __restrict__ splitters,
                                                                       std::uint32_t* __restrict__ starts,
                                                                       std::uint32_t* __restrict__ large_list,
                                                                       std::uint32_t* __restrict__ wide_list,
                                                                       std::uint32_t* __restrict__ overflowed_list,
                                                                       Plan* plan) {
  using Scan = cub::BlockScan<std::uint32_t, kStartsThreads>;
  __shared__ typename Scan::TempStorage scan;
  std::uint32_t count[kStartsItems], start[kStartsItems];
#pragma unroll
  for (int k = 0; k < kStartsItems; ++k) {
    const std::uint32_t b = threadIdx.x * kStartsItems + k;
    count[k] = b <= buckets ? counts[b] : 0u;
  }
  Scan(scan).ExclusiveSum(count, start);
#pragma unroll
  for (int k = 0; k < kStartsItems; ++k) {
    const std::uint32_t b = threadIdx.x * kStartsItems + k;
    if (b <= buckets) starts[b] = start[k];
    if (b >= buckets || count[k] == 0) continue;
    if (count[k] > kBucketCapacity) {
      const std::uint32_t at = atomicAdd(&plan->overflowed_buckets, 1u);
      if (at < kMostOverflowedBuckets)
        overflowed_list[at] = b;
      else
        atomicOr(&plan->overflow, 1u);
    } else if (count[k] > small_capacity)
      large_list[atomicAdd(&plan->large_buckets, 1u)] = b;
    else if (!counting_sorts(splitters, buckets - 1, b))
      wide_list[atomicAdd(&plan->wide_buckets, 1u)] = b;
  }
}

// Bucket regions index below 2^32 (kMaxBuckets * kBucketCapacity).
static_assert(std::uint64_t{kMaxBuckets} * kBucketCapacity <= 0xFFFFFFFFull);

// primitives::warp_aggregated_add (one atomic per group of lanes with equal buckets, each lane's
// place returned) with a shortcut for a warp whose keys all fall into one bucket: one atomic and
// no match.
__device__ __forceinline__ std::uint32_t add_by_group(std::uint32_t* counters, std::uint32_t bucket, bool valid) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t first_lane_bucket = __shfl_sync(0xFFFFFFFFu, bucket, 0);  // every lane, before any branch
  if (__all_sync(0xFFFFFFFFu, valid && bucket == first_lane_bucket)) {
    std::uint32_t base = 0;
    if (lane == 0) base = atomicAdd(&counters[bucket], 32u);
    return __shfl_sync(0xFFFFFFFFu, base, 0) + lane;
  }
  return primitives::warp_aggregated_add(counters, bucket, valid, true);
}

// Where the pairs beyond their bucket's room go.
struct SpillArea {
  std::uint32_t* keys;
  std::uint32_t* values;
  std::uint32_t capacity;
};

// Puts this lane's pair in the spill area if `spill` (one atomic a warp); where the area is full,
// sets `full` instead. Every lane of the warp calls it.
__device__ __forceinline__ void spill_pair(bool spill, std::uint32_t key, std::uint32_t value, SpillArea area,
                                           Plan* plan, bool& full) {
  const unsigned spilling = __ballot_sync(0xFFFFFFFFu, spill);
  if (spilling == 0) return;
  const unsigned lane = threadIdx.x & 31;
  const int leader = __ffs(spilling) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(&plan->spilled_pairs, __popc(spilling));
  base = __shfl_sync(0xFFFFFFFFu, base, leader);
  if (!spill) return;
  const std::uint32_t at = base + __popc(spilling & ((1u << lane) - 1u));
  if (at < area.capacity) {
    area.keys[at] = key;
    area.values[at] = value;
  } else {
    full = true;
  }
}

// The scatter. Each block loops over tiles of kTile consecutive pairs, each thread over
// kTileItems consecutive pairs of a tile: every key's bucket by the splitter table and a short
// search (through the read-only cache). The pairs whose buckets lie within kWindow around the
// bucket of the tile's middle pair are counted per bucket in shared memory (one atomic per run of
// a thread's pairs in one bucket: on input in nearly key order one or two a thread; one a warp
// where the warp's pairs share a bucket), room is reserved at each bucket's front with one global
// atomic per bucket and tile, the pairs are staged in shared memory grouped by bucket and written
// from there: consecutive threads write consecutive places of a bucket's run. Ranked by a match
// or ballots per pair instead, a third more instructions (docs/results/run-bucket.md). The pairs
// outside the window (a few keys that moved far since the last frame) reserve their places per
// warp and bucket in global memory and are written directly. The order of equal keys is not kept.
// Buckets are regions of kBucketCapacity pairs; a pair beyond its bucket's room goes to the spill
// area, and where that is full sets plan->overflow (the host then sorts with the fallback).
__global__ void __launch_bounds__(kTileThreads, kScatterBlocksPerMultiprocessor) scatter_kernel(
    const float* __restrict__ keys, const std::uint32_t* __restrict__ values, std::uint32_t n,
    const std::uint32_t* __restrict__ splitters, const std::uint32_t* __restrict__ table, std::uint32_t buckets,
    std::uint32_t* __restrict__ cursors, std::uint32_t* __restrict__ bucketed_keys,
    std::uint32_t* __restrict__ bucketed_values, SpillArea spill, Plan* plan) {
  if (plan->verdict != kBucketPath) return;
  const std::uint32_t table_first = table[kTableSlots + 1], table_shift = table[kTableSlots + 2];
  constexpr int kWindowItems = kWindow / kTileThreads;
  using Scan = cub::BlockScan<std::uint32_t, kTileThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ std::uint32_t counters[kWindow];  // pairs per bucket, then their place at its front
  __shared__ std::uint32_t firsts[kWindow];    // a bucket's first place in the staged tile
  // The staged pairs at place p are at staged(p): a thread stages its pairs 8 places apart, a
  // warp writes them out at consecutive places, and neither meets a bank twice.
  const auto staged = [](std::uint32_t p) { return p + (p >> 5); };
  constexpr std::uint32_t kStaged = kTile + kTile / 32;
  __shared__ std::uint32_t staged_keys[kStaged], staged_values[kStaged];
  __shared__ std::uint32_t staged_buckets[kStaged];  // relative to the window's first
  __shared__ __align__(16) std::uint32_t tile_values[kTile];  // the tile's values as they come
  __shared__ std::uint32_t window_low, in_window_total;
  const std::uint32_t count = buckets - 1;
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  // A thread takes kTileItems consecutive pairs of a tile: loaded 16 bytes at a time where the
  // arrays allow, and, on input in nearly key order, falling into one or a few buckets each.
  const bool aligned =
      ((reinterpret_cast<std::uintptr_t>(keys) | reinterpret_cast<std::uintptr_t>(values)) & 15) == 0;
  const std::uint32_t mine = threadIdx.x * kTileItems;  // this thread's first pair in a tile
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::uint32_t base = tile * kTile;
    const std::uint32_t size = min(kTile, n - base);
    const bool whole = aligned && mine + kTileItems <= size;
    // The values go to shared memory while the keys are searched and ranked; each thread copies
    // the ones it stages later, so its own wait is enough.
    if (whole) {
#pragma unroll
      for (int j = 0; j < kTileItems; j += 4)
        __pipeline_memcpy_async(&tile_values[mine + j], &values[base + mine + j], 4 * sizeof(std::uint32_t));
    } else {
#pragma unroll
      for (int j = 0; j < kTileItems; ++j)
        if (mine + j < size)
          __pipeline_memcpy_async(&tile_values[mine + j], &values[base + mine + j], sizeof(std::uint32_t));
    }
    __pipeline_commit();
    for (std::uint32_t i = threadIdx.x; i < kWindow; i += kTileThreads) counters[i] = 0;
    // All of a thread's key loads in flight at once, then their table entries, then their
    // searches side by side.
    std::uint32_t key[kTileItems], bucket[kTileItems];
    if (whole) {
#pragma unroll
      for (int j = 0; j < kTileItems; j += 4) {
        const float4 four = *reinterpret_cast<const float4*>(&keys[base + mine + j]);
        key[j] = ordered_key(four.x);
        key[j + 1] = ordered_key(four.y);
        key[j + 2] = ordered_key(four.z);
        key[j + 3] = ordered_key(four.w);
      }
    } else {
#pragma unroll
      for (int j = 0; j < kTileItems; ++j) key[j] = mine + j < size ? ordered_key(keys[base + mine + j]) : 0u;
    }
    buckets_by_table(splitters, count, table, table_first, table_shift, key, tile, bucket);
#pragma unroll
    for (int j = 0; j < kTileItems; ++j)
      if (mine + j == size / 2) window_low = bucket[j] > kWindow / 2 ? bucket[j] - kWindow / 2 : 0u;
    __syncthreads();
    const std::uint32_t low = window_low;
    bool overflow = false;
    // The pairs inside the window, ranked run by run: a run of a thread's consecutive pairs in one
    // bucket takes its places with one shared atomic (its length, found from the end backwards).
    bool inside[kTileItems];
    std::uint32_t run[kTileItems], rank[kTileItems];
#pragma unroll
    for (int j = 0; j < kTileItems; ++j) inside[j] = mine + j < size && bucket[j] - low < kWindow;
    run[kTileItems - 1] = 1;
#pragma unroll
    for (int j = kTileItems - 2; j >= 0; --j)
      run[j] = inside[j] && inside[j + 1] && bucket[j] == bucket[j + 1] ? run[j + 1] + 1 : 1;
    // A warp whose pairs all fall into one bucket (sorted keys, between two buckets' edges) takes
    // its places with one atomic: a run's atomic from every lane on one word would queue 32 deep.
    const std::uint32_t first_lane_bucket = __shfl_sync(0xFFFFFFFFu, bucket[0], 0);
    if (__all_sync(0xFFFFFFFFu, inside[0] && run[0] == kTileItems && bucket[0] == first_lane_bucket)) {
      std::uint32_t warp_base = 0;
      if ((threadIdx.x & 31) == 0) warp_base = atomicAdd(&counters[first_lane_bucket - low], 32u * kTileItems);
      warp_base = __shfl_sync(0xFFFFFFFFu, warp_base, 0) + (threadIdx.x & 31) * kTileItems;
#pragma unroll
      for (int j = 0; j < kTileItems; ++j) rank[j] = warp_base + j;
    } else {
#pragma unroll
      for (int j = 0; j < kTileItems; ++j) {
        if (!inside[j]) continue;
        if (j > 0 && inside[j - 1] && bucket[j - 1] == bucket[j])
          rank[j] = rank[j - 1] + 1;
        else
          rank[j] = atomicAdd(&counters[bucket[j] - low], run[j]);
      }
    }
    // The pairs outside it (a few keys that moved far since the last frame), one atomic per warp
    // and bucket in global memory, written directly.
#pragma unroll
    for (int j = 0; j < kTileItems; ++j) {
      const bool outside = mine + j < size && !inside[j];
      if (!__any_sync(0xFFFFFFFFu, outside)) continue;
      const std::uint32_t at = add_by_group(cursors, outside ? bucket[j] : 0u, outside);
      const std::uint32_t value = outside ? values[base + mine + j] : 0u;
      if (outside && at < kBucketCapacity) {
        const std::uint32_t to = bucket[j] * kBucketCapacity + at;
        bucketed_keys[to] = key[j];
        bucketed_values[to] = value;
      }
      spill_pair(outside && at >= kBucketCapacity, key[j], value, spill, plan, overflow);
    }
    __syncthreads();
    std::uint32_t tally[kWindowItems], first[kWindowItems], inside_total;
#pragma unroll
    for (int k = 0; k < kWindowItems; ++k) tally[k] = counters[threadIdx.x * kWindowItems + k];
    Scan(scan_storage).ExclusiveSum(tally, first, inside_total);
#pragma unroll
    for (int k = 0; k < kWindowItems; ++k) {
      const std::uint32_t b = threadIdx.x * kWindowItems + k;
      firsts[b] = first[k];
      if (tally[k] != 0) counters[b] = atomicAdd(&cursors[low + b], tally[k]);
    }
    if (threadIdx.x == 0) in_window_total = inside_total;
    __pipeline_wait_prior(0);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kTileItems; j += 4) {
      const uint4 four = *reinterpret_cast<const uint4*>(&tile_values[mine + j]);  // one access, not four 8 apart
      const std::uint32_t value[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (inside[j + k]) {
          const std::uint32_t p = staged(firsts[bucket[j + k] - low] + rank[j + k]);
          staged_keys[p] = key[j + k];
          staged_values[p] = value[k];
          staged_buckets[p] = bucket[j + k] - low;
        }
      }
    }
    __syncthreads();
    const std::uint32_t in_window = in_window_total;
#pragma unroll
    for (int j = 0; j < kTileItems; ++j) {
      const std::uint32_t p = j * kTileThreads + threadIdx.x;
      bool beyond = false;
      if (p < in_window) {
        const std::uint32_t b = staged_buckets[staged(p)];
        const std::uint32_t at = counters[b] + (p - firsts[b]);
        beyond = at >= kBucketCapacity;
        if (!beyond) {
          const std::uint32_t to = (low + b) * kBucketCapacity + at;
          bucketed_keys[to] = staged_keys[staged(p)];
          bucketed_values[to] = staged_values[staged(p)];
        }
      }
      if (__any_sync(0xFFFFFFFFu, beyond))  // p < kTile
        spill_pair(beyond, staged_keys[staged(p)], staged_values[staged(p)], spill, plan, overflow);
    }
    if (__syncthreads_or(overflow) && threadIdx.x == 0) atomicOr(&plan->overflow, 1u);
  }
}

// What the bucket path's end needs: where the next attempt counts (zeroed) and where the plan goes.
struct AttemptEnd {
  std::uint32_t* cursors = nullptr;  // the bucket counts, buckets + 1 of them
  std::uint32_t* sample_counts = nullptr;
  std::uint32_t buckets = 0;
  primitives::Posted<Plan>* posted = nullptr;
  std::uint32_t sequence = 0;
};

// The bucket path's end, by one block once every kernel of the attempt is done with the plan and
// the counts (the last block of the last kernel): posts the plan to the host and zeroes what the
// next attempt counts in (the bucket counts, the plan's samples per bucket, the plan itself), in
// place of three memsets and a copy with a synchronisation.
__device__ __forceinline__ void finish_attempt(Plan* plan, const AttemptEnd& end) {
  const Plan outcome = *plan;
  __syncthreads();  // every thread has read the plan
  for (std::uint32_t b = threadIdx.x; b <= end.buckets; b += blockDim.x) {
    end.cursors[b] = 0;
    if (b < end.buckets) end.sample_counts[b] = 0;
  }
  if (threadIdx.x == 0) {
    *plan = Plan{};
    primitives::post_to_host(end.posted, outcome, end.sequence);
  }
}

}  // namespace depthsort::run_bucket
