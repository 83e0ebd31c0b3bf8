// CUB's and Thrust's radix sorts treat -0.0 and +0.0 as equal keys (cub/device/device_radix_sort.cuh,
// "Floating-Point Special Cases"), but depthsort's key order (keys.hpp) puts -0.0 first. After such a
// sort every zero sits in one contiguous run; this step finds the run and puts its -0.0 keys first,
// with their values. It costs one small launch when the input has no zeros.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace depthsort {

struct SignedZeroScratch {
  std::uint32_t* run_bounds;  // 2 counters: -0.0 and +0.0 values placed
  std::uint32_t* values;      // n values
};

void fix_signed_zeros(float* keys, std::uint32_t* values, std::size_t n, SignedZeroScratch scratch,
                      cudaStream_t stream);

}  // namespace depthsort
