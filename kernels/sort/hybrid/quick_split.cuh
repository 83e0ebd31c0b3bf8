// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 5.2, the partial quicksort of `hybrid-quick` (steps `partition-NN`): the sublist and side
// of every key, the median-of-three pivots and the offsets of each pass. The passes count and
// scatter with the kernels of bucketing.cuh.
#pragma once

#include <cstdint>

#include "sort/primitives/warp_block.cuh"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {

// Section 5.2: the sublist of a position (offsets of K sublists, then the set-aside sublist of the
// largest possible key), then which side of the sublist's pivot the key falls.
struct QuickSplit {
  const std::uint32_t* qoff;  // K + 2 entries: K active sublists, the set-aside one, then n
  const std::uint32_t* pivot;
  std::uint32_t K;
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t position, std::uint32_t k) const {
    std::uint32_t lo = 0, hi = K + 2;  // upper_bound(qoff, position) - 1
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) >> 1;
      if (__ldg(qoff + mid) <= position)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::uint32_t s = lo - 1;
    if (s >= K || k == kSentinelHigh) return 2 * K;
    return 2 * s + (k >= __ldg(pivot + s) ? 1u : 0u);
  }
  __device__ __forceinline__ QuickSplit prepare() const { return *this; }
};

// ---------------------------------------------------------------------------------------------
// Section 5.2, partial quicksort: per pass, every sublist is split around the median of its
// first, middle and last keys (the histogram is not used, as in the paper). The keys equal to the
// largest possible key are set aside in a last sublist on the first pass (never merged).
// ---------------------------------------------------------------------------------------------
template <class Src>
__global__ void quick_pivot_kernel(Src src, const std::uint32_t* __restrict__ qoff, std::uint32_t K,
                                   std::uint32_t* __restrict__ pivot) {
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < K; s += gridDim.x * blockDim.x) {
    const std::uint32_t lo = qoff[s], hi = qoff[s + 1];
    std::uint32_t p = 0;
    if (hi > lo) {
      const std::uint32_t x = src.key(lo), y = src.key(lo + (hi - lo) / 2), z = src.key(hi - 1);
      p = max(min(x, y), min(max(x, y), z));
    }
    pivot[s] = p;
  }
}

__global__ void quick_init_kernel(std::uint32_t* qoff, std::uint32_t n) {
  qoff[0] = 0;
  qoff[1] = n;
  qoff[2] = n;
}

// Offsets of the 2K+1 new sublists (one block); the scatter's cursors start at the offsets.
__global__ void __launch_bounds__(Policy::kOneBlock)
    quick_offsets_kernel(const std::uint32_t* __restrict__ counts, int buckets, std::uint32_t* qoff,
                         std::uint32_t* cursor) {
  // Ends with a barrier: qoff is complete.
  primitives::block_cumulative_counts<Policy::kOneBlock>(counts, buckets, qoff);
  for (int i = threadIdx.x; i < buckets; i += Policy::kOneBlock) cursor[i] = qoff[i];
}

}  // namespace depthsort::hybrid
