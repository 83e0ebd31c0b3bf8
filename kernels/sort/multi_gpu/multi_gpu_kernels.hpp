// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the kernels of one GPU's share of the
// split. The splitter search (the histogram levels of Section 5.1 and the choice of the next level's
// bins) runs on the device from start to end: each step reads the last one's SplitState in device
// memory, so a sort needs no host round trip until the counts the exchange is posted with. One
// pass over the keys (the cut pass) counts them below the brackets' ends and the boundaries and
// copies the bracketed keys aside; the levels then read those alone (or every key, where a bracket
// missed). The partition is one pass: every pair read once and written once into its range's run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/sorter.hpp"
#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {

// Launch shapes found once per GPU (occupancy of this build's kernels on that GPU).
struct KernelShape {
  int histogram_grid = 0;
  int cut_grid = 0;
  int scatter_grid = 0;
};
KernelShape kernel_shape();  // for the current device
// Blocks of the cut pass over n keys (and of the level passes after it, which read the candidates
// each block of it wrote): at least 1.
std::uint32_t cut_blocks(std::size_t n, const KernelShape& shape);

// init_state(*state, setup) on the device.
void launch_init(SplitState* state, const SplitSetup& setup, cudaStream_t stream);

// `stride` sample keys (ordered bits) of keys[0, n): the first `count` drawn by sample_position,
// the rest 0xFFFFFFFF (the top of the key order: sorted behind every real sample key).
void launch_sample(const float* keys, std::size_t n, std::uint32_t count, std::uint32_t stride, std::uint32_t* sample,
                   cudaStream_t stream);

// CUB's radix sort of `count` sample keys (temp == nullptr: sets bytes).
cudaError_t sort_sample(void* temp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out, int count,
                        cudaStream_t stream);

// CUB's radix sort of b's float pairs on the low end_bit bits of its radix key (temp == nullptr:
// sets bytes): the local sort of a sub-range whose keys share every higher bit.
cudaError_t sort_pairs_bits(void* temp, std::size_t& bytes, const SortBuffers& b, int end_bit, cudaStream_t stream);

// make_cuts(*state, sorted, valid) on the device: boundaries, brackets and cuts from the sorted sample.
void launch_cuts(SplitState* state, const std::uint32_t* sorted, std::uint32_t valid, cudaStream_t stream);

// The cut pass over keys[0, n) with `blocks` blocks (cut_blocks): adds this GPU's keys below each
// cut to counts (kCutWords, zeroed by the caller; counts[kOverflowWord] set where a block's
// candidates overflow its state->setup.segment slots), raises extremes[0] to the complement of
// the smallest key and extremes[1] to the largest (zeroed by the caller), and writes block b's
// candidates (ordered keys inside a bracket) to candidates[b * segment ...), their number to
// segment_counts[b].
void launch_cut_pass(const float* keys, std::size_t n, const SplitState* state, unsigned long long* counts,
                     unsigned int* extremes, unsigned int* segment_counts, std::uint32_t* candidates,
                     std::uint32_t blocks, cudaStream_t stream);

// apply_cuts(*state, global, local, ~extremes[0], extremes[1]) on the device.
void launch_apply_cuts(SplitState* state, const unsigned long long* global, const unsigned long long* local,
                       const unsigned int* extremes, cudaStream_t stream);

// Adds the counts of the pass described by state->params (bins of the keys it selects) to
// histogram (kHistogramWords, zeroed by the caller), over the candidates the cut pass wrote (with
// the same `blocks`) where state->from_candidates, else over keys[0, n).
void launch_histogram(const float* keys, std::size_t n, const std::uint32_t* candidates,
                      const unsigned int* segment_counts, const SplitState* state, unsigned long long* histogram,
                      std::uint32_t blocks, cudaStream_t stream);

// One block: the bins of this level from the global and this GPU's histograms, then the next
// level's parameters or the splitters (find_bins, local_belows, advance_level).
void launch_select(SplitState* state, const unsigned long long* global, const unsigned long long* local, int level,
                   cudaStream_t stream);

// finish_counts(*state, equal_all) on the device (equal_all may be nullptr: one GPU holds all), and
// the number of candidates the cut pass's `blocks` blocks found (segment_counts may be nullptr).
void launch_finish(SplitState* state, const unsigned long long* equal_all, const unsigned int* segment_counts,
                   std::uint32_t blocks, cudaStream_t stream);

// Moves every pair of keys[0, n) into its range's run: other GPUs' ranges into send_*, this GPU's
// own into stage_* (at state->offset). tie_counters (kMaxSplitters) and cursors (kMaxRanges) are
// zeroed by the caller. Order inside a run is unspecified (each range is sorted later).
void launch_scatter(const float* keys, const std::uint32_t* values, std::size_t n, const SplitState* state,
                    unsigned long long* tie_counters, unsigned long long* cursors, float* send_keys,
                    std::uint32_t* send_values, float* stage_keys, std::uint32_t* stage_values, int grid,
                    cudaStream_t stream);

}  // namespace depthsort::multi_gpu
