// Baseline: CUB's LSD radix sort of (float, uint32) pairs (cub::DeviceRadixSort::SortPairs, the
// Onesweep path on sm_90), the library sort every paper algorithm is measured against. With
// `range=1` it is told what a depth stream gives for free: a reduction finds the keys' range, and CUB
// sorts only the bits that range spans (key_range.hpp), the honest baseline of range-bucket.
#include <cub/device/device_radix_sort.cuh>

#include <limits>

#include "common/signed_zero_fixup.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/key_range/key_range.hpp"

namespace depthsort {
namespace {

class CubRadixSorter final : public Sorter {
 public:
  explicit CubRadixSorter(bool range) : Sorter("cub-radix", Backend::Gpu), range_(range) {}

  std::size_t workspace_bytes() const override {
    return temp_.bytes() + zero_fixup_.bytes() + range_radix_.bytes() + device_range_.bytes();
  }

 protected:
  void do_reserve(std::size_t max_n) override {
    if (range_) {
      range_radix_ = {};
      range_radix_ = key_range::RangeRadix(max_n, name());
      device_range_ = DeviceBuffer<key_range::KeyRange>(1, name());
      return;
    }
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(sort_pairs(nullptr, bytes, SortBuffers{.n = max_n}, nullptr));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
    zero_fixup_ = SignedZeroFixup(max_n, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    if (range_) {
      key_range::KeyRange host_range;
      {
        // CUB takes the bit count from the host: the one read-back of this path.
        StepScope step(timer, "key range");
        key_range::launch_key_range(b.keys_in, b.n, device_range_.data(), stream);
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&host_range, device_range_.data(), sizeof host_range,
                                             cudaMemcpyDeviceToHost, stream));
        DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
      }
      range_radix_.sort(b, device_range_.data(), host_range, stream, timer);
      return;
    }
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

  bool range_ = false;
  DeviceBuffer<unsigned char> temp_;
  SignedZeroFixup zero_fixup_;
  key_range::RangeRadix range_radix_;
  DeviceBuffer<key_range::KeyRange> device_range_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues& options) {
  const auto range = options.find("range");
  return std::make_unique<CubRadixSorter>(range != options.end() && range->second != 0);
}

}  // namespace depthsort
