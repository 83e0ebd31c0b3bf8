// Karsin et al. (ICS 2018), GPU-MMS: every K (2..32) and both merge executions at the sizes where
// its tiles and rounds change: around one base-case tile (1024), one K-way group of tiles
// (K * 1024), and a second merge round (K^2 * 1024), each with non-multiples, plus small shares.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

class GpuMmsK : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuMmsK, MatchesCpuReferenceAroundTilesAndRounds) {
  const SorterInfo* info = find_sorter("gpu-mms");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const OptionValues options = parse_options(*info, GetParam());
  const std::size_t k = static_cast<std::size_t>(option_value(options, "k"));
  std::vector<std::size_t> sizes;
  for (const std::size_t base : {std::size_t{1024}, k * 1024, k * k * 1024})
    for (const std::size_t n : {base - 1, base, base + 1, base + 33, 2 * base + 517}) sizes.push_back(n);
  for (const Distribution dist : {Distribution::Uniform, Distribution::Specials, Distribution::AllEqual,
                                  Distribution::NanPayloads, Distribution::Sorted, Distribution::Reverse}) {
    const std::unique_ptr<Sorter> sorter = info->create(options);
    SCOPED_TRACE("gpu-mms " + GetParam());
    check_sorter(*sorter, dist, sizes);
  }
}

INSTANTIATE_TEST_SUITE_P(Options, GpuMmsK,
                         ::testing::Values("k=2", "k=4", "k=8", "k=16", "k=32", "k=2,independent_merge=0",
                                           "k=8,independent_merge=0", "k=32,independent_merge=0", "k=4,share=32",
                                           "k=32,narrow_last=0", "k=16,share=1024", "k=16,share=64",
                                           "k=32,share=1048576"),
                         [](const auto& info) { return test_name("gpu_mms_" + info.param); });

}  // namespace
}  // namespace depthsort::testing
