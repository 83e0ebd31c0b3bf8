// Baseline: CUB's LSD radix sort of (float, uint32) pairs (cub::DeviceRadixSort::SortPairs, the
// Onesweep path on sm_90), the library sort every paper algorithm is measured against.
#include <cub/device/device_radix_sort.cuh>

#include "common/signed_zero_fixup.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"

namespace depthsort {
namespace {

class CubRadixSorter final : public Sorter {
 public:
  CubRadixSorter() : Sorter("cub-radix", Backend::Gpu) {}

  std::size_t workspace_bytes() const override { return temp_.bytes() + zero_values_.bytes() + zero_run_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const float*>(nullptr),
                                                         static_cast<float*>(nullptr),
                                                         static_cast<const std::uint32_t*>(nullptr),
                                                         static_cast<std::uint32_t*>(nullptr), max_n));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
    zero_values_ = DeviceBuffer<std::uint32_t>(max_n, name());
    zero_run_ = DeviceBuffer<std::uint32_t>(4, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    {
      StepScope step(timer, "radix sort");
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, b.keys_in, b.keys_out, b.values_in,
                                                           b.values_out, b.n, 0, 32, stream));
    }
    StepScope step(timer, "signed-zero fixup");
    fix_signed_zeros(b.keys_out, b.values_out, b.n, {zero_run_.data(), zero_values_.data()}, stream);
  }

 private:
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<std::uint32_t> zero_values_;
  DeviceBuffer<std::uint32_t> zero_run_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues&) { return std::make_unique<CubRadixSorter>(); }

}  // namespace depthsort
