// Baseline: CUB's merge sort of (float, uint32) pairs (cub::DeviceMergeSort::SortPairsCopy) with
// depthsort's key order as the comparator, so it needs no fix-up.
#include <cub/device/device_merge_sort.cuh>

#include <limits>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
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
    DEPTHSORT_CUDA_CHECK(sort_pairs(nullptr, bytes, SortBuffers{.n = max_n}, nullptr));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    StepScope step(timer, "merge sort");
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(sort_pairs(temp_.data(), bytes, b, stream));
  }

 private:
  // As for cub-radix: 32-bit offsets where the size fits, 64-bit beyond.
  static cudaError_t sort_pairs(void* temp, std::size_t& bytes, const SortBuffers& b, cudaStream_t stream) {
    if (b.n <= static_cast<std::size_t>(std::numeric_limits<int>::max()))
      return cub::DeviceMergeSort::SortPairsCopy(temp, bytes, b.keys_in, b.values_in, b.keys_out, b.values_out,
                                                 static_cast<int>(b.n), KeyOrderLess{}, stream);
    return cub::DeviceMergeSort::SortPairsCopy(temp, bytes, b.keys_in, b.values_in, b.keys_out, b.values_out,
                                               static_cast<std::int64_t>(b.n), KeyOrderLess{}, stream);
  }

  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_cub_merge_sorter(const OptionValues&) { return std::make_unique<CubMergeSorter>(); }

}  // namespace depthsort
