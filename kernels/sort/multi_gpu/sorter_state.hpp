// The multi-GPU sorter's insides, shared by its .cpp files: one GPU's buffers, streams and events, one sort's plan.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"
#include "sort/multi_gpu/range_bits_sort.hpp"

namespace depthsort::multi_gpu {

// Counters zeroed before each scatter: the tie counters, then the cursors of the ranges' runs.
constexpr std::size_t kTiesAt = 0;
constexpr std::size_t kCursorsAt = kMaxSplitters;
constexpr std::size_t kCounterWords = kMaxSplitters + kMaxRanges;
// NCCL rounds of one sort: one per sub-range, and in the paper's case up to two return-only rounds.
constexpr int kMaxGroups = kMaxChunks + 2;
// Copy streams from one GPU to another: keys on lane 0, values on lane 1, so that two copy engines
// carry each pair of GPUs' pairs at once (one engine alone may not fill the link).
constexpr int kLanes = 2;

struct MultiGpuSorter::Gpu {
  int device = 0;
  KernelShape shape;
  std::size_t input_capacity = 0;  // pairs this GPU may hold as input (and send: its runs for others)
  std::size_t stage_capacity = 0;  // pairs of its range: its own runs and the received ones
  DeviceBuffer<float> send_keys, stage_keys, out_keys;
  DeviceBuffer<std::uint32_t> send_values, stage_values, out_values;
  DeviceBuffer<unsigned long long> hist_local, hist_global, counters, equal_all, cut_local, cut_global;
  DeviceBuffer<unsigned int> extremes, segment_counts;
  DeviceBuffer<std::uint32_t> candidates;  // the cut pass's bracketed keys, `segment` slots a block
  DeviceBuffer<SplitState> state;
  DeviceBuffer<std::uint32_t> sample, sample_all, sample_sorted;
  DeviceBuffer<unsigned char> sample_temp;
  PinnedBuffer<RangeCounts> readback{1};
  // The local sorters made so far (by registry name), the cut-bits sort, and what the current case uses.
  std::vector<std::pair<std::string, std::unique_ptr<Sorter>>> sorters;
  std::unique_ptr<RangeBitsSort> bits_sort;
  Sorter* sorter = nullptr;
  bool use_bits = false;
  // Copy streams: to[q][lane] carries this GPU's keys (lane 0) or values (lane 1) to GPU rank q.
  CudaStream to[kMaxGpus][kLanes];
  CudaEvent split_start, split_end, scatter_end, total_start, total_stop, probe_start, probe_end;
  CudaEvent sort_start[kMaxChunks], sort_end[kMaxChunks];
  CudaEvent round_start[kMaxGroups], round_end[kMaxGroups];
  // Copy engines, each lane: sub-range k copied to GPU q; the end of the last copy out to q and of
  // the last sorted sub-range back to GPU 0; the probe's copies.
  CudaEvent copied[kMaxGpus][kMaxChunks][kLanes], out_end[kMaxGpus][kLanes], back_end[kLanes];
  CudaEvent copy_probe_start[kMaxGpus][kLanes], copy_probe_end[kMaxGpus][kLanes];
  CudaEvent counts_ready{cudaEventDisableTiming}, ready{cudaEventDisableTiming}, done{cudaEventDisableTiming},
      exchanged{cudaEventDisableTiming};
  CudaEvent joined[kMaxGpus][kLanes];
};

// What the steps of one sort share: its inputs and shape; from the one host round trip the count
// matrix, every range's size and key bounds; and where every run lies (sort_counts.cpp).
struct MultiGpuSorter::Run {
  std::span<const DevicePairs> inputs;
  float* gather_keys = nullptr;
  std::uint32_t* gather_values = nullptr;
  bool gathered = false;
  std::uint64_t total = 0;
  int N = 0, K = 0, R = 0;
  std::vector<std::uint64_t> C;                 // [source][range]
  std::vector<std::uint64_t> G;                 // every GPU's pairs per range
  std::vector<std::uint32_t> lo, hi;            // every range's key bounds
  std::vector<std::vector<std::uint64_t>> pos;  // [j][k]: sub-range k's place in GPU j's stage and output
  std::vector<std::uint64_t> start;             // GPU j's range in the gathered output
  std::vector<std::uint64_t> send_at;           // [source][range]: each run's place in its send buffer
};

}  // namespace depthsort::multi_gpu
