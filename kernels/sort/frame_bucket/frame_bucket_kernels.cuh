// frame-bucket's kernels (docs/algorithms/frame-bucket.md): scatter into the buckets of the last
// frame's splitters, sort each bucket on chip over the bits its bounding splitters leave open, and
// keep the splitters and slot capacities for the next frame. Keys travel as ordered bits
// (keys.hpp), so -0.0 < +0.0 and NaN payloads come out bit-exact without a fixup.
#pragma once

#include <cub/block/block_radix_sort.cuh>

#include <cstdint>

#include "depthsort/keys.hpp"

namespace depthsort::frame_bucket {

constexpr int kScatterThreads = 256;
constexpr int kScatterItems = 8;
constexpr std::uint32_t kScatterTile = kScatterThreads * kScatterItems;
constexpr int kSortThreads = 512;
constexpr int kSortItems = 16;
constexpr std::uint32_t kOnChip = kSortThreads * kSortItems;  // 8192 pairs: the largest bucket sorted on chip
constexpr std::uint32_t kSlotPad = 64;                        // added to every slot: room for small buckets to grow
// Splitters searched in shared memory up to this many (48 KB, no opt-in needed); more: in global.
constexpr std::uint32_t kMaxSmemSplitters = 12288;

// Two on-chip sorts in one block: a bucket of at most half kOnChip pairs (most of them, at the
// default `bucket`) sorts 8 items a thread instead of 16, so it does not pay for 4096 pads.
template <int Items>
using BucketSort = cub::BlockRadixSort<std::uint32_t, kSortThreads, Items, std::uint32_t>;
union BucketSortStorage {
  typename BucketSort<kSortItems>::TempStorage full;
  typename BucketSort<kSortItems / 2>::TempStorage half;
};

// Bucket of an ordered key: the number of splitters <= key (upper bound), so bucket b holds
// [splitters[b-1], splitters[b]).
__device__ __forceinline__ std::uint32_t bucket_of(const std::uint32_t* splitters, std::uint32_t count,
                                                   std::uint32_t key) {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (splitters[mid] <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The closed key range [*lo, *hi] of bucket b of `buckets`; false where it is empty (equal
// bounding splitters, or an upper splitter of 0).
__device__ __forceinline__ bool bucket_range(const std::uint32_t* splitters, std::uint32_t buckets, std::uint32_t b,
                                             std::uint32_t* lo, std::uint32_t* hi) {
  *lo = b == 0 ? 0u : splitters[b - 1];
  if (b + 1 == buckets) {
    *hi = 0xFFFFFFFFu;
    return true;
  }
  const std::uint32_t upper = splitters[b];
  if (upper == 0 || upper <= *lo) return false;
  *hi = upper - 1;
  return true;
}

// (1) scatter: each pair into its bucket's slot, behind a cursor shared by the warp's lanes of the
// same bucket (__match_any_sync), so nearly sorted input writes whole warps contiguously. A pair
// past its slot is not written; it raises *overflow and the sort falls back.
__global__ void __launch_bounds__(kScatterThreads)
    scatter_kernel(const float* __restrict__ keys, const std::uint32_t* __restrict__ values, std::uint32_t n,
                   const std::uint32_t* __restrict__ splitters, std::uint32_t splitter_count, bool splitters_in_smem,
                   const std::uint32_t* __restrict__ slot_offset, const std::uint32_t* __restrict__ slot_capacity,
                   std::uint32_t* __restrict__ cursor, uint2* __restrict__ slots,
                   std::uint32_t* __restrict__ overflow) {
  extern __shared__ std::uint32_t smem_splitters[];
  const std::uint32_t* search = splitters;
  if (splitters_in_smem) {
    for (std::uint32_t i = threadIdx.x; i < splitter_count; i += kScatterThreads) smem_splitters[i] = splitters[i];
    __syncthreads();
    search = smem_splitters;
  }
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t lanes_before = (1u << lane) - 1u;
  // Every lane runs every iteration (the bound is uniform), so __match_any_sync sees the full warp.
  for (std::uint32_t tile = blockIdx.x * kScatterTile; tile < n; tile += gridDim.x * kScatterTile) {
    std::uint32_t key[kScatterItems], value[kScatterItems];
    // All loads first, so they are in flight together.
#pragma unroll
    for (int j = 0; j < kScatterItems; ++j) {
      const std::uint32_t i = tile + j * kScatterThreads + threadIdx.x;
      key[j] = 0;
      value[j] = 0;
      if (i < n) {
        key[j] = ordered_key(keys[i]);
        value[j] = values[i];
      }
    }
#pragma unroll
    for (int j = 0; j < kScatterItems; ++j) {
      const std::uint32_t i = tile + j * kScatterThreads + threadIdx.x;
      const bool valid = i < n;
      const std::uint32_t b = valid ? bucket_of(search, splitter_count, key[j]) : 0xFFFFFFFFu;
      const std::uint32_t peers = __match_any_sync(0xFFFFFFFFu, b);
      const std::uint32_t leader = __ffs(peers) - 1;
      std::uint32_t base = 0;
      if (valid && lane == leader) base = atomicAdd(&cursor[b], __popc(peers));
      base = __shfl_sync(0xFFFFFFFFu, base, leader);
      if (valid) {
        const std::uint32_t pos = base + __popc(peers & lanes_before);
        if (pos < slot_capacity[b])
          slots[slot_offset[b] + pos] = make_uint2(key[j], value[j]);
        else
          *overflow = 1u;
      }
    }
  }
}

// Sorts one bucket's count pairs (count <= kSortThreads * Items) on chip over bits [0, end_bit)
// and writes them at dst. Loaded blocked, padded with all-ones keys and sorted stably, so the pads
// stay after every real key, equal ones included. Slots start at even offsets (capacities are
// even), so pairs load two at a time; an odd last pair's partner read stays inside the slot.
template <int Items, class Storage>
__device__ __forceinline__ void sort_bucket_on_chip(Storage& storage, const uint2* __restrict__ src,
                                                    std::uint32_t count, int end_bit, std::uint32_t dst,
                                                    float* __restrict__ keys_out,
                                                    std::uint32_t* __restrict__ values_out) {
  std::uint32_t key[Items], value[Items];
  const uint4* src4 = reinterpret_cast<const uint4*>(src);
#pragma unroll
  for (int j = 0; j < Items / 2; ++j) {
    const std::uint32_t i = threadIdx.x * Items + 2 * j;
    uint4 q = make_uint4(0xFFFFFFFFu, 0u, 0xFFFFFFFFu, 0u);
    if (i < count) q = src4[i / 2];
    const bool second = i + 1 < count;
    key[2 * j] = q.x;
    value[2 * j] = q.y;
    key[2 * j + 1] = second ? q.z : 0xFFFFFFFFu;
    value[2 * j + 1] = second ? q.w : 0u;
  }
  BucketSort<Items>(storage).SortBlockedToStriped(key, value, 0, end_bit);
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const std::uint32_t i = j * kSortThreads + threadIdx.x;
    if (i < count) {
      keys_out[dst + i] = key_from_ordered(key[j]);
      values_out[dst + i] = value[j];
    }
  }
}

// (4) bucket-sort: one block per bucket. A bucket of one key value (or one pair) is copied, any
// size; the others (at most kOnChip pairs, by their slot capacity) are radix sorted on chip over
// bits [0, end_bit), end_bit the highest bit where the bucket's bounds differ (the bits above are
// the same in all its keys).
__global__ void __launch_bounds__(kSortThreads)
    bucket_sort_kernel(const uint2* __restrict__ slots, const std::uint32_t* __restrict__ slot_offset,
                       const std::uint32_t* __restrict__ counts, const std::uint32_t* __restrict__ out_offset,
                       const std::uint32_t* __restrict__ splitters, std::uint32_t buckets, float* __restrict__ keys_out,
                       std::uint32_t* __restrict__ values_out) {
  __shared__ BucketSortStorage storage;
  const std::uint32_t b = blockIdx.x;
  const std::uint32_t count = counts[b];
  if (count == 0) return;
  const uint2* src = slots + slot_offset[b];
  const std::uint32_t dst = out_offset[b];
  std::uint32_t lo = 0, hi = 0;
  const bool open = bucket_range(splitters, buckets, b, &lo, &hi);
  if (!open || lo == hi || count == 1 || count > kOnChip) {
    // One key value (an empty range holds no pairs; only one-value slots exceed kOnChip).
    for (std::uint32_t i = threadIdx.x; i < count; i += kSortThreads) {
      const uint2 p = src[i];
      keys_out[dst + i] = key_from_ordered(p.x);
      values_out[dst + i] = p.y;
    }
    return;
  }
  const int end_bit = 32 - __clz(lo ^ hi);
  if (count <= kOnChip / 2)
    sort_bucket_on_chip<kSortItems / 2>(storage.half, src, count, end_bit, dst, keys_out, values_out);
  else
    sort_bucket_on_chip<kSortItems>(storage.full, src, count, end_bit, dst, keys_out, values_out);
}

// Splitter j of the 2 (ranks - 1) read from the sorted output. Each rank (r+1) n / ranks, r < ranks - 1,
// of ordered key x gives two: x and x + 1, so the run of x gets a bucket [x, x+1) of its own
// (copied, any size) and the bucket between two ranks holds only keys strictly between their
// values: at most ceil(n / ranks) pairs whatever the duplicates. Where x equals the previous rank's
// key the first one is raised to x + 1 as well, so the splitters stay nondecreasing; the all-ones
// key saturates (it has no successor).
__device__ __forceinline__ std::uint32_t splitter_at(const float* __restrict__ sorted, std::uint32_t n,
                                                     std::uint32_t ranks, std::uint32_t j) {
  const std::uint32_t r = j / 2;
  const std::uint32_t x = ordered_key(sorted[(std::uint64_t{r} + 1) * n / ranks]);
  if (x == 0xFFFFFFFFu) return x;
  if (j & 1u) return x + 1;
  if (r == 0) return x;
  const std::uint32_t previous = ordered_key(sorted[std::uint64_t{r} * n / ranks]);
  return x == previous ? x + 1 : x;
}

// Number of sorted keys below an ordered key.
__device__ __forceinline__ std::uint32_t rank_below(const float* __restrict__ sorted, std::uint32_t n,
                                                    std::uint32_t key) {
  std::uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (ordered_key(sorted[mid]) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// (5) keep-splitters: thread b (of buckets + 1, buckets = 2 ranks - 1) writes splitter b and the
// slot capacity of bucket b from this output's count in it; entry `buckets` of the capacities is 0,
// so their exclusive sum ends with the slots' total.
__global__ void keep_splitters_kernel(const float* __restrict__ sorted, std::uint32_t n, std::uint32_t ranks,
                                      std::uint32_t buckets, std::uint32_t slack_pct,
                                      std::uint32_t* __restrict__ splitters,
                                      std::uint32_t* __restrict__ capacity) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > buckets) return;
  if (b == buckets) {
    capacity[b] = 0;
    return;
  }
  const bool last = b + 1 == buckets;
  const std::uint32_t lower = b == 0 ? 0u : splitter_at(sorted, n, ranks, b - 1);
  const std::uint32_t upper = last ? 0u : splitter_at(sorted, n, ranks, b);
  if (!last) splitters[b] = upper;
  const std::uint32_t begin = b == 0 ? 0u : rank_below(sorted, n, lower);
  const std::uint32_t end = last ? n : rank_below(sorted, n, upper);
  const std::uint32_t count = end > begin ? end - begin : 0u;
  // The same test as bucket_range: one key value, or empty.
  const bool one_value = !last && (upper == 0 || upper <= lower + 1 || lower == 0xFFFFFFFFu);
  const bool top_one_value = last && lower == 0xFFFFFFFFu;
  std::uint64_t cap = std::uint64_t{count} + std::uint64_t{count} * slack_pct / 100 + kSlotPad;
  if (!one_value && !top_one_value && cap > kOnChip) cap = kOnChip;
  capacity[b] = static_cast<std::uint32_t>((cap + 1) & ~std::uint64_t{1});
}

}  // namespace depthsort::frame_bucket
