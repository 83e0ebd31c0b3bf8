// Every GPU sorter of the registry (defaults and each flag flipped) configured for the shared memory
// of smaller GPUs than the one present: DEPTHSORT_SHARED_MEMORY_PER_BLOCK at 64 KB (sm_75) and
// 99 KB (sm_86, sm_89) makes each size its kernels as it would there (bucket-sort's one-tile
// on-chip sort and smaller chunks, hybrid's counters in global memory beyond their room, ...),
// and every result is checked; run-bucket's bucket path (a second sort of input in key order) too.
// On an H100 or H200 this runs the configurations of those cards with this build's code paths.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <string>

#include "depthsort/sort/errors.hpp"
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/staging.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

// Sets the limit for one scope, and puts back what was there.
class SharedMemoryLimit {
 public:
  explicit SharedMemoryLimit(const std::string& bytes) {
    if (const char* old = std::getenv(primitives::kSharedMemoryLimitVariable)) old_ = old;
    setenv(primitives::kSharedMemoryLimitVariable, bytes.c_str(), 1);
  }
  ~SharedMemoryLimit() {
    if (old_)
      setenv(primitives::kSharedMemoryLimitVariable, old_->c_str(), 1);
    else
      unsetenv(primitives::kSharedMemoryLimitVariable);
  }
  SharedMemoryLimit(const SharedMemoryLimit&) = delete;
  SharedMemoryLimit& operator=(const SharedMemoryLimit&) = delete;

 private:
  std::optional<std::string> old_;
};

// The opt-in shared memory per block of sm_75, and of sm_86 and sm_89.
constexpr std::array<std::size_t, 2> kLimits = {64 * 1024, 99 * 1024};

class SmallerSharedMemory : public ::testing::TestWithParam<std::tuple<SorterCase, std::size_t>> {};

TEST_P(SmallerSharedMemory, EverySorterSortsWithinIt) {
  const auto& [sorter_case, limit] = GetParam();
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*sorter_case.info);
  // 64 KB a block is Turing's, which runs code for sm_75: code for a newer architecture (which
  // may keep two buffers of a stage, primitives/staging.hpp) never meets so little. The ptx75
  // build is tested at that limit (scripts/gpu-suite.sh, docs/gpus.md).
  constexpr std::size_t kSmallestAfterTuring = 99 * 1024;
  if (limit < kSmallestAfterTuring && primitives::library_arch() >= 800)
    GTEST_SKIP() << "a block of " << limit / 1024 << " KB is sm_75's, and this build's code is for sm_"
                 << primitives::library_arch() / 10 << ": the sm_75 (ptx75) build runs this case";
  const SharedMemoryLimit scope(std::to_string(limit));
  int device = 0, optin = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
  EXPECT_EQ(primitives::shared_memory_per_block(), std::min(limit, static_cast<std::size_t>(optin)));
  const std::unique_ptr<Sorter> sorter = sorter_case.info->create(sorter_case.options);
  constexpr std::size_t k4M = std::size_t{1} << 22;
  check_sorter(*sorter, Distribution::Uniform, std::array<std::size_t, 4>{1000, 65537, (1u << 20) + 7, k4M});
  // The same instance twice on input in key order: run-bucket takes its bucket path the second time.
  check_sorter(*sorter, Distribution::Sorted, std::array<std::size_t, 2>{k4M, k4M});
  check_sorter(*sorter, Distribution::CameraStep, std::array<std::size_t, 2>{k4M, k4M});
}

INSTANTIATE_TEST_SUITE_P(Registry, SmallerSharedMemory,
                         ::testing::Combine(::testing::ValuesIn(sorter_cases(Backend::Gpu)),
                                            ::testing::ValuesIn(kLimits)),
                         [](const auto& info) {
                           return std::get<0>(info.param).label + "_" + std::to_string(std::get<1>(info.param) / 1024) +
                                  "KB";
                         });

TEST(SharedMemoryLimitVariable, NotANumberIsAClearError) {
  std::string why_not;
  if (!cuda_device_usable(&why_not)) GTEST_SKIP() << why_not;
  const SharedMemoryLimit scope("64K");
  EXPECT_THROW(primitives::shared_memory_per_block(), CapacityError);
}

}  // namespace
}  // namespace depthsort::testing
