// The segment ids on the GPU: every GPU sorter's segments() describe
// its last sort consistently (ascending starts from 0 inside n), and launch_segment_ids gives the
// host reference's bucket for every sorted position.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

class SegmentIdsGpu : public ::testing::TestWithParam<SorterCase> {};

TEST_P(SegmentIdsGpu, SegmentsDescribeTheLastSort) {
  const SorterCase& c = GetParam();
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*c.info);
  constexpr std::size_t n = (std::size_t{1} << 20) + 3;
  std::unique_ptr<Sorter> sorter = c.info->create(c.options);
  sorter->reserve(n);
  const CheckResult sorted = sort_and_check(*sorter, Distribution::Uniform, n);
  ASSERT_TRUE(sorted) << sorted.message;

  const Segments segments = sorter->segments();
  if (segments.count == 0) GTEST_SKIP() << c.info->name << " has no buckets to show";
  ASSERT_NE(segments.starts, nullptr);
  std::vector<std::uint32_t> starts(segments.count);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(starts.data(), segments.starts, starts.size() * 4, cudaMemcpyDeviceToHost));
  const std::vector<std::uint32_t> sizes = segment_sizes(starts, n);  // throws if inconsistent
  EXPECT_EQ(sizes.size(), starts.size());

  DeviceBuffer<std::uint32_t> ids(n, "segment ids");
  DEPTHSORT_CUDA_CHECK(cudaMemset(ids.data(), 0xFF, ids.bytes()));  // poisoned
  launch_segment_ids(segments, n, ids.data(), nullptr);
  std::vector<std::uint32_t> got(n), want(n);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(got.data(), ids.data(), ids.bytes(), cudaMemcpyDeviceToHost));
  segment_ids_host(starts, n, want);
  EXPECT_EQ(got, want);
}

std::vector<SorterCase> default_cases() {
  std::vector<SorterCase> cases;
  for (const SorterInfo& info : sorter_registry())
    if (info.backend == Backend::Gpu) cases.push_back({&info, default_options(info), test_name(info.name)});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Registry, SegmentIdsGpu, ::testing::ValuesIn(default_cases()),
                         [](const auto& param) { return param.param.label; });

}  // namespace
}  // namespace depthsort::testing
