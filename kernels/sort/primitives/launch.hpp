// Host-side launch arithmetic every sorter's host code needs: grid sizes and the powers of two
// the sorting networks and merge passes are counted in.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "depthsort/sort/errors.hpp"

namespace depthsort::primitives {

// Blocks of per_block work items each to cover `work` items: at least 1 (a launch of zero blocks
// is an error), at most cap (a grid-stride loop covers the rest).
inline unsigned grid_for(std::size_t work, unsigned per_block, unsigned cap = UINT_MAX) {
  const std::size_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, cap));
}

// ceil(log2(x)), 0 for x <= 1: the passes of a merge of x runs, the stages of a network on x keys.
inline int ceil_log2(std::uint64_t x) {
  int r = 0;
  while ((std::uint64_t{1} << r) < x) ++r;
  return r;
}

// The least power of two >= x (1 for x <= 1).
inline std::uint64_t next_pow2(std::uint64_t x) { return std::uint64_t{1} << ceil_log2(x); }

// Multiprocessors of the current device: persistent grids are sized in them.
inline int multiprocessor_count() {
  int device = 0, count = 0;
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace depthsort::primitives
