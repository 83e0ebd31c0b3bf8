// The correctness suite every sorter is held to: sizes around every tile boundary up to 16M, every
// distribution of workload.hpp, outputs poisoned before each run, input checked untouched after it.
#pragma once

#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "depthsort/sort/registry.hpp"
#include "depthsort/harness/workload.hpp"

// In a GPU test body: reports the test skipped, with the sorter's reason, where it cannot run here
// (no CUDA device), instead of letting it pass by doing nothing.
#define DEPTHSORT_SKIP_WITHOUT_DEVICE(info)                      \
  do {                                                           \
    std::string why_not;                                         \
    if (!(info).is_available(&why_not)) GTEST_SKIP() << why_not; \
  } while (0)

namespace depthsort::testing {

std::span<const std::size_t> suite_sizes();

// One registry entry with one option set, as a test parameter.
struct SorterCase {
  const SorterInfo* info;
  OptionValues options;
  std::string label;  // "hybrid_shuffle_1": a valid GoogleTest name
};
std::vector<SorterCase> sorter_cases(Backend backend);

// A name made only of letters, digits and underscores.
std::string test_name(std::string_view text);

// Sorts `keys` (with make_values' values) with `sorter` (already reserved for their count), outputs
// poisoned first, and checks the result against the CPU reference and the input against its copy.
// Asserts nothing.
CheckResult sort_and_check(Sorter& sorter, const std::vector<float>& keys);
// The same for one input of `dist` and size n.
CheckResult sort_and_check(Sorter& sorter, Distribution dist, std::size_t n);

// Sorts `dist` at every size in `sizes` with `sorter` (reserved for the largest), and checks each
// result against the CPU reference. Reports failures through GoogleTest with the size and the
// first wrong position.
void check_sorter(Sorter& sorter, Distribution dist, std::span<const std::size_t> sizes);

}  // namespace depthsort::testing

namespace depthsort::testing {
// GoogleTest prints parameters with this instead of their bytes.
inline void PrintTo(const SorterCase& sorter_case, std::ostream* out) { *out << sorter_case.label; }
}  // namespace depthsort::testing

namespace depthsort {
inline void PrintTo(Distribution dist, std::ostream* out) { *out << distribution_name(dist); }
}  // namespace depthsort
