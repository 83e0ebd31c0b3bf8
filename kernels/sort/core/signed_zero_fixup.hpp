// CUB's and Thrust's radix sorts treat -0.0 and +0.0 as equal keys (cub/device/device_radix_sort.cuh,
// "Floating-Point Special Cases"), but depthsort's key order (keys.hpp) puts -0.0 first. After such a
// sort every zero sits in one contiguous run; this step finds the run and puts its -0.0 keys first,
// with their values. It costs one small launch when the input has no zeros.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "depthsort/sort/device_buffer.hpp"

namespace depthsort {

class SignedZeroFixup {
 public:
  SignedZeroFixup() = default;
  // Scratch for up to max_n pairs, and the launch shape, found once here rather than every frame.
  SignedZeroFixup(std::size_t max_n, const std::string& owner);

  // keys/values: n sorted pairs in device memory, n at most the reserved max_n. Where `ends` is
  // given (two words the device can write, page-locked ones included) and n >= 2, the fixed
  // output's first and last ordered keys (keys.hpp), its key range, are written there too.
  void run(float* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream, std::uint32_t* ends = nullptr);
  std::size_t bytes() const noexcept { return counters_.bytes() + values_.bytes(); }

 private:
  DeviceBuffer<std::uint32_t> counters_;  // -0.0 and +0.0 values placed so far
  DeviceBuffer<std::uint32_t> values_;    // the run's values, -0.0 ones first
  int blocks_ = 0;
};

}  // namespace depthsort
