// Owning sets of the pairs a sorter reads and writes (keys and values, in and out): in device
// memory for the GPU sorters, in host memory for the CPU sorter, each with the SortBuffers view
// of a range of its pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort {

// The four arrays of `size()` pairs, each an owning array of `Keys` or `Values` (DeviceBuffer or
// std::vector): what SortBuffers views. (multi_gpu's DevicePairs is a view of one GPU's pairs.)
template <class Keys, class Values>
struct PairBuffers {
  Keys keys_in, keys_out;
  Values values_in, values_out;

  std::size_t size() const noexcept { return keys_in.size(); }
  // The pairs at [first, first + n) as a sorter sorts them (several ranges of the same arrays can
  // be sorted apart, as the demo's separate passes do).
  SortBuffers buffers(std::size_t first, std::size_t n) noexcept {
    return SortBuffers{keys_in.data() + first, values_in.data() + first, keys_out.data() + first,
                       values_out.data() + first, n};
  }
  SortBuffers buffers() noexcept { return buffers(0, size()); }
};

// Device memory; an allocation that fails throws CapacityError naming "<owner> (input keys)" and
// so on.
struct DevicePairBuffers : PairBuffers<DeviceBuffer<float>, DeviceBuffer<std::uint32_t>> {
  DevicePairBuffers() = default;
  DevicePairBuffers(std::size_t n, const std::string& owner)
      : PairBuffers{DeviceBuffer<float>(n, owner + " (input keys)"), DeviceBuffer<float>(n, owner + " (output keys)"),
                    DeviceBuffer<std::uint32_t>(n, owner + " (input values)"),
                    DeviceBuffer<std::uint32_t>(n, owner + " (output values)")} {}
};

// Host memory, zeroed.
struct HostPairBuffers : PairBuffers<std::vector<float>, std::vector<std::uint32_t>> {
  HostPairBuffers() = default;
  explicit HostPairBuffers(std::size_t n)
      : PairBuffers{std::vector<float>(n), std::vector<float>(n), std::vector<std::uint32_t>(n),
                    std::vector<std::uint32_t>(n)} {}
};

}  // namespace depthsort
