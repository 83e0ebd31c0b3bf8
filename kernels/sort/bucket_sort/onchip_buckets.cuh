// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1 steps 8 and 9 fused (option onchip, not the paper's): every bucket gathered from its
// pieces and sorted by one block on chip.
// The host side is bucket_sort_sorter.cu; what every kernel shares, bucket_sort_kernels.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/bucket_sort/bucket_sort_kernels.cuh"
#include "sort/bucket_sort/local_sort.cuh"
#include "sort/bucket_sort/splitters.cuh"

namespace depthsort::bucket_sort {

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
__global__ void __launch_bounds__(kSortThreads)
    bucket_tile_kernel(const std::uint32_t* __restrict__ bucket_begin, std::uint32_t s,
                       const std::uint64_t* __restrict__ splitters, const std::uint64_t* __restrict__ source,
                       const std::uint32_t* __restrict__ offsets, const std::uint32_t* __restrict__ bounds,
                       std::uint32_t m, std::uint32_t L, bool shared_bits_skipped, float* __restrict__ keys_out,
                       std::uint32_t* __restrict__ values_out) {
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
    load_bucket_items<Gather>(kHalf + threadIdx.x * kRadixItems, size, begin, j, source, piece_start, bounds, m, L, k,
                              v);
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
