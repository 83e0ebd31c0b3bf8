// Karsin, Weichert, Casanova, Iacono, Sitchinava, "Analysis-driven Engineering of Comparison-based
// Sorting Algorithms on GPUs" (ICS 2018), Section 5: the block shapes of `gpu-mms`. The paper's
// own parameters (w, K) are gpu_mms_networks.hpp's and the options'.
#pragma once

namespace depthsort::gpu_mms {

struct Policy {
  // Warps (tiles) per block of the base case and warps (heaps) per block of a merge round: each
  // warp works alone, so the block size only sets how many share a multiprocessor's shared memory.
  // Not swept; the measured rows (docs/results/gpu-mms.md) all ran with 4.
  static constexpr int kBaseWarps = 4;
  static constexpr int kMergeWarps = 4;
};

}  // namespace depthsort::gpu_mms
