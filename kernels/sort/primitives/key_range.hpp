// The key range of a depth stream, and the radix sort of only the bits that range spans.
//
// A frame's depths lie between a near and a far distance. Their ordered keys (keys.hpp) minus the
// smallest one keep the key order exactly and need only as many bits as the range spans: a radix
// sort of those bits alone skips the digit passes whose digits are equal in every key. Used by
// cub-radix's `range` option: the library sort told the range (docs/results/baselines.md has what
// it gains and what the reduction and the two key passes around it cost).
#pragma once

#include <cuda_runtime_api.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "depthsort/device_buffer.hpp"
#include "depthsort/sorter.hpp"

namespace depthsort::primitives {

// The smallest and largest ordered key of a set, as one reduction leaves it on the device:
// `lo_complement` is ~lo, so that both ends are found by atomicMax from a zeroed struct.
struct KeyRange {
  std::uint32_t lo_complement = 0;
  std::uint32_t hi = 0;
  constexpr std::uint32_t lo() const noexcept { return ~lo_complement; }
  // Bits of (ordered key - lo) for every key of the range: 0 when all keys have the same bits.
  constexpr int span_bits() const noexcept { return static_cast<int>(std::bit_width(hi - lo())); }
};

// Zeroes *range and reduces keys[0, n) into it, stream-ordered. n >= 1.
void launch_key_range(const float* keys, std::size_t n, KeyRange* range, cudaStream_t stream);

// keys[i] -> ordered_key(keys[i]) - range.lo (reduced keys), and back.
void launch_reduce_keys(const float* keys, std::size_t n, const KeyRange* range, std::uint32_t* reduced,
                        cudaStream_t stream);
void launch_expand_keys(std::uint32_t* keys_in_place, std::size_t n, const KeyRange* range, cudaStream_t stream);

// CUB's radix sort of the reduced keys on bits [0, span_bits): exact in depthsort's key order
// (reduced keys are unsigned integers, so -0.0 and +0.0 stay apart without a fixup). Workspace is
// reserved once; sort() allocates nothing.
class RangeRadix {
 public:
  RangeRadix() = default;
  RangeRadix(std::size_t max_n, const std::string& owner);
  std::size_t bytes() const noexcept { return temp_.bytes() + reduced_.bytes(); }

  // `range` is the device copy of the keys' range, `host_range` the same values read back (CUB
  // takes the bit count from the host). Writes the sorted pairs to b.keys_out / b.values_out.
  void sort(const SortBuffers& b, const KeyRange* range, const KeyRange& host_range, cudaStream_t stream,
            StepTimer& timer);

 private:
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<std::uint32_t> reduced_;
};

}  // namespace depthsort::primitives
