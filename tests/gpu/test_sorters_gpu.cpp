// Every GPU sorter of the registry (new ones join automatically), with its default options and each
// flag flipped, on every distribution and every size of the suite. Skipped, with the reason, where
// no usable CUDA device exists.
#include <gtest/gtest.h>

#include <limits>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

class GpuSorterTest : public ::testing::TestWithParam<std::tuple<SorterCase, Distribution>> {};

TEST_P(GpuSorterTest, MatchesCpuReference) {
  const auto& [sorter_case, dist] = GetParam();
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*sorter_case.info);
  const std::unique_ptr<Sorter> sorter = sorter_case.info->create(sorter_case.options);
  check_sorter(*sorter, dist, suite_sizes());
}

INSTANTIATE_TEST_SUITE_P(
    Registry, GpuSorterTest,
    ::testing::Combine(::testing::ValuesIn(sorter_cases(Backend::Gpu)), ::testing::ValuesIn(all_distributions())),
    [](const auto& info) {
      return std::get<0>(info.param).label + "_" + test_name(distribution_name(std::get<1>(info.param)));
    });

class GpuSorterLimits : public ::testing::TestWithParam<SorterCase> {};

TEST_P(GpuSorterLimits, SortBeyondReservationIsAClearError) {
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*GetParam().info);
  const std::unique_ptr<Sorter> sorter = GetParam().info->create(GetParam().options);
  sorter->reserve(1000);
  DeviceBuffer<float> keys(1001, "test");
  DeviceBuffer<std::uint32_t> values(1001, "test");
  const SortBuffers buffers{keys.data(), values.data(), keys.data(), values.data(), 1001};
  EXPECT_THROW(sorter->sort(buffers), CapacityError);
}

TEST_P(GpuSorterLimits, ReservationBeyondDeviceMemoryIsAClearError) {
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*GetParam().info);
  const std::unique_ptr<Sorter> sorter = GetParam().info->create(GetParam().options);
  // 2^38 pairs need at least 2 TiB: more than any GPU has.
  try {
    sorter->reserve(std::size_t{1} << 38);
    FAIL() << "reserve(2^38) succeeded";
  } catch (const CapacityError& error) {
    EXPECT_NE(std::string(error.what()).find(sorter->name()), std::string::npos) << error.what();
  }
  // The sorter stays usable after the failed reservation.
  EXPECT_NO_THROW(check_sorter(*sorter, Distribution::Uniform, std::array<std::size_t, 2>{1000, 4099}));
}

// Every option variant of one sorter reserved at once, as the demo's --cycle-sorters holds them,
// then each sorts: a per-kernel setting one instance makes must not break another (seen: a
// shared-memory ceiling lowered by the instance reserved last).
TEST_P(GpuSorterLimits, OptionVariantsCoexist) {
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*GetParam().info);
  const std::vector<OptionValues> variants = option_variants(*GetParam().info);
  std::vector<std::unique_ptr<Sorter>> sorters;
  for (const OptionValues& options : variants) {
    sorters.push_back(GetParam().info->create(options));
    sorters.back()->reserve(70000);
  }
  for (std::size_t i = 0; i < sorters.size(); ++i) {
    const CheckResult result = sort_and_check(*sorters[i], Distribution::Uniform, 65537);
    EXPECT_TRUE(result.ok) << format_options(variants[i]) << ": " << result.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuSorterLimits, ::testing::ValuesIn(sorter_cases(Backend::Gpu)),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace depthsort::testing
