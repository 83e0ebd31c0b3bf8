// satish-merge (Satish, Harris & Garland 2009, Section IV) at the edges of its options, which the
// registry suite (defaults, then each flag flipped) never builds: every tile size t from 64 to
// 2048, faithful and not, at sizes around t, around the 256-thread block and their non-multiples,
// across the merge-tree depths an odd number of runs makes.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "depthsort/sort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

constexpr const char* kCases[] = {
    "faithful=1",      "faithful=1,t=64",  "faithful=1,t=128", "faithful=1,t=512",  "faithful=1,t=2048",
    "faithful=0,t=64", "faithful=0,t=256", "faithful=0,t=512", "faithful=0,t=1024", "faithful=0,t=2048",
};

constexpr std::array<std::size_t, 20> kSizes{1,    2,    63,   64,           65,    255,           256,
                                             257,  511,  512,  513,          1023,  1025,          2047,
                                             2049, 4097, 6149, 3 * 2048 + 5, 65537, (1u << 20) + 3};
constexpr std::array kDistributions{Distribution::Uniform, Distribution::Specials, Distribution::AllEqual,
                                    Distribution::Zipf};

class SatishMergeOptionEdges : public ::testing::TestWithParam<const char*> {};

TEST_P(SatishMergeOptionEdges, MatchCpuReference) {
  const SorterInfo* info = find_sorter("satish-merge");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const OptionValues options = parse_options(*info, GetParam());
  for (const Distribution dist : kDistributions) {
    const std::unique_ptr<Sorter> sorter = info->create(options);
    SCOPED_TRACE(std::string("satish-merge ") + GetParam());
    check_sorter(*sorter, dist, kSizes);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SatishMergeOptionEdges, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return test_name(std::string("satish_merge_") + info.param); });

TEST(SatishMergeOptions, RejectsTileSizesThatAreNotPowersOfTwo) {
  const SorterInfo* info = find_sorter("satish-merge");
  ASSERT_NE(info, nullptr);
  EXPECT_THROW(info->create(parse_options(*info, "t=100")), OptionError);
  EXPECT_THROW(info->create(parse_options(*info, "t=32")), OptionError);
}

}  // namespace
}  // namespace depthsort::testing
