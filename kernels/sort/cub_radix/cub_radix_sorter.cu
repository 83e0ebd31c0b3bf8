// Baseline: CUB's LSD radix sort of (float, uint32) pairs (cub::DeviceRadixSort::SortPairs, the
// Onesweep path on sm_90), the library sort every paper algorithm is measured against.
#include <cub/device/device_radix_sort.cuh>

#include <limits>

#include "sort/core/signed_zero_fixup.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"

namespace depthsort {
namespace {

class CubRadixSorter final : public Sorter {
 public:
  CubRadixSorter() : Sorter("cub-radix", Backend::Gpu) {}

  std::size_t workspace_bytes() const override { return temp_.bytes() + zero_fixup_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(sort_pairs(nullptr, bytes, SortBuffers{.n = max_n}, nullptr));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
    zero_fixup_ = SignedZeroFixup(max_n, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    {
      StepScope step(timer, "radix sort");
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(sort_pairs(temp_.data(), bytes, b, stream));
    }
    StepScope step(timer, "signed-zero fixup");
    zero_fixup_.run(b.keys_out, b.values_out, b.n, stream);
  }

 private:
  // CUB picks its offset type from the type of num_items: sizes that fit go as int, the type the
  // reference numbers (shared/ANCHORS.md) were measured with; 64-bit offsets were slower there.
  static cudaError_t sort_pairs(void* temp, std::size_t& bytes, const SortBuffers& b, cudaStream_t stream) {
    if (b.n <= static_cast<std::size_t>(std::numeric_limits<int>::max()))
      return cub::DeviceRadixSort::SortPairs(temp, bytes, b.keys_in, b.keys_out, b.values_in, b.values_out,
                                             static_cast<int>(b.n), 0, 32, stream);
    return cub::DeviceRadixSort::SortPairs(temp, bytes, b.keys_in, b.keys_out, b.values_in, b.values_out, b.n, 0, 32,
                                           stream);
  }

  DeviceBuffer<unsigned char> temp_;
  SignedZeroFixup zero_fixup_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues&) { return std::make_unique<CubRadixSorter>(); }

}  // namespace depthsort
