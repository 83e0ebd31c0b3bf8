// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section IV: the tuning of `satish-merge` beside the paper's own t = 256.
#pragma once

#include <cstdint>

namespace depthsort::satish_merge {

struct Policy {
  // The tile size t where the option leaves it to the sorter: 1024 was the fastest t at 16M pairs
  // on an H200 (docs/results/satish-merge.md, "Tile size t").
  static constexpr std::uint32_t kDefaultTile = 1024;
  // Threads of a merge block at most; a larger t gives each thread more pairs.
  static constexpr std::uint32_t kMaxThreads = 256;
};

}  // namespace depthsort::satish_merge
