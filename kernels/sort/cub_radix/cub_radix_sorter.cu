// Baseline: CUB's LSD radix sort of (float, uint32) pairs (cub::DeviceRadixSort::SortPairs, the
// Onesweep path on sm_90), the library sort every paper algorithm is measured against. With
// `range=1` it uses what a depth stream gives for free: a reduction finds the keys' range, and CUB
// sorts only the bits that range spans (key_range.hpp).
#include "sort/core/signed_zero_fixup.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/primitives/cub_radix_pairs.cuh"
#include "sort/primitives/key_range.hpp"

namespace depthsort {
namespace {

class CubRadixSorter final : public Sorter {
 public:
  explicit CubRadixSorter(const CubRadixOptions& options) : Sorter("cub-radix", Backend::Gpu), range_(options.range) {}

  std::size_t workspace_bytes() const override {
    return temp_.bytes() + zero_fixup_.bytes() + range_radix_.bytes() + range_reader_.bytes();
  }

 protected:
  void do_reserve(std::size_t max_n) override {
    if (range_) {
      range_radix_ = {};
      range_radix_ = primitives::RangeRadix(max_n, name());
      if (range_reader_.bytes() == 0) range_reader_ = primitives::KeyRangeReader(name());
    }
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(sort_pairs(nullptr, bytes, SortBuffers{.n = max_n}, nullptr));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
    zero_fixup_ = SignedZeroFixup(max_n, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    StepStart sort_start = StepStart::OwnEvent;
    if (range_) {
      primitives::KeyRange host_range;
      {
        // CUB takes the bit count from the host: the one read-back of this path.
        StepScope step(timer, "key range");
        host_range = range_reader_.read(b.keys_in, b.n, stream,
                                        {primitives::RangeUse::Width::SpanBits, primitives::kMostBitsThatSaveAPass});
      }
      // CUB sorts 8-bit digits: a span of more than 24 bits saves no pass, and the two passes over
      // the keys (reduce, expand) would only add to the full sort below.
      if (host_range.span_bits() <= primitives::kMostBitsThatSaveAPass) {
        range_radix_.sort(b, range_reader_.device_range(), host_range, stream, timer, StepStart::AtLastStepEnd);
        return;
      }
      sort_start = StepStart::AtLastStepEnd;
    }
    {
      StepScope step(timer, "radix sort", sort_start);
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(sort_pairs(temp_.data(), bytes, b, stream));
    }
    StepScope step(timer, "signed-zero fixup", StepStart::AtLastStepEnd);
    zero_fixup_.run(b.keys_out, b.values_out, b.n, stream);
  }

 private:
  static cudaError_t sort_pairs(void* temp, std::size_t& bytes, const SortBuffers& b, cudaStream_t stream) {
    return primitives::cub_radix_sort_pairs(temp, bytes, b.keys_in, b.keys_out, b.values_in, b.values_out, b.n, 32,
                                            stream);
  }

  bool range_ = false;
  DeviceBuffer<unsigned char> temp_;
  SignedZeroFixup zero_fixup_;
  primitives::RangeRadix range_radix_;
  primitives::KeyRangeReader range_reader_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues& options) {
  return std::make_unique<CubRadixSorter>(CubRadixOptions::from(options));
}

}  // namespace depthsort
