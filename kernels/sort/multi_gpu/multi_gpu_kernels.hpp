// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the kernels of one GPU's share of the
// split (histogram level, range of every pair, scatter into one run per destination GPU).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {

// Number of equal keys of each tie group held by lower-ranked GPUs: this GPU's tie ranks start there.
struct TieBases {
  std::uint64_t base[kMaxSplitters] = {};
};

// Where each destination's run starts in the send buffers.
struct RunOffsets {
  std::uint64_t offset[kMaxGpus] = {};
};

// Adds the level's counts of keys[0, n) to `histogram` (zeroed by the caller; words as
// SplitterPlan::histogram_words).
void launch_histogram(const float* keys, std::size_t n, const LevelParams& params,
                      unsigned long long* histogram, int grid, cudaStream_t stream);

// Writes every pair's destination range to range_ids and adds the count of each range to
// counts[0, gpus) (zeroed by the caller, as tie_counters).
void launch_assign(const float* keys, std::size_t n, const Splitters& splitters, const TieBases& bases,
                   unsigned long long* tie_counters, std::uint8_t* range_ids, unsigned long long* counts,
                   int gpus, int grid, cudaStream_t stream);

// Moves every pair into its destination's run: runs start at offsets, cursors (zeroed by the
// caller) hand out places in them. Order inside a run is unspecified (each run is sorted later).
void launch_scatter(const float* keys, const std::uint32_t* values, std::size_t n, const std::uint8_t* range_ids,
                    const RunOffsets& offsets, unsigned long long* cursors, float* keys_out,
                    std::uint32_t* values_out, int gpus, int grid, cudaStream_t stream);

}  // namespace depthsort::multi_gpu
