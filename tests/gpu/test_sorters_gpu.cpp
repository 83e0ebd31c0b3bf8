// Every GPU sorter of the registry (new ones join automatically), with its default options and each
// flag flipped, on every distribution and every size of the suite. Skipped, with the reason, where
// no usable CUDA device exists.
#include <gtest/gtest.h>

#include <limits>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/step_timer.hpp"
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

INSTANTIATE_TEST_SUITE_P(Registry, GpuSorterTest,
                         ::testing::Combine(::testing::ValuesIn(sorter_cases(Backend::Gpu)),
                                            ::testing::ValuesIn(all_distributions())),
                         [](const auto& info) {
                           return std::get<0>(info.param).label + "_" +
                                  test_name(distribution_name(std::get<1>(info.param)));
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

// A step that starts at the last step's end shares its event: the steps still cover the frame
// from the first start to the last end, each with its own time, and the time between two steps
// that do not share one is in neither.
TEST(StepTimer, StepsSharingAnEventCoverTheFrame) {
  const SorterInfo* info = find_sorter("cub-radix");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  DeviceBuffer<unsigned char> buffer(std::size_t{256} << 20, "step timer test");
  const auto fill = [&](int value) {
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(buffer.data(), value, buffer.bytes(), nullptr));
  };
  fill(0);  // the buffer's first fill is slower: not in a step
  DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
  StepTimer timer;
  timer.begin_frame(nullptr);
  {
    StepScope step(timer, "first");
    fill(1);
  }
  {
    StepScope step(timer, "second", StepStart::AtLastStepEnd);
    fill(2);
    fill(3);
  }
  fill(4);  // between steps: in neither
  {
    StepScope step(timer, "third");
    fill(5);
  }
  timer.end_frame();
  const std::vector<StepTime> steps(timer.wait_last().begin(), timer.wait_last().end());
  const float frame_ms = timer.last_frame_ms();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_STREQ(steps[0].name, "first");
  EXPECT_STREQ(steps[1].name, "second");
  EXPECT_STREQ(steps[2].name, "third");
  for (const StepTime& step : steps) EXPECT_GT(step.ms, 0.0f) << step.name;
  // Two fills against one: the second step's own time (about twice the first's), not the first's
  // added to it (three times). The bounds leave room for a GPU shared with other processes.
  EXPECT_GT(steps[1].ms, 1.25f * steps[0].ms);
  EXPECT_LT(steps[1].ms, 2.6f * steps[0].ms);
  // The fill between the steps is in the frame but in no step.
  const float in_steps = steps[0].ms + steps[1].ms + steps[2].ms;
  EXPECT_LT(in_steps, frame_ms - 0.5f * steps[0].ms);
  EXPECT_GT(in_steps + 2.0f * steps[0].ms, frame_ms);
}

TEST(StepTimer, FirstStepCannotStartAtALastStepEnd) {
  StepTimer timer(TimerClock::Host);
  timer.begin_frame(nullptr);
  EXPECT_THROW(timer.begin_step("first", StepStart::AtLastStepEnd), Error);
}

}  // namespace
}  // namespace depthsort::testing
