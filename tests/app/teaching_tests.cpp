// "Compare all"'s bars: per-step medians over repetitions, on the CPU.
#include <gtest/gtest.h>

#include <vector>

#include "loop/compare_all.hpp"

namespace depthsort::app {
namespace {

TEST(CompareAll, BarIsThePerStepMedianAndItsSum) {
  const std::vector<std::vector<TimedStep>> runs{
      {{"count", 1.0f}, {"scatter", 9.0f}},
      {{"count", 3.0f}, {"scatter", 2.0f}},
      {{"count", 2.0f}, {"scatter", 5.0f}},
  };
  const StepBar bar = median_bar("hybrid", runs);
  EXPECT_EQ(bar.sorter, "hybrid");
  ASSERT_EQ(bar.steps.size(), 2u);
  EXPECT_EQ(bar.steps[0].name, "count");
  EXPECT_FLOAT_EQ(bar.steps[0].ms, 2.0f);
  EXPECT_FLOAT_EQ(bar.steps[1].ms, 5.0f);
  EXPECT_FLOAT_EQ(bar.total_ms, 7.0f);
}

TEST(CompareAll, NoRunsNoSteps) {
  const StepBar bar = median_bar("cub-radix", {});
  EXPECT_TRUE(bar.steps.empty());
  EXPECT_EQ(bar.total_ms, 0.0f);
}

}  // namespace
}  // namespace depthsort::app
