// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS
// 2009), Section IV: the registry entry `satish-merge` (tiles sorted by odd-even merge sort, then
// a pairwise merge tree whose merges are split by every t-th key). See
// docs/algorithms/satish-merge.md for the steps, the options and the deviations from the paper.
#pragma once

#include <memory>

#include "depthsort/sort/sorter.hpp"

namespace depthsort::satish_merge {

inline constexpr OptionSpec kSatishMergeOptions[] = {
    {"faithful", "the paper's configuration: t = 256, one pair per thread, each element stored straight to its rank", 0,
     0, 1},
    {"t", "tile size t, a power of two in 64..2048 (0 = auto: 256 when faithful, else 1024)", 0, 0, 2048},
};

// The options of `satish-merge` (kSatishMergeOptions), read once by the factory.
struct SatishMergeOptions {
  bool faithful = false;
  int t = 0;  // 0: auto

  static SatishMergeOptions from(const OptionValues& values) {
    SatishMergeOptions o;
    o.faithful = option_value(values, "faithful") != 0;
    o.t = option_value(values, "t");
    return o;
  }
  bool operator==(const SatishMergeOptions&) const = default;
};

std::unique_ptr<Sorter> make_satish_merge_sorter(const OptionValues& options);

}  // namespace depthsort::satish_merge
