// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section III: the registry entry `satish-radix`, an LSD radix sort of the ordered-uint32 keys in
// b-bit digits, each pass in the paper's four phases (local sort, histogram, scan, scatter).
// See docs/algorithms/satish-radix.md for the steps, the options and the deviations.
#pragma once

#include <memory>

#include "depthsort/sort/sorter.hpp"

namespace depthsort::satish_radix {

// How the phases of a pass are laid out in kernels (option `arrangement`).
enum class Arrangement {
  Paper = 0,           // four kernels: local sort, histogram, scan, scatter (Section III, 1-4)
  FusedHistogram = 1,  // local sort writes its tile's histogram too: local sort+histogram, scan, scatter
  CountFirst = 2,      // histogram of the unsorted tile, scan, then local sort+scatter from shared memory
};

inline constexpr OptionSpec kSatishRadixOptions[] = {
    {"bits", "b, bits per digit: ceil(32/b) passes (the paper: 4; 8 measured fastest on the H200)", 8, 4, 8},
    {"items", "pairs per thread, 4, 8 or 16: a tile of 256 x items (the paper: 4, a 1024-pair tile)", 16, 4, 16},
    {"arrangement",
     "0 = the paper's four kernels, 1 = local sort writes the histogram, 2 = count first, "
     "then local sort scatters from shared memory",
     2, 0, 2},
    {"ballot_scan", "the splits' block scan by warp ballots over warp-striped items (0: CUB BlockScan, blocked)", 1, 0,
     1},
    {"faithful",
     "the paper's configuration whatever the other options say: b = 4, 4 items, four kernels, CUB block scan", 0, 0, 1},
};

// The options of `satish-radix` (kSatishRadixOptions), read once by the factory.
struct SatishRadixOptions {
  int bits = 0;
  int items = 0;
  Arrangement arrangement = Arrangement::Paper;
  bool ballot_scan = false;
  bool faithful = false;

  static SatishRadixOptions from(const OptionValues& values) {
    SatishRadixOptions o;
    o.bits = option_value(values, "bits");
    o.items = option_value(values, "items");
    o.arrangement = static_cast<Arrangement>(option_value(values, "arrangement"));
    o.ballot_scan = option_value(values, "ballot_scan") != 0;
    o.faithful = option_value(values, "faithful") != 0;
    return o;
  }
  bool operator==(const SatishRadixOptions&) const = default;
};

std::unique_ptr<Sorter> make_satish_radix_sorter(const OptionValues& options);

}  // namespace depthsort::satish_radix
