// range-bucket's kernels (docs/algorithms/range-bucket.md; depthsort's own design).
//
// Keys are handled as reduced keys: ordered_key(key) - lo, where lo is the smallest ordered key
// of the input (key_range.hpp). A reduced key's top `bucket_bits` bits of its span are its bucket:
// bucket = reduced >> shift, shift = max(span_bits - bucket_bits, 0). Buckets are therefore
// ranges of equal width in the key order, and sorting each bucket alone sorts the whole.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

#include <cuda/functional>

#include <cstdint>

#include "depthsort/keys.hpp"
#include "sort/key_range/key_range.hpp"

namespace depthsort::range_bucket {

// The sizes of the on-chip bucket sorts: a bucket of up to threads * items pairs is sorted by one
// block of that class (CUB's block radix sort over the bits its keys span).
struct BucketClass {
  int threads;
  int items;
  constexpr std::uint32_t capacity() const { return static_cast<std::uint32_t>(threads * items); }
};
inline constexpr BucketClass kBucketClasses[] = {{128, 8}, {256, 16}, {512, 16}};
inline constexpr int kClassCount = 3;
// The class of a bucket of `count` pairs: the first whose block holds it, kClassCount if none does.
__host__ __device__ constexpr int bucket_class(std::uint32_t count) {
  return count <= 128u * 8u ? 0 : count <= 256u * 16u ? 1 : count <= 512u * 16u ? 2 : kClassCount;
}
static_assert(bucket_class(kBucketClasses[0].capacity()) == 0 && bucket_class(kBucketClasses[1].capacity()) == 1 &&
              bucket_class(kBucketClasses[2].capacity()) == 2 && bucket_class(kBucketClasses[2].capacity() + 1) == 3);

// What the plan leaves for the host, read back once per sort (zeroed before the plan runs).
struct Plan {
  key_range::KeyRange range;
  std::uint32_t class_buckets[kClassCount];  // buckets of each size class
  std::uint32_t big_buckets;                 // buckets larger than the largest class holds
  std::uint32_t big_pairs;                   // pairs in them
};

__device__ __forceinline__ int shift_for(const key_range::KeyRange& range, int bucket_bits) {
  const std::uint32_t span = range.hi - range.lo();
  const int span_bits = span == 0 ? 0 : 32 - __clz(span);
  return span_bits > bucket_bits ? span_bits - bucket_bits : 0;
}

// Threads of the histogram and scatter blocks: their loops are latency-bound, and two such blocks
// per multiprocessor keep 64 warps in flight.
inline constexpr int kScanThreads = 1024;

// Adds 1 to counters[bucket] for every valid lane and returns the old value to it. kGroup: one
// atomic per group of lanes of this warp that share a bucket (a frame's nearly sorted keys put
// whole warps into one bucket, whose counter would otherwise take 32 atomics in a row), each lane
// getting the group's old value plus its rank among the group's lanes below it.
template <bool kGroup>
__device__ __forceinline__ std::uint32_t add_by_group(std::uint32_t* counters, std::uint32_t bucket, bool valid) {
  if constexpr (!kGroup) return valid ? atomicAdd(&counters[bucket], 1u) : 0u;
  const unsigned lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xFFFFFFFFu, valid ? bucket : 0xFFFFFFFFu);
  const int leader = __ffs(peers) - 1;
  std::uint32_t base = 0;
  if (valid && static_cast<int>(lane) == leader) base = atomicAdd(&counters[bucket], __popc(peers));
  base = __shfl_sync(0xFFFFFFFFu, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
}

// Per block: counts of its share of the keys in shared memory (one word per bucket), added to the
// global counts once per non-empty bucket.
template <bool kGroup>
__global__ void __launch_bounds__(kScanThreads) bucket_histogram_kernel(const float* __restrict__ keys,
                                                                        std::uint32_t n,
                                                                        const key_range::KeyRange* range,
                                                                        int bucket_bits,
                                                                        std::uint32_t* __restrict__ counts) {
  extern __shared__ std::uint32_t local_counts[];
  const std::uint32_t buckets = 1u << bucket_bits;
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) local_counts[b] = 0;
  const std::uint32_t lo = range->lo();
  const int shift = shift_for(*range, bucket_bits);
  __syncthreads();
  const std::uint32_t stride = gridDim.x * blockDim.x;
  // Warp-uniform trip count: every lane takes part in add_by_group's warp-wide exchanges.
  for (std::uint32_t first = blockIdx.x * blockDim.x; first < n; first += stride) {
    const std::uint32_t i = first + threadIdx.x;
    const bool valid = i < n;
    const std::uint32_t bucket = valid ? (ordered_key(keys[i]) - lo) >> shift : 0u;
    add_by_group<kGroup>(local_counts, bucket, valid);
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x)
    if (local_counts[b] != 0) atomicAdd(&counts[b], local_counts[b]);
}

// Per bucket (starts: the exclusive sum of the counts, with the total at [buckets]): the scatter's
// cursor, and the bucket listed in its size class (or as big, with its bounds). List order is the
// order of the atomics: each bucket's place in the output is fixed by `starts` alone.
__global__ void classify_kernel(const std::uint32_t* __restrict__ starts, std::uint32_t buckets,
                                const key_range::KeyRange* range, std::uint32_t* __restrict__ cursors,
                                std::uint32_t* __restrict__ class_lists, std::uint32_t* __restrict__ big_begin,
                                std::uint32_t* __restrict__ big_end, Plan* plan) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = b < buckets;
  const std::uint32_t begin = valid ? starts[b] : 0u;
  const std::uint32_t count = valid ? starts[b + 1] - begin : 0u;
  if (valid) cursors[b] = begin;
  if (b == 0) plan->range = *range;
  const bool listed = valid && count != 0;
  const int c = bucket_class(count);
  std::uint32_t* counter = c < kClassCount ? &plan->class_buckets[c] : &plan->big_buckets;
  // One atomic per class and warp.
  const unsigned lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xFFFFFFFFu, listed ? c : -1);
  const int leader = __ffs(peers) - 1;
  std::uint32_t at = 0;
  if (listed && static_cast<int>(lane) == leader) at = atomicAdd(counter, __popc(peers));
  at = __shfl_sync(0xFFFFFFFFu, at, leader) + __popc(peers & ((1u << lane) - 1u));
  if (!listed) return;
  if (c < kClassCount) {
    class_lists[c * buckets + at] = b;
  } else {
    big_begin[at] = begin;
    big_end[at] = begin + count;
    atomicAdd(&plan->big_pairs, count);
  }
}

// The scatter: each block takes `per_block` consecutive keys, counts them per bucket in shared
// memory, reserves room in every non-empty bucket with one global atomic (so all blocks append at
// the same front of each bucket, which the L2 cache assembles into whole sectors), then reads the
// keys again and writes each pair, as reduced key and value, to its place. The order of equal keys
// within a bucket is not kept (ties may come out in any order).
template <bool kGroup>
__global__ void __launch_bounds__(kScanThreads) scatter_kernel(const float* __restrict__ keys,
                                                              const std::uint32_t* __restrict__ values,
                                                              std::uint32_t n, std::uint32_t per_block,
                                                              const key_range::KeyRange* range, int bucket_bits,
                                                              std::uint32_t* __restrict__ cursors,
                                                              std::uint32_t* __restrict__ bucketed_keys,
                                                              std::uint32_t* __restrict__ bucketed_values) {
  extern __shared__ std::uint32_t local[];
  const std::uint32_t buckets = 1u << bucket_bits;
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) local[b] = 0;
  const std::uint32_t lo = range->lo();
  const int shift = shift_for(*range, bucket_bits);
  const std::uint64_t begin64 = static_cast<std::uint64_t>(blockIdx.x) * per_block;
  const std::uint32_t begin = static_cast<std::uint32_t>(begin64 < n ? begin64 : n);
  const std::uint32_t end = static_cast<std::uint32_t>(begin64 + per_block < n ? begin64 + per_block : n);
  __syncthreads();
  for (std::uint32_t first = begin; first < end; first += kScanThreads) {
    const std::uint32_t i = first + threadIdx.x;
    const bool valid = i < end;
    add_by_group<kGroup>(local, valid ? (ordered_key(keys[i]) - lo) >> shift : 0u, valid);
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x)
    if (local[b] != 0) local[b] = atomicAdd(&cursors[b], local[b]);
  __syncthreads();
  for (std::uint32_t first = begin; first < end; first += kScanThreads) {
    const std::uint32_t i = first + threadIdx.x;
    const bool valid = i < end;
    const std::uint32_t reduced = valid ? ordered_key(keys[i]) - lo : 0u;
    const std::uint32_t at = add_by_group<kGroup>(local, reduced >> shift, valid);
    if (valid) {
      bucketed_keys[at] = reduced;
      bucketed_values[at] = values[i];
    }
  }
}

// One block per bucket of its size class: the bucket's pairs loaded (padded with the largest key,
// which a stable sort keeps behind every real key), sorted by CUB's block radix sort on the bits
// that the bucket's own keys span (none, past the one the striped output needs, where they are
// all equal), and written with the keys restored to floats.
template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads) bucket_sort_kernel(const std::uint32_t* __restrict__ bucketed_keys,
                                                              const std::uint32_t* __restrict__ bucketed_values,
                                                              const std::uint32_t* __restrict__ starts,
                                                              const std::uint32_t* __restrict__ list,
                                                              const key_range::KeyRange* range,
                                                              float* __restrict__ keys_out,
                                                              std::uint32_t* __restrict__ values_out) {
  using Load = cub::BlockLoad<std::uint32_t, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  using Sort = cub::BlockRadixSort<std::uint32_t, kThreads, kItems, std::uint32_t>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
    typename Sort::TempStorage sort;
  } storage;
  __shared__ std::uint32_t bucket_min, bucket_max;
  const std::uint32_t bucket = list[blockIdx.x];
  const std::uint32_t begin = starts[bucket];
  const int count = static_cast<int>(starts[bucket + 1] - begin);
  std::uint32_t key[kItems], value[kItems];
  Load(storage.load).Load(bucketed_keys + begin, key, count, 0xFFFFFFFFu);
  __syncthreads();
  Load(storage.load).Load(bucketed_values + begin, value, count, 0u);
  // The bucket's own smallest and largest key: the sort needs only the bits between them.
  std::uint32_t low = 0xFFFFFFFFu, high = 0u;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (static_cast<int>(threadIdx.x) * kItems + j < count) {
      low = min(low, key[j]);
      high = max(high, key[j]);
    }
  }
  __syncthreads();
  low = Reduce(storage.reduce).Reduce(low, cuda::minimum<>{});
  if (threadIdx.x == 0) bucket_min = low;
  __syncthreads();
  high = Reduce(storage.reduce).Reduce(high, cuda::maximum<>{});
  if (threadIdx.x == 0) bucket_max = high;
  __syncthreads();
  low = bucket_min;
  const std::uint32_t span = bucket_max - low;
  const int bits = span == 0 ? 1 : 32 - __clz(span);
  // Padding keeps the largest key: its low `bits` bits are all ones, and the stable sort keeps it
  // behind any real key equal to it.
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    if (static_cast<int>(threadIdx.x) * kItems + j < count) key[j] -= low;
  Sort(storage.sort).SortBlockedToStriped(key, value, 0, bits);
  const std::uint32_t restore = low + range->lo();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int at = j * kThreads + static_cast<int>(threadIdx.x);
    if (at < count) {
      keys_out[begin + at] = __uint_as_float(float_bits_from_ordered_bits(key[j] + restore));
      values_out[begin + at] = value[j];
    }
  }
}

// The big buckets, sorted by CUB's segmented sort as reduced keys in keys_out: restored in place.
__global__ void restore_big_kernel(std::uint32_t* keys, const std::uint32_t* big_begin, const std::uint32_t* big_end,
                                   const key_range::KeyRange* range) {
  const std::uint32_t lo = range->lo();
  const std::uint32_t end = big_end[blockIdx.x];
  for (std::uint32_t i = big_begin[blockIdx.x] + threadIdx.x; i < end; i += blockDim.x)
    keys[i] = float_bits_from_ordered_bits(keys[i] + lo);
}

}  // namespace depthsort::range_bucket
