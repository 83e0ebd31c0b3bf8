// The multi-GPU kernels' occupancy: how many blocks of a kernel a multiprocessor of the current device holds.
#pragma once

#include <cuda_runtime.h>

#include "depthsort/sort/errors.hpp"

namespace depthsort::multi_gpu {

template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads) {
  int blocks = 0;
  DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  return blocks > 0 ? blocks : 1;
}

// The scatter's (pair_kernels.cu), for kernel_shape (splitter_kernels.cu).
int scatter_blocks_per_sm();

}  // namespace depthsort::multi_gpu
