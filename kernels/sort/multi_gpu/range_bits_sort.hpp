// The local sort of a sub-range on its cut bits: CUB's radix sort of only the bits its keys may differ in.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/core/signed_zero_fixup.hpp"
#include "sort/multi_gpu/multi_gpu_kernels.hpp"
#include "sort/primitives/key_range.hpp"

namespace depthsort::multi_gpu {

// cub-radix as the local sort of a sub-range whose keys lie in [lo, hi]: CUB's radix sort of only
// the low bits in which such keys may differ (every key shares the bits above them, so the stable
// sort of the low bits leaves the order the full sort leaves), then, where the bits are all 32,
// the signed-zero fixup cub-radix ends with (no narrower range holds both -0.0 and +0.0).
class RangeBitsSort {
 public:
  RangeBitsSort(std::size_t max_n, const std::string& owner) : capacity_(max_n) {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(
        sort_pairs_bits(nullptr, bytes, SortBuffers{.n = std::max<std::size_t>(max_n, 1)}, 32, nullptr));
    temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), owner);
    zero_fixup_ = SignedZeroFixup(std::max<std::size_t>(max_n, 1), owner);
  }
  std::size_t capacity() const noexcept { return capacity_; }

  void sort(const SortBuffers& b, std::uint32_t lo, std::uint32_t hi, cudaStream_t stream) {
    if (b.n == 0) return;
    if (b.n > capacity_)
      throw CapacityError("multi_gpu: cub-radix (cut bits): " + std::to_string(b.n) + " pairs, reserved for " +
                          std::to_string(capacity_));
    const int bits = lo > hi ? 32 : primitives::KeyRange{~lo, hi}.cub_differing_bits();
    if (bits == 0) {  // every key the same bits: the order they came in is sorted
      primitives::copy_pairs_in_order(b, stream);
      return;
    }
    std::size_t bytes = temp_.bytes();
    if (bits <= primitives::kMostBitsThatSaveAPass) {
      DEPTHSORT_CUDA_CHECK(sort_pairs_bits(temp_.data(), bytes, b, bits, stream));
      return;
    }
    DEPTHSORT_CUDA_CHECK(sort_pairs_bits(temp_.data(), bytes, b, 32, stream));
    zero_fixup_.run(b.keys_out, b.values_out, b.n, stream);
  }

 private:
  std::size_t capacity_ = 0;
  DeviceBuffer<unsigned char> temp_;
  SignedZeroFixup zero_fixup_;
};

}  // namespace depthsort::multi_gpu
