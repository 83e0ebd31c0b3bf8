// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): what
// every step of the hybrid sort shares (docs/algorithms/hybrid.md, "Steps"): its Policy (policy.hpp)
// and the small per-sort Control block the device steps hand each other (min/max of Section 5.1,
// the work list of the vector-mergesort of Sections 4 and 6).
#pragma once

#include <cstdint>

#include "sort/hybrid/policy.hpp"

namespace depthsort::hybrid {

// Small per-sort state; zeroed by one memset each sort.
struct Control {
  std::uint32_t omin_c;  // complement of the smallest ordered key (atomicMax of complements)
  std::uint32_t omax;    // largest ordered key
  std::uint32_t num_items;
  std::uint32_t num_oversized;
  std::uint32_t max_passes;
  std::uint32_t fine_tiles;  // tiles of the fine scatter (two-level reposition)
};

}  // namespace depthsort::hybrid
