// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1: what the kernels of steps 1-9 share (they are local_sort.cuh, segment_sort.cuh,
// splitters.cuh and onchip_buckets.cuh; the host side is bucket_sort_sorter.cu).
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

__device__ __forceinline__ std::uint32_t next_pow2(std::uint32_t x) { return x <= 1 ? 1u : 1u << (32 - __clz(x - 1)); }

}  // namespace depthsort::bucket_sort
