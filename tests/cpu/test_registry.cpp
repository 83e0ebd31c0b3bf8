// The registry table, option parsing, and the CPU sorter (the CPU path) against the reference.
#include <gtest/gtest.h>

#include <set>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
#include "support/sort_suite.hpp"

namespace depthsort {
namespace {

TEST(Registry, NamesAreUniqueAndFindable) {
  std::set<std::string_view> names;
  for (const SorterInfo& info : sorter_registry()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(find_sorter(info.name), &info);
    EXPECT_FALSE(info.origin.empty());
    EXPECT_FALSE(info.description.empty());
    EXPECT_NE(sorter_names().find(info.name), std::string::npos);
    for (const OptionSpec& spec : info.options) {
      EXPECT_LE(spec.min_value, spec.default_value) << info.name << ":" << spec.name;
      EXPECT_LE(spec.default_value, spec.max_value) << info.name << ":" << spec.name;
    }
  }
  EXPECT_EQ(find_sorter("no-such-sorter"), nullptr);
  for (const char* baseline : {"cub-radix", "cub-merge", "thrust", "cpu"}) EXPECT_NE(find_sorter(baseline), nullptr);
}

TEST(Registry, CpuSorterIsAlwaysAvailable) {
  const SorterInfo* cpu = find_sorter("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->backend, Backend::Cpu);
  std::string why;
  EXPECT_TRUE(cpu->is_available(&why)) << why;
}

TEST(Registry, GpuSortersSayWhyTheyAreUnavailable) {
  for (const SorterInfo& info : sorter_registry()) {
    std::string why;
    if (info.backend == Backend::Gpu && !info.is_available(&why)) {
      EXPECT_FALSE(why.empty()) << info.name;
    }
  }
}

// A fake entry to exercise option parsing independently of which sorters declare options.
constexpr OptionSpec kOptions[] = {{"shuffle", "shuffle first", 0, 0, 1}, {"buckets", "bucket count", 1024, 2, 65536}};
const SorterInfo kFake{"fake", "test", "test", Backend::Cpu, false, kOptions, always_available, nullptr};

TEST(Options, ParseOverDefaults) {
  EXPECT_EQ(format_options(default_options(kFake)), "buckets=1024,shuffle=0");
  const OptionValues values = parse_options(kFake, "shuffle,buckets=4096");
  EXPECT_EQ(option_value(values, "shuffle"), 1);
  EXPECT_EQ(option_value(values, "buckets"), 4096);
  EXPECT_EQ(option_value(parse_options(kFake, ""), "buckets"), 1024);
}

TEST(Options, RejectWhatIsNotDeclared) {
  EXPECT_THROW(parse_options(kFake, "colour=3"), OptionError);
  EXPECT_THROW(parse_options(kFake, "buckets=lots"), OptionError);
  EXPECT_THROW(parse_options(kFake, "buckets=1"), OptionError);
  EXPECT_THROW(parse_options(kFake, "buckets=12x"), OptionError);
  EXPECT_THROW(option_value(default_options(kFake), "colour"), OptionError);
  try {
    parse_options(kFake, "colour=3");
  } catch (const OptionError& error) {
    EXPECT_NE(std::string(error.what()).find("buckets"), std::string::npos) << "lists the valid options";
  }
}

TEST(Options, VariantsFlipEachFlag) {
  const auto variants = option_variants(kFake);
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(option_value(variants[0], "shuffle"), 0);
  EXPECT_EQ(option_value(variants[1], "shuffle"), 1);
  EXPECT_EQ(option_value(variants[1], "buckets"), 1024);
}

class CpuSorterTest : public ::testing::TestWithParam<Distribution> {};

TEST_P(CpuSorterTest, MatchesReference) {
  const std::unique_ptr<Sorter> sorter = find_sorter("cpu")->create({});
  testing::check_sorter(*sorter, GetParam(), testing::suite_sizes());
}

TEST(CpuSorter, SortBeyondReservationIsAClearError) {
  const std::unique_ptr<Sorter> sorter = find_sorter("cpu")->create({});
  sorter->reserve(10);
  std::vector<float> keys(11);
  std::vector<std::uint32_t> values(11);
  EXPECT_THROW(sorter->sort({keys.data(), values.data(), keys.data(), values.data(), 11}), CapacityError);
}

TEST(CpuSorter, ReservationBeyondThe32BitLimitIsAClearError) {
  const std::unique_ptr<Sorter> sorter = find_sorter("cpu")->create({});
  try {
    sorter->reserve(Sorter::kMaxPairs + 1);
    FAIL() << "reserve(kMaxPairs + 1) succeeded";
  } catch (const CapacityError& error) {
    EXPECT_NE(std::string(error.what()).find("cpu"), std::string::npos) << error.what();
  }
  EXPECT_EQ(sorter->capacity(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllDistributions, CpuSorterTest, ::testing::ValuesIn(all_distributions()),
                         [](const auto& info) { return testing::test_name(distribution_name(info.param)); });

}  // namespace
}  // namespace depthsort
