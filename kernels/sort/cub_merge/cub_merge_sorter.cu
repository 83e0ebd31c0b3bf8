// Baseline: CUB's merge sort of (float, uint32) pairs (cub::DeviceMergeSort::SortPairsCopy) with
// depthsort's key order as the comparator, so it needs no fix-up.
#include <cub/device/device_merge_sort.cuh>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "depthsort/keys.hpp"
#include "sort/baselines.hpp"

namespace depthsort {
namespace {

struct KeyOrderLess {
  __device__ bool operator()(float a, float b) const { return ordered_key(a) < ordered_key(b); }
};

class CubMergeSorter final : public Sorter {
 public:
  CubMergeSorter() : Sorter("cub-merge", Backend::Gpu) {}

  std::size_t workspace_bytes() const override { return temp_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceMergeSort::SortPairsCopy(
        nullptr, bytes, static_cast<const float*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<float*>(nullptr), static_cast<std::uint32_t*>(nullptr), static_cast<std::int64_t>(max_n),
        KeyOrderLess{}));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    StepScope step(timer, "merge sort");
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceMergeSort::SortPairsCopy(temp_.data(), bytes, b.keys_in, b.values_in,
                                                             b.keys_out, b.values_out,
                                                             static_cast<std::int64_t>(b.n), KeyOrderLess{}, stream));
  }

 private:
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_merge_sorter(const OptionValues&) { return std::make_unique<CubMergeSorter>(); }

}  // namespace depthsort
