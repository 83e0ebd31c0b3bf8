// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1: the kernels of steps 1-9 (the host side is bucket_sort_sorter.cu).
//
// Ties: the paper's guarantee |B_j| <= 2n/s holds for distinct keys. Every pair is made distinct
// by its position p in the array of locally sorted sublists (the order is (key, p)), so equal keys
// spread over buckets like any others and the guarantee holds for every input (all keys equal
// included). A sublist's pairs are sorted by (key, p) by construction, so a binary search in a
// sublist compares (key, i*L + r) with the splitter's (key, p).
//
// The last sublist may be short: its missing positions are virtual pads (key 0xFFFFFFFF, p >= n),
// greater than every pair; they take part in the sampling and the searches (so the guarantee
// counts them: |B_j| <= 2 * ceil(n/L) * L / s) and are never written.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "sort/primitives/bitonic_sort.cuh"
#include "sort/primitives/merge_rank.hpp"
#include "depthsort/sort/keys.hpp"

namespace depthsort::bucket_sort {

using primitives::bitonic::key_of;
using primitives::bitonic::pack;
using primitives::bitonic::padded;
using primitives::bitonic::value_of;

constexpr std::uint64_t kPadWord = ~std::uint64_t{0};
constexpr int kSortThreads = 512;   // the paper's 512 threads per block (Section 4)
constexpr int kIndexThreads = 512;  // sample indexing: s/2 searches in its last round (1024 at s = 2048)
constexpr int kMoveThreads = 512;   // relocation
// The radix block sort (radix_block_sort, not the paper's): 512 threads x 16 pairs, one tile size.
constexpr int kRadixItems = 16;
constexpr std::uint32_t kRadixTile = kSortThreads * kRadixItems;
using RadixBlockSort = cub::BlockRadixSort<std::uint32_t, kSortThreads, kRadixItems, std::uint32_t>;

__device__ __forceinline__ std::uint32_t next_pow2(std::uint32_t x) {
  return x <= 1 ? 1u : 1u << (32 - __clz(x - 1));
}

// Steps 1-3: sublist i = pairs [i*L, i*L + L) (split), sorted in shared memory by bitonic sort on
// (key, local index) words (local sort), written back as (key, value) words with every (L/s)-th
// pair taken as a sample (key, p) on the way out (local sampling, built into the write as the paper
// does). With sample_inline false the samples are left to local_sampling_kernel.
__global__ void __launch_bounds__(kSortThreads) local_sort_kernel(const float* __restrict__ keys,
                                                                  const std::uint32_t* __restrict__ values,
                                                                  std::uint32_t n, std::uint32_t L, std::uint32_t s,
                                                                  bool sample_inline, std::uint64_t* __restrict__ sorted,
                                                                  std::uint64_t* __restrict__ samples) {
  extern __shared__ std::uint64_t smem[];
  std::uint32_t* vals = reinterpret_cast<std::uint32_t*>(smem + primitives::bitonic::padded_size(L));
  const std::uint32_t base = blockIdx.x * L;
  const std::uint32_t count = min(L, n - base);
  for (std::uint32_t r = threadIdx.x; r < L; r += blockDim.x) {
    const bool real = r < count;
    smem[padded(r)] = pack(real ? ordered_key(keys[base + r]) : 0xFFFFFFFFu, r);
    vals[r] = real ? values[base + r] : 0u;
  }
  __syncthreads();
  primitives::bitonic::block_sort(smem, L);
  const std::uint32_t q = L / s;
  for (std::uint32_t r = threadIdx.x; r < L; r += blockDim.x) {
    const std::uint64_t w = smem[padded(r)];
    if (r < count) sorted[base + r] = pack(key_of(w), vals[value_of(w)]);
    if (sample_inline && (r + 1) % q == 0) samples[blockIdx.x * s + r / q] = pack(key_of(w), base + r);
  }
}

// The block radix sorts (radix_block_sort, onchip; not the paper's): CUB's BlockRadixSort of a
// tile of Threads x Items pairs, its storage in dynamic shared memory (a 16K-pair tile needs more
// than the 48 KB of static shared memory).
template <int Threads, int Items, int RadixBits>
struct RadixTile {
  static constexpr int kThreads = Threads;
  static constexpr int kItems = Items;
  static constexpr std::uint32_t kPairs = std::uint32_t{Threads} * Items;
  using Sort = cub::BlockRadixSort<std::uint32_t, Threads, Items, std::uint32_t, RadixBits>;
  using Storage = typename Sort::TempStorage;
  // Storage first, then (bucket sort with the gather) the m piece starts, 16-byte aligned.
  static constexpr std::size_t kStorageBytes = (sizeof(Storage) + 15) / 16 * 16;
};
// 8192 pairs, the tile of radix_block_sort; RadixBits (option radix_bits) 4 or 5: 5 saves a pass
// of the 8 over 32 bits (and of the ~4 over a bucket's bits) for 17 counter lanes instead of 9,
// still without spills (-Xptxas -v; 6 spills in the two-tile bucket sort).
template <int RadixBits>
using SmallTile = RadixTile<kSortThreads, kRadixItems, RadixBits>;
// onchip sorts buckets of up to two tiles on chip (bucket_tile_kernel).
constexpr std::uint32_t kOnchipTile = 2 * kRadixTile;

// Steps 1-3 with CUB's block radix sort of a tile of Tile::kPairs pairs instead of the paper's
// bitonic sort (radix_block_sort, onchip). Loaded blocked and sorted stably, so the pads (key
// 0xFFFFFFFF, last in the tile) stay after every real key, equal ones included.
template <class Tile>
__global__ void __launch_bounds__(Tile::kThreads) local_radix_sort_kernel(const float* __restrict__ keys,
                                                                          const std::uint32_t* __restrict__ values,
                                                                          std::uint32_t n, std::uint32_t s,
                                                                          bool sample_inline,
                                                                          std::uint64_t* __restrict__ sorted,
                                                                          std::uint64_t* __restrict__ samples) {
  extern __shared__ __align__(16) unsigned char local_tile_smem[];
  auto& storage = *reinterpret_cast<typename Tile::Storage*>(local_tile_smem);
  constexpr std::uint32_t kPairs = Tile::kPairs;
  const std::uint32_t base = blockIdx.x * kPairs;
  const std::uint32_t count = min(kPairs, n - base);
  std::uint32_t k[Tile::kItems], v[Tile::kItems];
  static_assert(Tile::kItems % 4 == 0);
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(keys) | reinterpret_cast<std::uintptr_t>(values)) & 15) == 0;
  if (count == kPairs && aligned) {
    // A full tile: each thread's 16 pairs as four 16-byte loads of keys and of values (one
    // instruction where the scalar loop below issues four, each touching a quarter of the lines).
    const auto* keys4 = reinterpret_cast<const float4*>(keys + base + threadIdx.x * Tile::kItems);
    const auto* values4 = reinterpret_cast<const uint4*>(values + base + threadIdx.x * Tile::kItems);
#pragma unroll
    for (int q = 0; q < Tile::kItems / 4; ++q) {
      const float4 kq = keys4[q];
      const uint4 vq = values4[q];
      k[4 * q + 0] = ordered_key(kq.x);
      k[4 * q + 1] = ordered_key(kq.y);
      k[4 * q + 2] = ordered_key(kq.z);
      k[4 * q + 3] = ordered_key(kq.w);
      v[4 * q + 0] = vq.x;
      v[4 * q + 1] = vq.y;
      v[4 * q + 2] = vq.z;
      v[4 * q + 3] = vq.w;
    }
  } else {
#pragma unroll
    for (int e = 0; e < Tile::kItems; ++e) {
      const std::uint32_t r = threadIdx.x * Tile::kItems + e;
      k[e] = r < count ? ordered_key(keys[base + r]) : 0xFFFFFFFFu;
      v[e] = r < count ? values[base + r] : 0u;
    }
  }
  typename Tile::Sort(storage).SortBlockedToStriped(k, v);
  const std::uint32_t q = kPairs / s;
#pragma unroll
  for (int e = 0; e < Tile::kItems; ++e) {
    const std::uint32_t r = e * Tile::kThreads + threadIdx.x;
    if (r < count) sorted[base + r] = pack(k[e], v[e]);
    if (sample_inline && (r + 1) % q == 0) samples[blockIdx.x * s + r / q] = pack(k[e], base + r);
  }
}

// Step 3 as its own pass (sample_inline off): s equidistant samples of each sorted sublist.
__global__ void local_sampling_kernel(const std::uint64_t* __restrict__ sorted, std::uint32_t n, std::uint32_t L,
                                      std::uint32_t s, std::uint32_t m, std::uint64_t* __restrict__ samples) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m * s) return;
  const std::uint32_t q = L / s;
  const std::uint32_t p = (t / s) * L + (t % s + 1) * q - 1;
  samples[t] = pack(p < n ? key_of(sorted[p]) : 0xFFFFFFFFu, p);
}

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
struct Segments {
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
__global__ void __launch_bounds__(kPlanThreads) plan_chunks_kernel(Segments seg, std::uint32_t chunk,
                                                                   std::uint32_t min_size,
                                                                   SegmentItem* __restrict__ items,
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

__device__ __forceinline__ bool segment_of(const SegmentItem* items, const std::uint32_t* item_count, Segments seg,
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
__global__ void __launch_bounds__(kSortThreads) chunk_sort_kernel(Segments seg, const SegmentItem* __restrict__ items,
                                                                  const std::uint32_t* __restrict__ item_count,
                                                                  std::uint32_t chunk, std::uint64_t* data, Out out) {
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
__global__ void __launch_bounds__(kSortThreads) global_step_kernel(Segments seg, const SegmentItem* __restrict__ items,
                                                                   const std::uint32_t* __restrict__ item_count,
                                                                   std::uint32_t chunk, std::uint32_t k,
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
__global__ void __launch_bounds__(kSortThreads) chunk_merge_kernel(Segments seg, const SegmentItem* __restrict__ items,
                                                                   const std::uint32_t* __restrict__ item_count,
                                                                   std::uint32_t chunk, int chunk_log2,
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

// Step 5: s - 1 equidistant global samples (splitters) of the s*m sorted samples: the last sample
// of every m, so that exactly m samples fall in each bucket (the bound of [15]).
__global__ void global_sampling_kernel(const std::uint64_t* __restrict__ sorted_samples, std::uint32_t m,
                                       std::uint32_t s, std::uint64_t* __restrict__ splitters) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j + 1 < s) splitters[j] = sorted_samples[(j + 1) * m - 1];
}

// Step 6: sublist i in shared memory; the position of every splitter in it by the paper's parallel
// binary search: round t runs 2^t searches, each for the middle splitter between two already
// placed, inside the range they bound (log2 s rounds). Writes the boundaries (row-major, m x s) and
// the bucket sizes a_ij column-major (j*m + i), the order of the prefix sum of Fig. 1. With
// bounds_by_bucket (onchip's gather) the boundaries are column-major too: bucket j reads its m
// piece starts contiguously.
__global__ void __launch_bounds__(kIndexThreads) sample_indexing_kernel(
    const std::uint64_t* __restrict__ sorted, std::uint32_t n, std::uint32_t L, std::uint32_t s, std::uint32_t m,
    const std::uint64_t* __restrict__ splitters, bool bounds_by_bucket, std::uint32_t* __restrict__ bounds,
    std::uint32_t* __restrict__ sizes) {
  extern __shared__ std::uint32_t keys_smem[];  // L keys, then s - 1 splitters (as 2 words), s + 1 positions
  std::uint64_t* split = reinterpret_cast<std::uint64_t*>(keys_smem + L);
  std::uint32_t* pos = reinterpret_cast<std::uint32_t*>(split + s);
  const std::uint32_t i = blockIdx.x;
  const std::uint32_t base = i * L;
  const std::uint32_t count = min(L, n - base);
  for (std::uint32_t r = threadIdx.x; r < L; r += blockDim.x)
    keys_smem[r] = r < count ? key_of(sorted[base + r]) : 0xFFFFFFFFu;
  for (std::uint32_t j = threadIdx.x; j + 1 < s; j += blockDim.x) split[j] = splitters[j];
  if (threadIdx.x == 0) {
    pos[0] = 0;
    pos[s] = L;
  }
  __syncthreads();
  for (std::uint32_t half = s / 2; half >= 1; half /= 2) {
    const std::uint32_t searches = s / (2 * half);
    for (std::uint32_t t = threadIdx.x; t < searches; t += blockDim.x) {
      const std::uint32_t idx = half * (2 * t + 1);  // boundary idx: pairs <= splitter idx - 1
      const std::uint64_t g = split[idx - 1];
      std::uint32_t lo = pos[idx - half], hi = pos[idx + half];
      while (lo < hi) {  // first r with (key_r, base + r) > g
        const std::uint32_t mid = (lo + hi) / 2;
        if (pack(keys_smem[mid], base + mid) <= g)
          lo = mid + 1;
        else
          hi = mid;
      }
      pos[idx] = lo;
    }
    __syncthreads();
  }
  for (std::uint32_t j = threadIdx.x; j < s; j += blockDim.x) {
    const std::uint32_t b0 = min(pos[j], count), b1 = min(pos[j + 1], count);
    bounds[bounds_by_bucket ? j * m + i : i * s + j] = b0;
    sizes[j * m + i] = b1 - b0;
  }
}

// Step 7's last part: bucket j starts at the prefix sum of column j's first entry.
__global__ void bucket_begin_kernel(const std::uint32_t* __restrict__ offsets, std::uint32_t m, std::uint32_t s,
                                    std::uint32_t n, std::uint32_t* __restrict__ begin) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < s) begin[j] = offsets[j * m];
  if (j == s) begin[s] = n;
}

// The last i < count with starts[i] <= r, for starts ascending with starts[0] <= r: the piece that
// holds pair r (relocation: of a sublist; the gather: of a bucket).
__device__ __forceinline__ std::uint32_t piece_of(const std::uint32_t* starts, std::uint32_t count, std::uint32_t r) {
  std::uint32_t lo = 0, hi = count - 1;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) / 2;
    if (starts[mid] <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Step 8: every piece A_ij of sublist i to its place l_ij (coalesced read of the sublist, writes
// contiguous within each piece).
__global__ void __launch_bounds__(kMoveThreads) relocation_kernel(const std::uint64_t* __restrict__ sorted,
                                                                  std::uint32_t n, std::uint32_t L, std::uint32_t s,
                                                                  std::uint32_t m,
                                                                  const std::uint32_t* __restrict__ bounds,
                                                                  const std::uint32_t* __restrict__ offsets,
                                                                  std::uint64_t* __restrict__ buckets) {
  extern __shared__ std::uint32_t move_smem[];  // s boundaries, s destinations
  std::uint32_t* b = move_smem;
  std::uint32_t* dest = move_smem + s;
  const std::uint32_t i = blockIdx.x;
  const std::uint32_t base = i * L;
  const std::uint32_t count = min(L, n - base);
  for (std::uint32_t j = threadIdx.x; j < s; j += blockDim.x) {
    b[j] = bounds[i * s + j];
    dest[j] = offsets[j * m + i];
  }
  __syncthreads();
  for (std::uint32_t r = threadIdx.x; r < count; r += blockDim.x) {
    const std::uint32_t j = piece_of(b, s, r);  // b[0] = 0
    buckets[dest[j] + (r - b[j])] = sorted[base + r];
  }
}

// ---- onchip (not the paper's): steps 8 and 9 with every bucket sorted by one block on chip ----
// Bucket j holds the pairs w with splitter[j-1] < w <= splitter[j] (in (key, p) order), so its
// keys lie in [key(splitter[j-1]), key(splitter[j])] and share every bit above the highest bit in
// which those two keys differ: the block radix sort runs only over the bits below (uniform keys at
// 16M, s = 2048: about 13 of 32). The pads (key 0xFFFFFFFF) have all those bits set and are loaded
// after the real pairs; the sort is stable, so they stay last.
__device__ __forceinline__ int bucket_sort_end_bit(const std::uint64_t* splitters, std::uint32_t j, std::uint32_t s,
                                                   bool shared_bits_skipped) {
  if (!shared_bits_skipped) return 32;
  const std::uint32_t lo = j == 0 ? 0u : key_of(splitters[j - 1]);
  const std::uint32_t hi = j + 1 >= s ? 0xFFFFFFFFu : key_of(splitters[j]);
  // One pass at least: CUB's block sort always runs one (a pass over no bits is not defined).
  return lo == hi ? 1 : 32 - __clz(lo ^ hi);
}

// Loads the bucket's pairs [first, first + kRadixItems) blocked into k, v (pads past size).
// Gather: piece i of bucket j (the relocation fused in) starts at pair bounds[j*m + i] of sublist
// i and holds the bucket's pairs from piece_start[i] on; the thread finds the piece of its first
// pair by binary search (piece 0 starts at 0), then walks on, past empty pieces. Otherwise the
// bucket is read from the relocated array at begin.
template <bool Gather>
__device__ __forceinline__ void load_bucket_items(std::uint32_t first, std::uint32_t size, std::uint32_t begin,
                                                  std::uint32_t j, const std::uint64_t* __restrict__ source,
                                                  const std::uint32_t* piece_start,
                                                  const std::uint32_t* __restrict__ bounds, std::uint32_t m,
                                                  std::uint32_t L, std::uint32_t (&k)[kRadixItems],
                                                  std::uint32_t (&v)[kRadixItems]) {
  if constexpr (Gather) {
    std::uint32_t i = first < size ? piece_of(piece_start, m, first) : 0;
    // Pair r of the bucket is source[from + r] while it lies in piece i (modulo 2^32: from may
    // wrap, from + r does not).
    std::uint32_t from = i * L + bounds[j * m + i] - piece_start[i];
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = first + e;
      std::uint64_t w = kPadWord;
      if (r < size) {
        if (i + 1 < m && piece_start[i + 1] <= r) {
          do {
            ++i;
          } while (i + 1 < m && piece_start[i + 1] <= r);
          from = i * L + bounds[j * m + i] - piece_start[i];
        }
        w = source[from + r];
      }
      k[e] = key_of(w);
      v[e] = value_of(w);
    }
  } else {
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = first + e;
      const std::uint64_t w = r < size ? source[begin + r] : kPadWord;
      k[e] = key_of(w);
      v[e] = value_of(w);
    }
  }
}

// Shared memory of bucket_tile_kernel: the block sort's storage; with two halves the first half's
// keys and values and the second half's keys; with the gather the m piece starts.
template <int RadixBits>
constexpr std::size_t bucket_tile_smem(int halves, bool gather, std::uint32_t m) {
  return SmallTile<RadixBits>::kStorageBytes + (halves == 2 ? std::size_t{3} * kRadixTile * 4 : 0) +
         (gather ? std::size_t{m} * 4 : 0);
}

// One block of 512 threads per bucket; the blocks of buckets above Halves * 8192 pairs return at
// once (they take the global-memory path after it). A bucket of up to 8K pairs is one tile. With
// Halves = 2 (launched when the bound is above 8K) a bucket of 8K to 16K pairs is sorted as two
// 8K halves (1024 threads x 16 pairs, the one-block tile of 16K, would have 64 registers a thread
// and spills), merged by rank: a pair of the first half goes to its index plus the number of keys
// below it in the second, a pair of the second to its index plus the number of keys up to it in
// the first (ties: first half first; pads, the largest, never count). Output: the sorted pairs.
template <int Halves, bool Gather, int RadixBits>
__global__ void __launch_bounds__(kSortThreads) bucket_tile_kernel(
    const std::uint32_t* __restrict__ bucket_begin, std::uint32_t s, const std::uint64_t* __restrict__ splitters,
    const std::uint64_t* __restrict__ source,
    const std::uint32_t* __restrict__ offsets, const std::uint32_t* __restrict__ bounds, std::uint32_t m,
    std::uint32_t L, bool shared_bits_skipped, float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out) {
  static_assert(Halves == 1 || Halves == 2);
  extern __shared__ __align__(16) unsigned char bucket_tile_smem_bytes[];
  using Tile = SmallTile<RadixBits>;
  auto& storage = *reinterpret_cast<typename Tile::Storage*>(bucket_tile_smem_bytes);
  constexpr std::uint32_t kHalf = Tile::kPairs;
  std::uint32_t* keys_a = reinterpret_cast<std::uint32_t*>(bucket_tile_smem_bytes + Tile::kStorageBytes);
  std::uint32_t* values_a = keys_a + kHalf;
  std::uint32_t* keys_b = values_a + kHalf;
  std::uint32_t* piece_start = Halves == 2 ? keys_b + kHalf : keys_a;
  const std::uint32_t j = blockIdx.x;
  const std::uint32_t begin = bucket_begin[j];
  const std::uint32_t size = bucket_begin[j + 1] - begin;
  if (size == 0 || size > Halves * kHalf) return;  // the same for the whole block
  const int end_bit = bucket_sort_end_bit(splitters, j, s, shared_bits_skipped);
  if constexpr (Gather) {
    for (std::uint32_t i = threadIdx.x; i < m; i += kSortThreads) piece_start[i] = offsets[j * m + i] - begin;
    __syncthreads();
  }
  std::uint32_t k[kRadixItems], v[kRadixItems];
  // Blocked: the pads come last and the stable sort keeps them there.
  load_bucket_items<Gather>(threadIdx.x * kRadixItems, size, begin, j, source, piece_start, bounds, m, L, k, v);
  typename Tile::Sort(storage).SortBlockedToStriped(k, v, 0, end_bit);
  // One kernel for both sizes: 512 threads of ~105-128 registers leave room for one block per SM
  // either way, and no launch goes over all buckets only to find most of them the other size.
  if (Halves == 1 || size <= kHalf) {
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = e * kSortThreads + threadIdx.x;
      if (r < size) {
        keys_out[begin + r] = key_from_ordered(k[e]);
        values_out[begin + r] = v[e];
      }
    }
  } else {
    // The first half is full (size > 8192): all real.
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = e * kSortThreads + threadIdx.x;
      keys_a[r] = k[e];
      values_a[r] = v[e];
    }
    __syncthreads();  // the storage is reused
    load_bucket_items<Gather>(kHalf + threadIdx.x * kRadixItems, size, begin, j, source, piece_start, bounds, m, L,
                              k, v);
    typename Tile::Sort(storage).SortBlockedToStriped(k, v, 0, end_bit);
#pragma unroll
    for (int e = 0; e < kRadixItems; ++e) keys_b[e * kSortThreads + threadIdx.x] = k[e];
    __syncthreads();
#pragma unroll 4
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = e * kSortThreads + threadIdx.x;
      const std::uint32_t key = keys_a[r];
      const std::uint32_t place = primitives::place_of_first(r, key, keys_b, kHalf);
      keys_out[begin + place] = key_from_ordered(key);
      values_out[begin + place] = values_a[r];
    }
    const std::uint32_t real_b = size - kHalf;
#pragma unroll  // k and v stay in registers only if every index is a constant
    for (int e = 0; e < kRadixItems; ++e) {
      const std::uint32_t r = e * kSortThreads + threadIdx.x;
      if (r >= real_b) continue;
      const std::uint32_t place = primitives::place_of_second(r, k[e], keys_a, kHalf);
      keys_out[begin + place] = key_from_ordered(k[e]);
      values_out[begin + place] = v[e];
    }
  }
}

}  // namespace depthsort::bucket_sort
