// run-bucket's sample, plan, probe and kept splitters (docs/algorithms/run-bucket.md, steps
// `sample` and `plan`, and the probe beside a fallback; depthsort's own design): where the
// splitters come from, and the verdict on whether this input takes the bucket path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/key_range.hpp"
#include "sort/primitives/pinned_mailbox.hpp"
#include "sort/primitives/warp_block.cuh"
#include "sort/run_bucket/run_bucket_kernels.cuh"
#include "sort/run_bucket/sample_position.hpp"
#include "sort/run_bucket/splitter_search.cuh"

namespace depthsort::run_bucket {

// The sample: m ordered keys at sample_position (sample_position.hpp).
__global__ void gather_sample_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t m,
                                     std::uint32_t* __restrict__ sample) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) sample[j] = ordered_key(keys[sample_position(j, n, m)]);
}

// splitter[i] = the sorted sample's (i+1)*kSamplesPerBucket-th key, i < buckets - 1; the rest of
// the searched_slots(buckets - 1) padded with 0xFFFFFFFF.
__global__ void pick_splitters_kernel(const std::uint32_t* __restrict__ sorted_sample, std::uint32_t buckets,
                                      std::uint32_t* __restrict__ splitters) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < searched_slots(buckets - 1))
    splitters[i] = i + 1 < buckets ? sorted_sample[(i + 1) * Policy::kSamplesPerBucket] : 0xFFFFFFFFu;
}

// The scatter's verdict on an input, from its sample (or the probe's): whether the tiles leave long
// enough runs. Either few samples lie outside their tile's window (max_outside_permille of them:
// the pairs the scatter writes one by one), or, where max_runs allows it, a tile's pairs fall into
// at most max_runs buckets on average and at most kMostOutsideInFewRuns per 1000 samples lie
// outside. The buckets a tile's pairs fall into are estimated from how often two of its samples
// share one: each of the 240 ordered pairs of a tile's 16 samples does so with a chance of 1/D for
// pairs spread evenly over D buckets, more where they crowd into a few (a mesh's tile, whose rings
// lie at the same depths, against a camera step's, whose keys are spread by the motion).
DEPTHSORT_HD bool few_runs(std::uint64_t outside, std::uint64_t shared_buckets, std::uint64_t samples,
                           std::uint32_t max_outside_permille, std::uint32_t max_runs) {
  if (outside * 1000 <= max_outside_permille * samples) return true;
  const std::uint64_t sample_pairs =
      samples / Policy::kSamplesPerTile * Policy::kSamplesPerTile * (Policy::kSamplesPerTile - 1);
  return max_runs != 0 && outside * 1000 <= Policy::kMostOutsideInFewRuns * samples &&
         shared_buckets * max_runs >= sample_pairs;
}

// The warp's lanes whose (valid) sample falls into this lane's bucket: read by judge_tile_samples
// and by the plan's sample counts, one match for both.
__device__ __forceinline__ unsigned same_bucket_lanes(std::uint32_t bucket, bool valid) {
  return __match_any_sync(0xFFFFFFFFu, valid ? bucket : 0xFFFFFFFFu);
}

// Judges this warp's samples, in groups of kSamplesPerTile lanes (one tile of input each): adds
// to *outside the samples whose bucket lies outside kWindow around the bucket of their group's
// middle sample (the pairs the scatter writes one by one instead of in runs), and to *spread_sum
// the buckets each group spans, its largest bucket less its smallest (the scatter's cost grows with
// the runs a tile leaves: about as many as the buckets it spans), and to *shared_buckets the
// ordered pairs of the group's samples that share a bucket (few_runs reads it). `peers` are the
// warp's lanes with this lane's bucket (same_bucket_lanes). Every lane of the warp calls it; a
// group is valid or not as a whole.
__device__ __forceinline__ void judge_tile_samples(std::uint32_t bucket, bool valid, unsigned peers,
                                                   std::uint32_t* outside, std::uint32_t* spread_sum,
                                                   std::uint32_t* shared_buckets) {
  static_assert(32 % Policy::kSamplesPerTile == 0 && Policy::kSamplesPerTile < 32);
  const unsigned group_lanes = ((1u << Policy::kSamplesPerTile) - 1)
                               << (threadIdx.x & 31 & ~(Policy::kSamplesPerTile - 1));
  const unsigned same_bucket = peers & group_lanes;
  const std::uint32_t shared_in_warp = primitives::warp_reduce_add(0xFFFFFFFFu, valid ? __popc(same_bucket) - 1 : 0u);
  const std::uint32_t middle = __shfl_sync(0xFFFFFFFFu, bucket, Policy::kSamplesPerTile / 2, Policy::kSamplesPerTile);
  const std::uint32_t low = middle > Policy::kWindow / 2 ? middle - Policy::kWindow / 2 : 0u;
  const unsigned outside_in_warp = __popc(__ballot_sync(0xFFFFFFFFu, valid && bucket - low >= Policy::kWindow));
  std::uint32_t lowest = bucket, highest = bucket;
#pragma unroll
  for (int lanes = Policy::kSamplesPerTile / 2; lanes > 0; lanes /= 2) {
    lowest = min(lowest, __shfl_xor_sync(0xFFFFFFFFu, lowest, lanes, Policy::kSamplesPerTile));
    highest = max(highest, __shfl_xor_sync(0xFFFFFFFFu, highest, lanes, Policy::kSamplesPerTile));
  }
  const bool group_lead = threadIdx.x % Policy::kSamplesPerTile == 0;
  const std::uint32_t spread_in_warp =
      primitives::warp_reduce_add(0xFFFFFFFFu, valid && group_lead ? highest - lowest : 0u);
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
// added to every attempt (docs/results/run-bucket.md).
DEPTHSORT_HD std::uint32_t plan_blocks(std::uint32_t m) { return (m + 255) / 256; }
inline constexpr std::uint32_t kTableBlocks = (kTableSlots + 1 + 255) / 256;
__global__ void __launch_bounds__(256)
    plan_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t m,
                const std::uint32_t* __restrict__ splitters, std::uint32_t buckets,
                std::uint32_t* __restrict__ sample_counts, Plan* plan, std::uint32_t max_outside_permille,
                std::uint32_t max_runs, std::uint32_t most_in_a_bucket, std::uint32_t most_excess_samples,
                std::uint32_t* __restrict__ splitter_table, primitives::Posted<Plan>* judged, std::uint32_t sequence) {
  const std::uint32_t sample_blocks = plan_blocks(m);
  __shared__ std::uint32_t search_top[kTopSlots];
  if (blockIdx.x >= sample_blocks) {
    load_search_top(splitters, buckets - 1, search_top);
    __syncthreads();
    const std::uint32_t entry = (blockIdx.x - sample_blocks) * blockDim.x + threadIdx.x;
    if (entry <= kTableSlots) fill_splitter_table_entry(splitters, search_top, buckets - 1, entry, splitter_table);
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
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = j < m;
  const std::uint32_t key = valid ? ordered_key(keys[sample_position(j, n, m)]) : 0u;  // on its way meanwhile
  load_search_top(splitters, buckets - 1, search_top);
  __syncthreads();
  // The scatter's bucket (with its spread of a repeated splitter value by tile) for the balance.
  const std::uint32_t b = valid ? bucket_of(splitters, buckets - 1, key, j / Policy::kSamplesPerTile, search_top) : 0u;
  const unsigned peers = same_bucket_lanes(b, valid);
  judge_tile_samples(b, valid, peers, &outside, &spread, &shared_buckets);
  // The sample's key range: where the plan calls the bucket path off and the sample's keys alone
  // are too wide for the span sort, the fallback skips the key span.
  const std::uint32_t lo_complement = primitives::warp_reduce_max(0xFFFFFFFFu, valid ? ~key : 0u);
  const std::uint32_t hi = primitives::warp_reduce_max(0xFFFFFFFFu, valid ? key : 0u);
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&range.lo_complement, lo_complement);
    atomicMax(&range.hi, hi);
  }
  // One atomic per warp and bucket (a heavy key value sends every sample to one bucket).
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
      // What every block added, and the verdict on it.
      Plan outcome = load_plan(plan);
      const bool unfit =
          outcome.hot_buckets > Policy::kMostOverflowedBuckets || outcome.excess_samples > most_excess_samples;
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
// to the verdict (page-locked host memory, read once an event after the launch has completed) and
// zeroes its counters for the next.
// The probe's verdict, kProbeVerdictWords words, and its counters, kProbeCounterWords words.
enum ProbeVerdictWord : std::uint32_t { kProbedOutside, kProbedSpread, kProbedSharedBuckets, kProbeVerdictWords };
enum ProbeCounterWord : std::uint32_t {
  kOutsideCounter,
  kBlocksDoneCounter,
  kSpreadCounter,
  kSharedBucketsCounter,
  kProbeCounterWords
};
// The tiles the probe looks at for n pairs (fewer than kProbeTiles where the input has fewer).
DEPTHSORT_HD std::uint32_t probed_tiles(std::uint32_t n) {
  const std::uint32_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  return tiles < Policy::kProbeTiles ? tiles : Policy::kProbeTiles;
}
__global__ void __launch_bounds__(256)
    probe_kernel(const float* __restrict__ keys, std::uint32_t n, const std::uint32_t* __restrict__ splitters,
                 std::uint32_t buckets, std::uint32_t* counters, std::uint32_t* verdict) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::uint32_t probed = probed_tiles(n);
  const std::uint32_t group = j / Policy::kSamplesPerTile;
  const bool valid = group < probed;
  const std::uint32_t tile = valid ? static_cast<std::uint32_t>(std::uint64_t{group} * tiles / probed) : 0u;
  const std::uint32_t sample = tile * Policy::kSamplesPerTile + j % Policy::kSamplesPerTile;
  const std::uint32_t b =
      valid ? bucket_of(splitters, buckets - 1,
                        ordered_key(keys[sample_position(sample, n, tiles * Policy::kSamplesPerTile)]), tile)
            : 0u;
  judge_tile_samples(b, valid, same_bucket_lanes(b, valid), &counters[kOutsideCounter], &counters[kSpreadCounter],
                     &counters[kSharedBucketsCounter]);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&counters[kBlocksDoneCounter], 1u) == gridDim.x - 1) {
      verdict[kProbedOutside] = atomicExch(&counters[kOutsideCounter], 0u);
      verdict[kProbedSpread] = atomicExch(&counters[kSpreadCounter], 0u);
      verdict[kProbedSharedBuckets] = atomicExch(&counters[kSharedBucketsCounter], 0u);
      counters[kBlocksDoneCounter] = 0;
    }
  }
}

// What the next sort takes from this one's sorted output: its keys at equal ranks as splitters,
// and its first and last ordered keys, the keys' range, written where the host reads them without
// a wait (page-locked memory). Where there are buckets enough, kOuterBuckets at each end lie beyond
// this output's range, as wide as the output's end buckets: a camera flying forward or back moves
// every key the same way, and the keys that leave the range would fill one open-ended end bucket
// (up to 30 times its share on the benchmark's fly-through), which the bucket path must then sort
// after the others. After an attempt, the last kernel on the stream, it also zeroes what the next
// attempt counts in (clear_attempt): the bucket path's own kernels end without a kernel for it.
__global__ void keep_from_output_kernel(const float* __restrict__ keys_out, std::uint64_t n, std::uint32_t buckets,
                                        std::uint32_t* __restrict__ splitters, std::uint32_t* ends,
                                        AttemptToClear clear) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  clear_attempt(clear, i, gridDim.x * blockDim.x);
  if (i == 0) {
    ends[0] = ordered_key(keys_out[0]);
    ends[1] = ordered_key(keys_out[n - 1]);
  }
  if (i >= searched_slots(buckets - 1)) return;
  if (i + 1 >= buckets) {
    splitters[i] = 0xFFFFFFFFu;
    return;
  }
  const std::uint32_t outer = buckets >= 8 * Policy::kOuterBuckets ? Policy::kOuterBuckets : 0u;
  const std::uint32_t inner = buckets - 2 * outer;  // buckets within the range: inner - 1 splitters
  const auto inner_splitter = [&](std::uint32_t k) { return ordered_key(keys_out[(k + 1) * n / inner]); };
  if (i < outer) {
    const std::uint32_t first = inner_splitter(0);
    const std::uint32_t width = (inner_splitter(Policy::kEndWidthBuckets) - first) / Policy::kEndWidthBuckets;
    const std::uint64_t below = std::uint64_t{outer - i} * width;
    splitters[i] = first > below ? static_cast<std::uint32_t>(first - below) : 0u;
  } else if (i < outer + inner - 1) {
    splitters[i] = inner_splitter(i - outer);
  } else {
    const std::uint32_t last = inner_splitter(inner - 2);
    const std::uint32_t width =
        (last - inner_splitter(inner - 2 - Policy::kEndWidthBuckets)) / Policy::kEndWidthBuckets;
    const std::uint64_t above = std::uint64_t{i - (outer + inner - 2)} * width;
    splitters[i] = 0xFFFFFFFFull - last > above ? static_cast<std::uint32_t>(last + above) : 0xFFFFFFFFu;
  }
}

}  // namespace depthsort::run_bucket
