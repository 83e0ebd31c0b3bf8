// CUB's radix sort of pairs on bits [0, end_bit), with the offset type CUB picks from num_items:
// sizes that fit go as int, the type the reference numbers were measured with; 64-bit offsets were
// slower on an H200 at 16M pairs (docs/results/baselines.md). Shared by cub-radix (float keys) and
// the range-reduced sort (key_range.hpp, uint32 keys).
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace depthsort::primitives {

template <class Key>
cudaError_t cub_radix_sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                                 const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n, int end_bit,
                                 cudaStream_t stream) {
  if (n <= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, static_cast<int>(n),
                                           0, end_bit, stream);
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit, stream);
}

}  // namespace depthsort::primitives
