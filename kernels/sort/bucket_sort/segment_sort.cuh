// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1 steps 4 and 9: the bitonic sort of segments, every sample (step `sample sort`) and
// every bucket (step `sublist sort`), in shared memory or through global memory.
// The host side is bucket_sort_sorter.cu; what every kernel shares, bucket_sort_kernels.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/bucket_sort/bucket_sort_kernels.cuh"

namespace depthsort::bucket_sort {

// ---- Steps 4 and 9: bitonic sort of segments (all samples; every bucket) --------------------------
// A segment of at most C words (C = the chunk, a power of two) is sorted by one block in shared
// memory. A larger one (the paper's buckets reach 2n/s) goes through global memory: its chunks are
// sorted in shared memory, then for each stage k = 2C, 4C, ... up to the segment's power of two the
// steps j >= C run in global memory, one launch per step (the first as the flip i <-> i ^ (k-1),
// which keeps every comparator ascending, so positions past the segment's end are virtual pads that
// never move), and the steps j < C in shared memory, chunk by chunk.

struct SegmentItem {
  std::uint32_t segment;
  std::uint32_t chunk;
};

// Segment j is [begin[j], begin[j+1]).
struct SegmentBounds {
  const std::uint32_t* begin;
  std::uint32_t count;
};

// Writes the sorted words as (float key, value) pairs: the buckets' final output.
struct PairsOut {
  float* keys;
  std::uint32_t* values;
  __device__ __forceinline__ void operator()(std::uint32_t i, std::uint64_t w) const {
    keys[i] = key_from_ordered(key_of(w));
    values[i] = value_of(w);
  }
};
// Leaves the sorted words in place: the sorted samples.
struct WordsOut {
  std::uint64_t* data;
  __device__ __forceinline__ void operator()(std::uint32_t i, std::uint64_t w) const { data[i] = w; }
};

constexpr int kPlanThreads = 1024;

// One block lists the chunks of every segment above min_size pairs (onchip: the smaller ones were
// sorted on chip already): items[0, *item_count).
__global__ void __launch_bounds__(kPlanThreads)
    plan_chunks_kernel(SegmentBounds seg, std::uint32_t chunk, std::uint32_t min_size, SegmentItem* __restrict__ items,
                       std::uint32_t* __restrict__ item_count) {
  using Scan = cub::BlockScan<std::uint32_t, kPlanThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ std::uint32_t running;
  if (threadIdx.x == 0) running = 0;
  __syncthreads();
  for (std::uint32_t first = 0; first < seg.count; first += kPlanThreads) {
    const std::uint32_t j = first + threadIdx.x;
    std::uint32_t chunks = 0;
    if (j < seg.count) {
      const std::uint32_t size = seg.begin[j + 1] - seg.begin[j];
      chunks = size > min_size ? (size + chunk - 1) / chunk : 0;
    }
    std::uint32_t offset = 0, total = 0;
    Scan(scan_storage).ExclusiveSum(chunks, offset, total);
    offset += running;
    for (std::uint32_t c = 0; c < chunks; ++c) items[offset + c] = SegmentItem{j, c};
    __syncthreads();
    if (threadIdx.x == 0) running += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) *item_count = running;
}

__device__ __forceinline__ bool segment_of(const SegmentItem* items, const std::uint32_t* item_count, SegmentBounds seg,
                                           SegmentItem& item, std::uint32_t& begin, std::uint32_t& size) {
  if (blockIdx.x >= *item_count) return false;
  item = items[blockIdx.x];
  begin = seg.begin[item.segment];
  size = seg.begin[item.segment + 1] - begin;
  return true;
}

// Sorts one chunk in shared memory; a segment of one chunk is finished here and goes to out.
// Radix: CUB's block radix sort by key (chunk == kRadixTile; loaded blocked, stable, so the pads
// stay last), otherwise the bitonic sort of whole words.
template <class Out, bool KeyOnly, bool Radix>
__global__ void __launch_bounds__(kSortThreads)
    chunk_sort_kernel(SegmentBounds seg, const SegmentItem* __restrict__ items,
                      const std::uint32_t* __restrict__ item_count, std::uint32_t chunk, std::uint64_t* data, Out out) {
  extern __shared__ std::uint64_t smem[];
  SegmentItem item;
  std::uint32_t begin, size;
  if (!segment_of(items, item_count, seg, item, begin, size)) return;
  const std::uint32_t first = begin + item.chunk * chunk;
  const std::uint32_t count = min(chunk, size - item.chunk * chunk);
  if constexpr (Radix) {
    __shared__ typename RadixBlockSort::TempStorage storage;
    std::uint32_t k[kRadixItems], v[kRadixItems];
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = threadIdx.x * kRadixItems + e;
      const std::uint64_t w = r < count ? data[first + r] : kPadWord;
      k[e] = key_of(w);
      v[e] = value_of(w);
    }
    RadixBlockSort(storage).SortBlockedToStriped(k, v);
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = e * kSortThreads + threadIdx.x;
      if (r >= count) continue;
      if (size <= chunk)
        out(first + r, pack(k[e], v[e]));
      else
        data[first + r] = pack(k[e], v[e]);
    }
  } else {
    const std::uint32_t P = size <= chunk ? max(8u, next_pow2(size)) : chunk;
    for (std::uint32_t r = threadIdx.x; r < P; r += blockDim.x)
      smem[padded(r)] = r < count ? data[first + r] : kPadWord;
    __syncthreads();
    // Whole words even for the buckets: under a key-only order the network leaves ties (a pad and
    // a real key 0xFFFFFFFF) in any order and a pad could land inside the segment. The merges
    // after it may compare keys alone: they only ascend, so the pads above never move down.
    primitives::bitonic::block_sort<false>(smem, P);
    for (std::uint32_t r = threadIdx.x; r < count; r += blockDim.x) {
      if (size <= chunk)
        out(first + r, smem[padded(r)]);
      else
        data[first + r] = smem[padded(r)];
    }
  }
}

// One step (k, j) in global memory for the chunks of segments with 2^ceil(log2 size) >= k; flip
// pairs i with i ^ (k-1) (j = k/2), otherwise i with i + j.
template <bool KeyOnly>
__global__ void __launch_bounds__(kSortThreads)
    global_step_kernel(SegmentBounds seg, const SegmentItem* __restrict__ items,
                       const std::uint32_t* __restrict__ item_count, std::uint32_t chunk, std::uint32_t k,
                       std::uint32_t j, bool flip, std::uint64_t* data) {
  SegmentItem item;
  std::uint32_t begin, size;
  if (!segment_of(items, item_count, seg, item, begin, size)) return;
  if (size <= chunk || next_pow2(size) < k) return;
  for (std::uint32_t r = threadIdx.x; r < chunk; r += blockDim.x) {
    const std::uint32_t i = item.chunk * chunk + r;
    if (i >= size || (i & j) != 0) continue;
    const std::uint32_t partner = flip ? (i ^ (k - 1)) : (i + j);
    if (partner >= size) continue;  // a virtual pad: the maximum, already above i
    std::uint64_t a = data[begin + i], b = data[begin + partner];
    if (primitives::bitonic::word_less<KeyOnly>(b, a)) {
      data[begin + i] = b;
      data[begin + partner] = a;
    }
  }
}

// The steps j < chunk of stage k in shared memory, chunk by chunk; at the segment's last stage the
// chunk is final and goes to out.
template <class Out, bool KeyOnly>
__global__ void __launch_bounds__(kSortThreads)
    chunk_merge_kernel(SegmentBounds seg, const SegmentItem* __restrict__ items,
                       const std::uint32_t* __restrict__ item_count, std::uint32_t chunk, int chunk_log2,
                       std::uint32_t k, std::uint64_t* data, Out out) {
  extern __shared__ std::uint64_t smem[];
  SegmentItem item;
  std::uint32_t begin, size;
  if (!segment_of(items, item_count, seg, item, begin, size)) return;
  const std::uint32_t P = next_pow2(size);
  if (size <= chunk || P < k) return;
  const std::uint32_t first = begin + item.chunk * chunk;
  const std::uint32_t count = min(chunk, size - item.chunk * chunk);
  for (std::uint32_t r = threadIdx.x; r < chunk; r += blockDim.x)
    smem[padded(r)] = r < count ? data[first + r] : kPadWord;
  __syncthreads();
  primitives::bitonic::block_merge<KeyOnly>(smem, chunk, chunk_log2 - 1);
  for (std::uint32_t r = threadIdx.x; r < count; r += blockDim.x) {
    if (P == k)
      out(first + r, smem[padded(r)]);
    else
      data[first + r] = smem[padded(r)];
  }
}

}  // namespace depthsort::bucket_sort
