// run-bucket's bucket sort (docs/algorithms/run-bucket.md; depthsort's own design): each bucket's
// pairs, as the scatter left them in the bucket's region, sorted on chip and written at the
// bucket's place in the output, keys restored to floats.
//
// Most buckets hold at most the small shape's pairs: a persistent grid sorts them, each block
// taking every gridDim.x-th bucket and, while it sorts one, having the next one's keys and values
// brought to shared memory (primitives/staged_pairs.cuh: by the bulk copy engine from sm_90, one
// thread and no registers; by cp.async on sm_80-89; on sm_75, which has neither, loaded when
// needed). Sorting a bucket by one block that loads it first left the block waiting on DRAM for a
// quarter of its time (Nsight Compute, camera-step keys at 16M pairs, H100). Buckets between
// splitters fewer than kCountingSlots values apart are sorted by counting, the others (and the
// open-ended first and last) by CUB's block radix sort on the bits their keys span. The same
// blocks find the buckets' places in the output first, each block for the buckets it sorts, and
// list the buckets too large for the small shape, which the large kernel sorts beside them, one
// block a bucket; the last block to have listed posts the plan with the lists' lengths to the
// host, which queues the large kernel only where there are such buckets.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/staged_pairs.cuh"
#include "sort/primitives/warp_block.cuh"
#include "sort/run_bucket/run_bucket_kernels.cuh"

namespace depthsort::run_bucket {

template <int kThreads, int kItems, int kRadixBits>
using BucketRadixSort = cub::BlockRadixSort<std::uint32_t, kThreads, kItems, std::uint32_t, kRadixBits>;

// The small-bucket kernel's work areas: the counting sort's slots and its scan, or the radix
// sort's.
template <int kThreads, int kItems, int kRadixBits>
union SmallBucketWork {
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  struct {
    std::uint32_t slots[Policy::kCountingSlots];
    typename Scan::TempStorage scan;
  } counting;
  typename BucketRadixSort<kThreads, kItems, kRadixBits>::TempStorage radix;
};

// CUB's block radix sort of a bucket's pairs in registers, blocked (pads after the pairs hold
// 0xFFFFFFFF), on the bits its keys span above `low`; written out striped from `to`. The pads
// have every one of those bits set and the sort is stable, so they stay behind every real key.
template <int kThreads, int kItems, int kRadixBits>
__device__ __forceinline__ void radix_sort_bucket(
    std::uint32_t (&key)[kItems], std::uint32_t (&value)[kItems], int count, std::uint32_t low, std::uint32_t span,
    typename BucketRadixSort<kThreads, kItems, kRadixBits>::TempStorage& storage, std::uint32_t to,
    float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out) {
  const int bits = 32 - __clz(span);
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    if (static_cast<int>(threadIdx.x) * kItems + j < count) key[j] -= low;
  BucketRadixSort<kThreads, kItems, kRadixBits>(storage).SortBlockedToStriped(key, value, 0, bits);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int at = j * kThreads + static_cast<int>(threadIdx.x);
    if (at < count) {
      keys_out[to + at] = key_from_ordered(key[j] + low);
      values_out[to + at] = value[j];
    }
  }
}

// The smallest and largest of the block's valid keys (every thread calls it; `parts` holds two
// words per warp; the caller has a barrier between a previous use of parts and this one).
template <int kThreads, int kItems>
__device__ __forceinline__ void bucket_key_range(const std::uint32_t (&key)[kItems], bool (&valid)[kItems],
                                                 std::uint32_t* parts, std::uint32_t& low, std::uint32_t& high) {
  constexpr int kWarps = kThreads / 32;
  std::uint32_t warp_low = 0xFFFFFFFFu, warp_high = 0u;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (valid[j]) {
      warp_low = min(warp_low, key[j]);
      warp_high = max(warp_high, key[j]);
    }
  }
  warp_low = primitives::warp_reduce_min(0xFFFFFFFFu, warp_low);
  warp_high = primitives::warp_reduce_max(0xFFFFFFFFu, warp_high);
  const unsigned warp = threadIdx.x / 32;
  if ((threadIdx.x & 31) == 0) {
    parts[warp] = warp_low;
    parts[kWarps + warp] = warp_high;
  }
  __syncthreads();
  low = parts[0];
  high = parts[kWarps];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) {
    low = min(low, parts[w]);
    high = max(high, parts[kWarps + w]);
  }
}

// A bucket whose keys are all `only` (an ordered key): its values (staged, or in its region)
// copied as they are.
template <int kThreads>
__device__ __forceinline__ void copy_one_value_bucket(int pairs, std::uint32_t to, std::uint32_t only,
                                                      const std::uint32_t* values, float* __restrict__ keys_out,
                                                      std::uint32_t* __restrict__ values_out) {
  const float key = key_from_ordered(only);
  for (int at = static_cast<int>(threadIdx.x); at < pairs; at += kThreads) {
    keys_out[to + at] = key;
    values_out[to + at] = values[at];
  }
}

// A bucket of the small shape whose keys lie in [low, low + kSlots) (its pairs have arrived in
// staged_keys/values): a counting sort over kSlots values that ranks the pairs into
// the same buffer (every thread has its own in registers by then) and writes them from there in
// order.
template <int kThreads, int kItems, int kRadixBits, int kSlots>
__device__ __forceinline__ void counting_sort_staged_bucket(int pairs, std::uint32_t to, std::uint32_t low,
                                                            std::uint32_t* staged_keys, std::uint32_t* staged_values,
                                                            SmallBucketWork<kThreads, kItems, kRadixBits>& work,
                                                            float* __restrict__ keys_out,
                                                            std::uint32_t* __restrict__ values_out) {
  using Work = SmallBucketWork<kThreads, kItems, kRadixBits>;
  static_assert(kSlots % kThreads == 0 && kSlots <= Policy::kCountingSlots);
  constexpr int kSlotsPerThread = kSlots / kThreads;
  std::uint32_t key[kItems];
  bool valid[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int at = j * kThreads + static_cast<int>(threadIdx.x);
    valid[j] = at < pairs;
    key[j] = valid[j] ? staged_keys[at] : 0u;
  }
  std::uint32_t* slots = work.counting.slots;
#pragma unroll
  for (int k = 0; k < kSlotsPerThread; ++k) slots[k * kThreads + threadIdx.x] = 0;
  __syncthreads();
  std::uint32_t rank[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) rank[j] = valid[j] ? atomicAdd(&slots[key[j] - low], 1u) : 0u;
  __syncthreads();
  std::uint32_t tally[kSlotsPerThread];
#pragma unroll
  for (int k = 0; k < kSlotsPerThread; ++k) tally[k] = slots[threadIdx.x * kSlotsPerThread + k];
  typename Work::Scan(work.counting.scan).ExclusiveSum(tally, tally);
#pragma unroll
  for (int k = 0; k < kSlotsPerThread; ++k) slots[threadIdx.x * kSlotsPerThread + k] = tally[k];
  // The values are read only now, so that they are not held through the scan; nobody writes the
  // buffer before the barrier below.
  std::uint32_t value[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) value[j] = valid[j] ? staged_values[j * kThreads + threadIdx.x] : 0u;
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (valid[j]) {
      const std::uint32_t p = slots[key[j] - low] + rank[j];
      staged_keys[p] = key[j];
      staged_values[p] = value[j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int at = j * kThreads + static_cast<int>(threadIdx.x);
    if (at < pairs) {
      keys_out[to + at] = key_from_ordered(staged_keys[at]);
      values_out[to + at] = staged_values[at];
    }
  }
}

// A bucket of the small shape too wide for the counting sort (or the first or the last, which are
// open-ended), its pairs in staged_keys/values: CUB's block radix sort on the bits its keys span,
// from the staged pairs in registers (blocked, pads after them).
template <int kThreads, int kItems, int kRadixBits>
__device__ __forceinline__ void radix_sort_staged_bucket(int pairs, std::uint32_t to, const std::uint32_t* staged_keys,
                                                         const std::uint32_t* staged_values,
                                                         SmallBucketWork<kThreads, kItems, kRadixBits>& work,
                                                         std::uint32_t* range_parts, float* __restrict__ keys_out,
                                                         std::uint32_t* __restrict__ values_out) {
  std::uint32_t key[kItems], value[kItems];
  bool valid[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int at = static_cast<int>(threadIdx.x) * kItems + j;
    valid[j] = at < pairs;
    key[j] = valid[j] ? staged_keys[at] : 0xFFFFFFFFu;
    value[j] = valid[j] ? staged_values[at] : 0u;
  }
  std::uint32_t low, high;
  bucket_key_range<kThreads, kItems>(key, valid, range_parts, low, high);
  if (high == low) return copy_one_value_bucket<kThreads>(pairs, to, low, staged_values, keys_out, values_out);
  radix_sort_bucket<kThreads, kItems, kRadixBits>(key, value, pairs, low, high - low, work.radix, to, keys_out,
                                                  values_out);
}

// The small-bucket kernel's grid: Policy::kFewBucketsPerSmallSortBlock or
// kManyBucketsPerSmallSortBlock buckets a block (policy.hpp says when each).

// The small-bucket kernel: a persistent grid; block i owns the buckets i, i + gridDim.x, ... (and
// the entry `buckets`, the total, if it falls to it). First each block finds the starts of the
// buckets it owns from their counts, in L2 where the scatter just counted them, while the bulk
// copy of its first bucket is on its way, and lists those of its buckets too large for this shape
// (for the large kernel) or beyond their room (sorted with the spill area), which a one-block
// kernel of its own cost more (docs/results/run-bucket.md). The last block to have listed posts
// the plan (with the lists' lengths and the spill) to the host, which queues what comes after the
// small buckets while they are sorted: the large kernel where a bucket needs it (on a stream of
// its own, so that its blocks start as the small kernel's finish), the overflowed buckets' sort
// or the fallback, the kept splitters. (Posted at the attempt's end instead, the
// device waited for the host's turn in every sort; posted by the scatter's last block, with the
// lists made by the scatter, the scatter took longer at 16M pairs.) Then it
// sorts its buckets of 1 to kThreads * kItems pairs, each one's pairs fetched while the one before
// is sorted (a fixed share each: blocks claiming buckets from a counter took 10% longer): by
// counting where the splitters are fewer than kCountingSlots values apart, otherwise by radix. Its
// buffers are dynamic shared memory: staged_bucket_bytes for the path of its architecture.
template <int kThreads, int kItems>
using StagedBucket = primitives::StagedPairs<kThreads, static_cast<std::uint32_t>(kThreads* kItems)>;
template <int kThreads, int kItems>
constexpr std::size_t staged_bucket_bytes(primitives::StagingPath path) {
  return primitives::staging_bytes(path, 2, kThreads * kItems);  // keys and values
}
template <int kThreads, int kItems, int kMinBlocks, int kRadixBits, std::uint32_t kMostBucketsPerBlock>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    small_bucket_sort_kernel(const std::uint32_t* __restrict__ bucketed_keys,
                             const std::uint32_t* __restrict__ bucketed_values,
                             const std::uint32_t* __restrict__ counts, const std::uint32_t* __restrict__ splitters,
                             std::uint32_t buckets, std::uint32_t* __restrict__ starts,
                             std::uint32_t* __restrict__ large_list, std::uint32_t* __restrict__ overflowed_list,
                             Plan* plan, primitives::Posted<Plan>* posted, std::uint32_t sequence,
                             float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out) {
  using Work = SmallBucketWork<kThreads, kItems, kRadixBits>;
  constexpr std::uint32_t kCapacity = kThreads * kItems;
  static_assert(Policy::kBucketCapacity * sizeof(std::uint32_t) % 16 == 0,
                "a bucket's region starts 16-byte aligned, and a run may be read to its next 16 bytes");
  __shared__ Work work;
  __shared__ std::uint32_t range_parts[2 * kThreads / 32];
  __shared__ std::uint32_t owned_starts[kMostBucketsPerBlock];
  __shared__ typename cub::WarpScan<std::uint32_t>::TempStorage warp_scan;
  __shared__ typename StagedBucket<kThreads, kItems>::Storage staging;
  StagedBucket<kThreads, kItems> stage(staging);  // in the dynamic shared memory
  const std::uint32_t count = buckets - 1;
  const auto next_small = [&](std::uint32_t b) {
    while (b < buckets && (counts[b] == 0 || counts[b] > kCapacity)) b += gridDim.x;
    return b;
  };
  // Bucket b's pairs, where the scatter left them (the copies round up to 16 bytes, within the
  // bucket's region).
  const auto pairs_of = [&](std::uint32_t b) {
    const std::size_t from = std::size_t{b} * Policy::kBucketCapacity;
    return [=] { return primitives::StagedRun{bucketed_keys + from, bucketed_values + from, counts[b]}; };
  };
  std::uint32_t bucket = next_small(blockIdx.x);
  stage.begin(bucket < buckets, pairs_of(bucket));
  {
    // The starts of the buckets this block owns, b_k = i + k * gridDim.x: the counts from b_(k-1)
    // up to b_k (from 0 for k = 0) summed by one warp a stretch, in coalesced loads, then the
    // stretches' sums scanned by one warp, kMostBucketsPerBlock / 32 a lane. Each thread summing
    // a run of consecutive counts instead (33 words apart across a warp at 16M pairs) left the
    // bucket sort at 16M as slow as with the one-block kernel this replaces.
    constexpr int kWarps = kThreads / 32;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const std::uint32_t owned = (buckets - blockIdx.x) / gridDim.x + 1;  // the grid has at most buckets + 1 blocks
    for (std::uint32_t k = warp; k < owned; k += kWarps) {
      const std::uint32_t end = blockIdx.x + k * gridDim.x, begin = k == 0 ? 0u : end - gridDim.x;
      std::uint32_t sum = 0;
#pragma unroll 16
      for (std::uint32_t b = begin + lane; b < end; b += 32) sum += counts[b];
      sum = primitives::warp_reduce_add(0xFFFFFFFFu, sum);
      if (lane == 0) owned_starts[k] = sum;
    }
    __syncthreads();
    if (warp == 0) {
      constexpr int kPerLane = kMostBucketsPerBlock / 32;
      static_assert(kPerLane * 32 == kMostBucketsPerBlock, "one warp scans the stretches");
      const std::uint32_t k0 = kPerLane * lane;
      std::uint32_t sum[kPerLane], lane_sum = 0;
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        sum[j] = k0 + j < owned ? owned_starts[k0 + j] : 0u;
        lane_sum += sum[j];
      }
      std::uint32_t through = 0;  // the stretches before this lane's first
      cub::WarpScan<std::uint32_t>(warp_scan).ExclusiveSum(lane_sum, through);
      bool past_list = false;
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const std::uint32_t k = k0 + j, b = blockIdx.x + k * gridDim.x;
        through += sum[j];
        if (k >= owned) continue;
        owned_starts[k] = through;
        starts[b] = through;
        const std::uint32_t pairs = b < buckets ? counts[b] : 0u;
        if (pairs > Policy::kBucketCapacity) {
          const std::uint32_t at = atomicAdd(&plan->overflowed_buckets, 1u);
          if (at < Policy::kMostOverflowedBuckets)
            overflowed_list[at] = b;
          else
            past_list = true;
        } else if (pairs > kCapacity) {
          large_list[atomicAdd(&plan->large_buckets, 1u)] = b;
        }
      }
      // The lists' counts are in (each lane had its atomics' results); the last block to get here
      // posts the plan. Only the posting thread waits for the post's system-wide fence. The
      // warp's barrier puts every lane's places and list entries before lane 0's fence: the large
      // kernel reads them while this kernel still runs.
      const bool overflow = __any_sync(0xFFFFFFFFu, past_list);
      __syncwarp();
      if (lane == 0) {
        if (overflow) atomicOr(&plan->overflow, 1u);
        __threadfence();
        if (atomicAdd(&plan->listing_blocks_done, 1u) == gridDim.x - 1) {
          __threadfence();
          post_plan(plan, posted, sequence);
        }
      }
    }
  }
  __syncthreads();  // the owned starts and the stage's initialisation
  for (int k = 0; bucket < buckets; k ^= 1) {
    const std::uint32_t next = next_small(bucket + gridDim.x);
    // The other buffer's last reads were before the barrier that ended the last bucket.
    stage.fetch(k ^ 1, next < buckets, pairs_of(next));
    stage.wait(k);
    const int pairs = static_cast<int>(counts[bucket]);
    const std::uint32_t to = owned_starts[(bucket - blockIdx.x) / gridDim.x];
    if (!counting_sorts(splitters, count, bucket)) {
      radix_sort_staged_bucket<kThreads, kItems, kRadixBits>(pairs, to, stage.keys(k), stage.values(k), work,
                                                             range_parts, keys_out, values_out);
    } else {
      // The bucket's keys lie in [low, low + span): the counting sort scans only the slots that
      // span needs, in three sizes.
      const std::uint32_t low = splitters[bucket - 1], span = splitters[bucket] - low;
      if (span == 0)  // between equal splitters: one key value
        copy_one_value_bucket<kThreads>(pairs, to, low, stage.values(k), keys_out, values_out);
      else if (span <= Policy::kCountingSlots / 4)
        counting_sort_staged_bucket<kThreads, kItems, kRadixBits, Policy::kCountingSlots / 4>(
            pairs, to, low, stage.keys(k), stage.values(k), work, keys_out, values_out);
      else if (span <= Policy::kCountingSlots / 2)
        counting_sort_staged_bucket<kThreads, kItems, kRadixBits, Policy::kCountingSlots / 2>(
            pairs, to, low, stage.keys(k), stage.values(k), work, keys_out, values_out);
      else
        counting_sort_staged_bucket<kThreads, kItems, kRadixBits, Policy::kCountingSlots>(
            pairs, to, low, stage.keys(k), stage.values(k), work, keys_out, values_out);
    }
    __syncthreads();  // the buffer and the work areas are free
    bucket = next;
  }
}

// The buckets too large for the small shape (`listed` of them in large_list, listed by the
// small-bucket kernel; queued by the host only where there are any, while that kernel still runs):
// one block a bucket in a fixed grid, loaded from its region, CUB's block radix sort on the bits
// its keys span (one key value: copied).
template <int kThreads, int kItems, int kMinBlocks, int kRadixBits>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    large_bucket_sort_kernel(const std::uint32_t* __restrict__ bucketed_keys,
                             const std::uint32_t* __restrict__ bucketed_values,
                             const std::uint32_t* __restrict__ counts, const std::uint32_t* __restrict__ starts,
                             const std::uint32_t* __restrict__ large_list, std::uint32_t listed,
                             float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out) {
  constexpr std::uint32_t kCapacity = kThreads * kItems;
  using Load = cub::BlockLoad<std::uint32_t, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename BucketRadixSort<kThreads, kItems, kRadixBits>::TempStorage sort;
  } storage;
  __shared__ std::uint32_t range_parts[2 * kThreads / 32];
  for (std::uint32_t block = blockIdx.x; block < listed; block += gridDim.x) {
    // The list and the places come from the small-bucket kernel, which may still be running: read
    // from L2, past this multiprocessor's caches.
    const std::uint32_t bucket = __ldcg(&large_list[block]);
    const std::uint32_t pairs = counts[bucket];
    if (pairs > kCapacity) continue;
    __syncthreads();  // the last bucket of this block is done with the shared memory
    const int count = static_cast<int>(pairs);
    const std::size_t from = static_cast<std::size_t>(bucket) * Policy::kBucketCapacity;
    std::uint32_t key[kItems], value[kItems];
    Load(storage.load).Load(bucketed_keys + from, key, count, 0xFFFFFFFFu);
    __syncthreads();
    Load(storage.load).Load(bucketed_values + from, value, count, 0u);
    bool valid[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) valid[j] = static_cast<int>(threadIdx.x) * kItems + j < count;
    std::uint32_t low, high;
    bucket_key_range<kThreads, kItems>(key, valid, range_parts, low, high);
    __syncthreads();  // the loads are done with the shared memory the sort takes
    if (high == low) {
      copy_one_value_bucket<kThreads>(count, __ldcg(&starts[bucket]), low, bucketed_values + from, keys_out,
                                      values_out);
      continue;
    }
    radix_sort_bucket<kThreads, kItems, kRadixBits>(key, value, count, low, high - low, storage.sort,
                                                    __ldcg(&starts[bucket]), keys_out, values_out);
  }
}

}  // namespace depthsort::run_bucket
