// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section III: the registry entry `satish-radix`, an LSD radix sort of the ordered-uint32 keys in
// b-bit digits, each pass in the paper's four phases (local sort, histogram, scan, scatter).
// See docs/algorithms/satish-radix.md for the steps, the options and the deviations.
#pragma once

#include <memory>

#include "depthsort/registry.hpp"

namespace depthsort::satish_radix {

inline constexpr OptionSpec kSatishRadixOptions[] = {
    {"bits", "b, bits per digit: ceil(32/b) passes (the paper: 4)", 4, 4, 8},
    {"fuse_histogram", "local sort writes its tile's histogram too (phases 1+2 in one kernel)", 0, 0, 1},
    {"count_first", "histogram of the unsorted tile first, then scan, then local sort scatters from shared memory",
     0, 0, 1},
};

std::unique_ptr<Sorter> make_satish_radix_sorter(const OptionValues& options);

}  // namespace depthsort::satish_radix
