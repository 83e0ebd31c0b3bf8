// cub-radix's `range` option beyond the generic suite: one instance through a chain of unrelated
// inputs (sizes from 1 to 16M, distributions whose key range and span of bits change every sort:
// one key value, two far clusters, NaN payloads, ±0 and ±inf), every result checked.
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

TEST(CubRadixRange, OneInstanceExactOnUnrelatedInputs) {
  const SorterInfo* info = find_sorter("cub-radix");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = info->create(parse_options(*info, "range=1"));
  const std::size_t max_n = std::size_t{16} << 20;
  sorter->reserve(max_n);
  const std::pair<Distribution, std::size_t> chain[] = {
      {Distribution::Uniform, max_n},
      {Distribution::Sorted, 1},
      {Distribution::Outliers, (1 << 20) + 3},
      {Distribution::NanPayloads, 4099},
      {Distribution::Reverse, max_n - 1},
      {Distribution::AllEqual, 70000},
      {Distribution::TwoClusters, 5 << 20},
      {Distribution::Specials, 12345},
      {Distribution::Mesh, 2 << 20},
      {Distribution::HalfEqual, 8193},
      {Distribution::GroundPlane, 3 << 20},
      {Distribution::Zipf, 1 << 20},
      {Distribution::NearlySorted, 2},
      {Distribution::CameraStep, (4 << 20) + 1},
      {Distribution::FewUnique, 100003},
      {Distribution::Gaussian, 7},
      {Distribution::Uniform, 0},
      {Distribution::Uniform, 1 << 20},
  };
  for (const auto& [dist, n] : chain) {
    const CheckResult result = sort_and_check(*sorter, dist, n);
    EXPECT_TRUE(result.ok) << "cub-radix range=1, " << distribution_name(dist) << " n=" << n << ": " << result.message;
  }
}

}  // namespace
}  // namespace depthsort::testing
