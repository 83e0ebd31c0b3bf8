// Karsin, Weichert, Casanova, Iacono, Sitchinava, "Analysis-driven Engineering of Comparison-based
// Sorting Algorithms on GPUs" (ICS 2018), Section 5: the registry entry `gpu-mms` (multiway
// mergesort with a minBlockHeap per warp and merges in registers) for (float, uint32) pairs.
// See docs/algorithms/gpu-mms.md for the steps, the options and the deviations from the paper.
#pragma once

#include <memory>

#include "depthsort/sort/sorter.hpp"

namespace depthsort::gpu_mms {

inline constexpr OptionSpec kGpuMmsOptions[] = {
    {"k", "K, lists merged per round: 2, 4, 8, 16 or 32 (the paper: 8 or 16)", 16, 2, 32},
    {"share", "outputs per warp of a merge round, a power of two (0 = auto: 4096, halved to 1024 for small n)", 0, 0,
     1 << 20},
    {"independent_merge", "Section 5.1 independent merging: a root-to-leaf path's merges interleaved", 1, 0, 1},
    {"narrow_last", "last round with K' = the lists left (rounded to a power of two) instead of K leaves", 1, 0, 1},
};

// The options of `gpu-mms` (kGpuMmsOptions), read once by the factory.
struct GpuMmsOptions {
  int k = 0;
  int share = 0;  // 0: auto
  bool independent_merge = false;
  bool narrow_last = false;

  static GpuMmsOptions from(const OptionValues& values) {
    GpuMmsOptions o;
    o.k = option_value(values, "k");
    o.share = option_value(values, "share");
    o.independent_merge = option_value(values, "independent_merge") != 0;
    o.narrow_last = option_value(values, "narrow_last") != 0;
    return o;
  }
  bool operator==(const GpuMmsOptions&) const = default;
};

std::unique_ptr<Sorter> make_gpu_mms_sorter(const OptionValues& options);

}  // namespace depthsort::gpu_mms
