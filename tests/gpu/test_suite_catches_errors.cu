// The GPU suite must be able to fail: sorters broken on purpose, in ways a real sorter could be,
// are run through the same sort_and_check as every registry entry, and must be caught.
#include <gtest/gtest.h>

#include <cub/device/device_radix_sort.cuh>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

enum class Defect { MinusZeroUnordered, LastPairUnwritten };

// CUB's radix sort with a planted defect: without the signed-zero fixup (-0.0 and +0.0 tie), or
// with its last output pair left as it was (poisoned).
class BrokenSorter final : public Sorter {
 public:
  explicit BrokenSorter(Defect defect) : Sorter("broken", Backend::Gpu), defect_(defect) {}
  std::size_t workspace_bytes() const override { return temp_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
        static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), max_n));
    temp_ = DeviceBuffer<unsigned char>(bytes, name());
  }
  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    StepScope step(timer, "broken sort");
    const std::size_t n = defect_ == Defect::LastPairUnwritten ? b.n - 1 : b.n;
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, b.keys_in, b.keys_out, b.values_in,
                                                         b.values_out, n, 0, 32, stream));
  }

 private:
  Defect defect_;
  DeviceBuffer<unsigned char> temp_;
};

TEST(GpuSuite, CatchesMinusZeroTiedWithPlusZero) {
  std::string why;
  if (!cuda_device_usable(&why)) GTEST_SKIP() << why;
  BrokenSorter sorter(Defect::MinusZeroUnordered);
  sorter.reserve(65537);
  EXPECT_TRUE(sort_and_check(sorter, Distribution::Uniform, 65537).ok) << "no zeros: the defect is invisible";
  const CheckResult result = sort_and_check(sorter, Distribution::Specials, 65537);
  EXPECT_FALSE(result.ok);
  std::cout << "planted defect caught: " << result.message << '\n';
}

TEST(GpuSuite, CatchesAnUnwrittenOutput) {
  std::string why;
  if (!cuda_device_usable(&why)) GTEST_SKIP() << why;
  BrokenSorter sorter(Defect::LastPairUnwritten);
  sorter.reserve(4097);
  const CheckResult result = sort_and_check(sorter, Distribution::Uniform, 4097);
  EXPECT_FALSE(result.ok);
  std::cout << "planted defect caught: " << result.message << '\n';
}

}  // namespace
}  // namespace depthsort::testing
