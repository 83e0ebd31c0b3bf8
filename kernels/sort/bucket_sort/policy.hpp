// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4: the
// tuning of `bucket-sort` beside the paper's own configuration (s = 64, 2K-pair sublists).
#pragma once

#include <cstdint>

namespace depthsort::bucket_sort {

struct Policy {
  // depthsort's default sublist and chunk on the H200 (docs/algorithms/bucket-sort.md has the
  // measurements).
  static constexpr std::uint32_t kDefaultSublist = 8192;
  static constexpr std::uint32_t kDefaultChunk = 8192;
  // onchip keeps L = 8192 (the radix tile): 16K-pair sublists would halve the samples, but a
  // one-block 16K radix sort spills (1024 threads x 16 pairs in 64 registers). The gathering bucket
  // sort keeps the m piece starts of its bucket in shared memory: at most 8192 (32 KB).
  static constexpr std::uint32_t kOnchipSublist = kDefaultSublist;
  static constexpr std::uint32_t kMaxGatherSublists = 8192;
  // The largest s the automatic choice takes.
  static constexpr std::uint32_t kMaxAutoS = 4096;
};

}  // namespace depthsort::bucket_sort
