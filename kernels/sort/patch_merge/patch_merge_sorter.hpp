// patch-merge: an adaptive sort for nearly sorted input (depthsort's own design, the
// outlier-extraction idea of adaptive sorting, e.g. Estivill-Castro & Wood, "A Survey of
// Adaptive Sorting Algorithms", ACM Computing Surveys 24(4), 1992, Section 2, "Rem" measure).
// See docs/algorithms/patch-merge.md for the steps, options and where it falls back.
#pragma once

#include <memory>

#include "depthsort/sorter.hpp"

namespace depthsort::patch_merge {

inline constexpr OptionSpec kPatchMergeOptions[] = {
    {"probe", "first test 4096 key pairs two tiles apart; over 1/32 of them inverted: cub-radix at once", 1, 0, 1},
    {"max_outliers", "most keys out of place, in 64ths of n, the patch path takes; more: cub-radix", 16, 1, 16},
};

std::unique_ptr<Sorter> make_patch_merge_sorter(const OptionValues& options);

}  // namespace depthsort::patch_merge
