// depthsort-multigpu --bench: the exactness of each measured sort's output, checked on the GPUs
// (depthsort's own). The CPU reference (--check) would sort 1G keys on the host; here every check
// is a pass over the output: each range in key order and the ranges in order, every value an input
// index that appears exactly once, each beside its own input key, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"

namespace depthsort::multi_gpu {

// One GPU's part of a sorted output.
struct OutputRange {
  int device = 0;
  const float* keys = nullptr;
  const std::uint32_t* values = nullptr;
  std::size_t count = 0;
};

class DeviceCheck {
 public:
  // A bitmap of n bits on each device (the values each range holds) and a few counters. Every
  // device must reach devices[0]'s memory (peer access), where the input keys and the union of the
  // bitmaps are read.
  DeviceCheck(std::span<const int> devices, std::size_t n);
  DeviceCheck(const DeviceCheck&) = delete;
  DeviceCheck& operator=(const DeviceCheck&) = delete;

  // Empty when `ranges`, in key order, hold the sorted pairs of an input of n pairs whose keys are
  // source_keys (on devices[0]) and whose values are value_for_index(i) (workload.hpp); otherwise
  // what is wrong, with counts. Synchronizes.
  std::string check(std::span<const OutputRange> ranges, const float* source_keys, std::size_t n);

 private:
  struct Part {
    int device = 0;
    DeviceBuffer<std::uint32_t> bitmap;
    DeviceBuffer<unsigned long long> tally;  // unsorted, out of range, wrong key, duplicate, union bits
  };
  std::vector<Part> parts_;
  std::size_t n_ = 0;
};

}  // namespace depthsort::multi_gpu
