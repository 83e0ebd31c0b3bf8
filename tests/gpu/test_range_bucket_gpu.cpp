// range-bucket and cub-radix's `range` option beyond the generic suite: one instance through a
// chain of unrelated inputs (sizes from 1 to 16M, distributions that change the key range, the
// bucket sizes and the path taken each time), and each of range-bucket's paths (every bucket on
// chip, big buckets, fallback) shown taken, by the step timings the sorter reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

struct ChainCase {
  std::string sorter;
  std::string options;
};
void PrintTo(const ChainCase& c, std::ostream* out) { *out << c.sorter << ':' << c.options; }

class RangeChain : public ::testing::TestWithParam<ChainCase> {};

TEST_P(RangeChain, OneInstanceExactOnUnrelatedInputs) {
  const SorterInfo* info = find_sorter(GetParam().sorter);
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = info->create(parse_options(*info, GetParam().options));
  const std::size_t max_n = std::size_t{16} << 20;
  sorter->reserve(max_n);
  const std::pair<Distribution, std::size_t> chain[] = {
      {Distribution::Uniform, max_n},          {Distribution::Sorted, 1},
      {Distribution::Outliers, (1 << 20) + 3}, {Distribution::NanPayloads, 4099},
      {Distribution::Reverse, max_n - 1},      {Distribution::AllEqual, 70000},
      {Distribution::TwoClusters, 5 << 20},    {Distribution::Specials, 12345},
      {Distribution::Mesh, 2 << 20},           {Distribution::HalfEqual, 8193},
      {Distribution::GroundPlane, 3 << 20},    {Distribution::Zipf, 1 << 20},
      {Distribution::NearlySorted, 2},         {Distribution::CameraStep, (4 << 20) + 1},
      {Distribution::FewUnique, 100003},       {Distribution::Gaussian, 7},
      {Distribution::Uniform, 0},              {Distribution::Uniform, 1 << 20},
  };
  for (const auto& [dist, n] : chain) {
    const CheckResult result = sort_and_check(*sorter, dist, n);
    EXPECT_TRUE(result.ok) << sorter->name() << " " << GetParam().options << ", " << distribution_name(dist)
                           << " n=" << n << ": " << result.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Sorters, RangeChain,
                         ::testing::Values(ChainCase{"range-bucket", ""}, ChainCase{"range-bucket", "bucket_pairs=8"},
                                           ChainCase{"range-bucket", "bucket_pairs=13"},
                                           ChainCase{"cub-radix", "range=1"}),
                         [](const auto& info) { return test_name(info.param.sorter + "_" + info.param.options); });

// The step names of one sort of `dist` at size n.
std::vector<std::string> steps_of(Sorter& sorter, Distribution dist, std::size_t n) {
  const CheckResult result = sort_and_check(sorter, dist, n);
  EXPECT_TRUE(result.ok) << distribution_name(dist) << ": " << result.message;
  std::vector<std::string> names;
  for (const StepTime& step : sorter.timer().wait_last()) names.emplace_back(step.name);
  return names;
}

bool has_step(const std::vector<std::string>& steps, std::string_view prefix) {
  return std::any_of(steps.begin(), steps.end(), [&](const std::string& s) { return s.starts_with(prefix); });
}

TEST(RangeBucketPaths, EveryPathTakenAndExact) {
  const SorterInfo* info = find_sorter("range-bucket");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = info->create(default_options(*info));
  const std::size_t n = std::size_t{4} << 20;
  sorter->reserve(n);
  bool on_chip_only = false, big = false, fallback = false;
  for (const Distribution dist : all_distributions()) {
    const std::vector<std::string> steps = steps_of(*sorter, dist, n);
    const bool dist_fallback = has_step(steps, "fallback");
    const bool dist_big = has_step(steps, "big buckets");
    std::cout << distribution_name(dist) << ": "
              << (dist_fallback ? "fallback-cub" : dist_big ? "bucket sort + big buckets" : "bucket sort") << '\n';
    fallback |= dist_fallback;
    big |= dist_big;
    on_chip_only |= !dist_fallback && !dist_big;
  }
  EXPECT_TRUE(on_chip_only) << "no distribution sorted every bucket on chip";
  EXPECT_TRUE(big) << "no distribution took the big-bucket path";
  EXPECT_TRUE(fallback) << "no distribution took the fallback";
  // Two key values: two buckets of half the pairs each, the structure is not there.
  EXPECT_TRUE(has_step(steps_of(*sorter, Distribution::TwoValues, n), "fallback"));
}

}  // namespace
}  // namespace depthsort::testing
