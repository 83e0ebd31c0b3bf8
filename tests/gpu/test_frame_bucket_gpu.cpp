// frame-bucket (issue 13) on sequences of sorts on ONE instance: which path each sort takes (the
// named steps), the buckets it reports (segments), and exactness every time: repeated inputs
// (state fits, bucket path), arbitrary inputs (overflow, fallback in the same sort), equal keys
// (buckets of one value, copied at any size), specials, size changes, the options' extremes and
// splitters too many for shared memory. Skipped without a usable CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "depthsort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

class FrameBucketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    info_ = find_sorter("frame-bucket");
    ASSERT_NE(info_, nullptr);
    std::string why;
    if (!info_->is_available(&why)) GTEST_SKIP() << why;
  }

  std::unique_ptr<Sorter> make(std::string_view options, std::size_t max_n) {
    std::unique_ptr<Sorter> sorter = info_->create(parse_options(*info_, options));
    sorter->reserve(max_n);
    return sorter;
  }

  // The suite's sort and check (keys of a fixed seed per dist and n, so a repeat is the same
  // input); *steps gets the names of the steps the sort ran.
  static CheckResult sort(Sorter& sorter, Distribution dist, std::size_t n, std::vector<std::string>* steps) {
    CheckResult result = sort_and_check(sorter, dist, n);
    if (steps) {
      steps->clear();
      for (const StepTime& step : sorter.timer().wait_last()) steps->emplace_back(step.name);
    }
    return result;
  }

  // The reported buckets: count buckets, ascending starts from 0, each at most n.
  static void expect_segments(const Sorter& sorter, std::size_t n, std::uint32_t buckets) {
    const Segments segments = sorter.segments();
    ASSERT_EQ(segments.count, buckets);
    ASSERT_NE(segments.starts, nullptr);
    std::vector<std::uint32_t> starts(segments.count);
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpy(starts.data(), segments.starts, starts.size() * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(starts.front(), 0u);
    EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
    EXPECT_LE(starts.back(), n);
    EXPECT_STREQ(segments.kind, "bucket");
  }

  static bool ran(const std::vector<std::string>& steps, std::string_view name) {
    return std::find(steps.begin(), steps.end(), name) != steps.end();
  }
  static std::string joined(const std::vector<std::string>& steps) {
    std::string text;
    for (const std::string& step : steps) text += step + ' ';
    return text;
  }

  const SorterInfo* info_ = nullptr;
};

// First sort: no state, cub-radix; the same input again fits last frame's slots: bucket path.
TEST_F(FrameBucketTest, RepeatedInputTakesTheBucketPath) {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::unique_ptr<Sorter> sorter = make("", n);
  std::vector<std::string> steps;
  for (Distribution dist : {Distribution::CameraStep, Distribution::Uniform, Distribution::Specials,
                            Distribution::NanPayloads, Distribution::AllEqual, Distribution::HalfEqual,
                            Distribution::FewUnique, Distribution::Zipf, Distribution::Outliers}) {
    const std::string what(distribution_name(dist));
    CheckResult first = sort(*sorter, dist, n, &steps);
    EXPECT_TRUE(first.ok) << what << " (first): " << first.message;
    CheckResult again = sort(*sorter, dist, n, &steps);
    EXPECT_TRUE(again.ok) << what << " (again): " << again.message;
    EXPECT_TRUE(ran(steps, "bucket-sort") && !ran(steps, "fallback-cub") && ran(steps, "keep-splitters"))
        << what << ": steps " << joined(steps);
    expect_segments(*sorter, n, static_cast<std::uint32_t>(2 * ((n + 3839) / 3840) - 1));
  }
}

// Arbitrary input after coherent ones: overflow detected, cub-radix in the same sort, exact;
// then coherent input again. A size change discards the state.
TEST_F(FrameBucketTest, FallsBackOnOverflowAndSizeChange) {
  const std::size_t n = (std::size_t{1} << 20) + 77;
  const std::unique_ptr<Sorter> sorter = make("", n);
  std::vector<std::string> steps;
  ASSERT_TRUE(sort(*sorter, Distribution::Sorted, n, &steps).ok);
  EXPECT_TRUE(ran(steps, "fallback-cub")) << joined(steps);
  const CheckResult step = sort(*sorter, Distribution::Swaps16, n, &steps);
  EXPECT_TRUE(step.ok) << step.message;
  EXPECT_TRUE(ran(steps, "bucket-sort")) << joined(steps);
  // Gaussian keys into uniform [0,1) splitters: most buckets overflow.
  const CheckResult cut = sort(*sorter, Distribution::Gaussian, n, &steps);
  EXPECT_TRUE(cut.ok) << cut.message;
  EXPECT_TRUE(ran(steps, "validate") && ran(steps, "fallback-cub") && !ran(steps, "bucket-sort")) << joined(steps);
  EXPECT_EQ(sorter->segments().count, 0u);
  for (std::size_t size : {n - 1, std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{4095},
                           std::size_t{4097}, std::size_t{8193}, n}) {
    const CheckResult first = sort(*sorter, Distribution::LocalDisplace, size, &steps);
    EXPECT_TRUE(first.ok) << "n=" << size << ": " << first.message;
    if (size > 0) {
      EXPECT_TRUE(ran(steps, "fallback-cub")) << "n=" << size << ": " << joined(steps);
    }
    const CheckResult again = sort(*sorter, Distribution::LocalDisplace, size, &steps);
    EXPECT_TRUE(again.ok) << "n=" << size << " again: " << again.message;
  }
}

// The options' extremes: the smallest buckets with no slack, the largest with the most.
TEST_F(FrameBucketTest, OptionExtremesStayExact) {
  const std::size_t n = 3 * (std::size_t{1} << 18) + 11;
  for (const char* options : {"bucket=1024,slack_pct=0", "bucket=6144,slack_pct=100"}) {
    const std::unique_ptr<Sorter> sorter = make(options, n);
    for (Distribution dist : {Distribution::CameraStep, Distribution::CameraStep, Distribution::SwapsSparse,
                              Distribution::Reverse, Distribution::TwoValues, Distribution::TwoValues,
                              Distribution::GroundPlane, Distribution::LocalDisplace}) {
      const CheckResult result = sort(*sorter, dist, n, nullptr);
      EXPECT_TRUE(result.ok) << options << ", " << distribution_name(dist) << ": " << result.message;
    }
  }
}

// More splitters than shared memory holds (12288, two per 1024 pairs here): searched in global memory.
TEST_F(FrameBucketTest, SplittersInGlobalMemory) {
  const std::size_t n = std::size_t{7} << 20;
  const std::unique_ptr<Sorter> sorter = make("bucket=1024", n);
  std::vector<std::string> steps;
  ASSERT_TRUE(sort(*sorter, Distribution::CameraStep, n, &steps).ok);
  const CheckResult again = sort(*sorter, Distribution::CameraStep, n, &steps);
  EXPECT_TRUE(again.ok) << again.message;
  EXPECT_TRUE(ran(steps, "bucket-sort")) << joined(steps);
}

}  // namespace
}  // namespace depthsort::testing
