// Each sorter's options struct against its registry entry: every declared option is read into a
// field (set away from its default, it changes the struct the factory reads), and every sorter
// that declares options has a struct here.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "depthsort/sort/registry.hpp"
#include "sort/baselines.hpp"
#include "sort/bucket_sort/bucket_sort_sorter.hpp"
#include "sort/gpu_mms/gpu_mms_sorter.hpp"
#include "sort/hybrid/hybrid_sorter.hpp"
#include "sort/run_bucket/run_bucket_sorter.hpp"
#include "sort/satish_merge/satish_merge_sorter.hpp"
#include "sort/satish_radix/satish_radix_sorter.hpp"

namespace depthsort {
namespace {

// Another value the option accepts: the flag flipped, else the far end of its range.
int other_value(const OptionSpec& spec) {
  if (spec.is_flag()) return 1 - spec.default_value;
  return spec.default_value == spec.max_value ? spec.min_value : spec.max_value;
}

template <class Options>
void expect_every_option_read(std::string_view sorter, std::set<std::string_view>& covered) {
  covered.insert(sorter);
  const SorterInfo* info = find_sorter(sorter);
  ASSERT_NE(info, nullptr) << sorter;
  const Options defaults = Options::from(default_options(*info));
  for (const OptionSpec& spec : info->options) {
    OptionValues values = default_options(*info);
    values[std::string(spec.name)] = other_value(spec);
    EXPECT_FALSE(Options::from(values) == defaults) << sorter << ": option '" << spec.name << "' reaches no field";
  }
}

TEST(SorterOptions, EveryDeclaredOptionMapsToAField) {
  std::set<std::string_view> covered;
  expect_every_option_read<CubRadixOptions>("cub-radix", covered);
  expect_every_option_read<hybrid::HybridOptions>("hybrid", covered);
  expect_every_option_read<hybrid::HybridOptions>("hybrid-coherent", covered);
  expect_every_option_read<hybrid::HybridQuickOptions>("hybrid-quick", covered);
  expect_every_option_read<run_bucket::RunBucketOptions>("run-bucket", covered);
  expect_every_option_read<satish_radix::SatishRadixOptions>("satish-radix", covered);
  expect_every_option_read<satish_merge::SatishMergeOptions>("satish-merge", covered);
  expect_every_option_read<gpu_mms::GpuMmsOptions>("gpu-mms", covered);
  expect_every_option_read<bucket_sort::BucketSortOptions>("bucket-sort", covered);
  for (const SorterInfo& info : sorter_registry()) {
    if (info.options.empty()) continue;
    EXPECT_TRUE(covered.contains(info.name)) << info.name << " has no options struct here";
  }
}

TEST(SorterOptions, CubRadixWithoutValuesTakesItsDefaults) {
  // Other sorters fall back to make_cub_radix_sorter({}).
  EXPECT_TRUE(CubRadixOptions::from({}) == CubRadixOptions::from(default_options(*find_sorter("cub-radix"))));
}

}  // namespace
}  // namespace depthsort
