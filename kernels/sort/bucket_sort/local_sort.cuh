// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1 steps 1-3: split, local sort and local sampling (step `local sort`).
// The host side is bucket_sort_sorter.cu; what every kernel shares, bucket_sort_kernels.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/bucket_sort/bucket_sort_kernels.cuh"

namespace depthsort::bucket_sort {

// Steps 1-3: sublist i = pairs [i*L, i*L + L) (split), sorted in shared memory by bitonic sort on
// (key, local index) words (local sort), written back as (key, value) words with every (L/s)-th
// pair taken as a sample (key, p) on the way out (local sampling, built into the write as the paper
// does). With sample_inline false the samples are left to local_sampling_kernel.
__global__ void __launch_bounds__(kSortThreads)
    local_sort_kernel(const float* __restrict__ keys, const std::uint32_t* __restrict__ values, std::uint32_t n,
                      std::uint32_t L, std::uint32_t s, bool sample_inline, std::uint64_t* __restrict__ sorted,
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
__global__ void __launch_bounds__(Tile::kThreads)
    local_radix_sort_kernel(const float* __restrict__ keys, const std::uint32_t* __restrict__ values, std::uint32_t n,
                            std::uint32_t s, bool sample_inline, std::uint64_t* __restrict__ sorted,
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

}  // namespace depthsort::bucket_sort
