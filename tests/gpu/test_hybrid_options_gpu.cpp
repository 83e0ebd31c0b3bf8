// The hybrid sorts at the edges of their declared option ranges and in the combinations the
// registry suite (defaults, one flag flipped at a time) never builds: the paper's own execution,
// bucket counts past the 16-bit fast path, the smallest and largest histograms, more refinements,
// both splitters, the fewest and most samples.
#include <gtest/gtest.h>

#include <array>

#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

struct OptionCase {
  const char* sorter;
  const char* options;
};

constexpr OptionCase kCases[] = {
    {"hybrid", "atomic_count=1,global_merge=1,buckets=1024,splitter=0"},  // the paper's configuration
    {"hybrid", "atomic_count=1,global_merge=1,buckets=1024"},             // the same with sampled pivots
    {"hybrid", "buckets=4"},
    {"hybrid", "buckets=4,splitter=0"},
    {"hybrid", "buckets=65536"},  // the last bucket count of the 16-bit two-level reposition
    {"hybrid", "buckets=70000"},  // past it: the generic count and scatter
    {"hybrid", "buckets=70000,splitter=0"},
    {"hybrid", "histogram_bins=16"},
    {"hybrid", "histogram_bins=16,splitter=0"},
    {"hybrid", "histogram_bins=16384,splitter=0"},
    {"hybrid", "oversample=4"},     // few samples: uneven buckets, some past shared memory
    {"hybrid", "oversample=1024"},  // the whole input sampled at the small sizes
    {"hybrid", "refinements=4"},
    {"hybrid", "refinements=4,splitter=0"},
    {"hybrid", "merge_outputs=8"},
    {"hybrid", "merge_outputs=16"},
    {"hybrid", "shuffle=1,atomic_count=1"},
    {"hybrid-quick", "buckets=2"},
    {"hybrid-quick", "buckets=65536"},
};

constexpr std::array<std::size_t, 4> kSizes{1000, 4097, 65537, (1u << 20) + 3};
constexpr std::array kDistributions{Distribution::Uniform, Distribution::Specials, Distribution::AllEqual,
                                    Distribution::Zipf,    Distribution::Outliers, Distribution::HalfEqual};

void PrintTo(const OptionCase& c, std::ostream* out) { *out << c.sorter << ' ' << c.options; }

class HybridOptionEdges : public ::testing::TestWithParam<OptionCase> {};

TEST_P(HybridOptionEdges, MatchCpuReference) {
  const SorterInfo* info = find_sorter(GetParam().sorter);
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const OptionValues options = parse_options(*info, GetParam().options);
  for (const Distribution dist : kDistributions) {
    const std::unique_ptr<Sorter> sorter = info->create(options);
    SCOPED_TRACE(std::string(GetParam().sorter) + " " + GetParam().options);
    check_sorter(*sorter, dist, kSizes);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, HybridOptionEdges, ::testing::ValuesIn(kCases), [](const auto& info) {
  return test_name(std::string(info.param.sorter) + "_" + info.param.options);
});

}  // namespace
}  // namespace depthsort::testing
