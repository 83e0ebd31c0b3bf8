// The splitters and partition steps of a sort (Sintorn & Assarsson, JPDC 2008, Sections 5.1 and 6.1 on N GPUs).
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/sorter_state.hpp"

namespace depthsort::multi_gpu {

void MultiGpuSorter::find_splitters(const Run& run, double gpu0_share) {
  const std::span<const DevicePairs> inputs = run.inputs;
  const int N = run.N, K = run.K;
  const std::uint64_t total = run.total;
  const bool gathered = run.gathered;
  // ---- splitters: everything on the device, no host round trip until the counts.
  std::vector<int> holders;
  for (int r = 0; r < N; ++r)
    if (inputs[r].n > 0) holders.push_back(r);
  // With one GPU holding every pair (the paper's case) its own counts are the global ones and no
  // collective runs; otherwise every GPU takes part in each (the empty ones with zeros).
  const bool reduce = holders.size() > 1;
  if (reduce) {
    split_ranks_.resize(N);
    std::iota(split_ranks_.begin(), split_ranks_.end(), 0);
  } else {
    split_ranks_ = holders;
  }
  const std::vector<std::uint64_t> targets = split_targets(total, N, gathered ? gpu0_share : 0.0);
  std::vector<std::uint32_t> samples(N, 0);
  std::uint32_t stride = 0, valid = 0;
  for (const int r : holders) {
    samples[r] = sample_count(inputs[r].n, total);
    stride = std::max(stride, samples[r]);
    valid += samples[r];
  }
  const std::vector<std::uint32_t> sample_index = boundary_sample_index(total, targets, N, K, valid);
  const std::vector<std::array<std::int32_t, 2>> brackets = options_.levels == kLevels
                                                                ? bracket_sample_index(total, targets, valid)
                                                                : std::vector<std::array<std::int32_t, 2>>{};
  std::vector<std::uint32_t> blocks(N, 0);  // of the cut pass and the level passes after it
  for (const int r : split_ranks_)
    if (inputs[r].n > 0) blocks[r] = cut_blocks(inputs[r].n, gpu_[r]->shape);
  const int levels_run = make_setup(0, N, K, options_.levels, total, 0, targets, sample_index).levels_run;
  {
    NvtxRange step(kStepNames[0]);
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      const std::uint64_t segment = blocks[r] > 0 ? g.candidates.size() / blocks[r] : 0;
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.split_start.get(), stream(r)));
      launch_init(
          g.state.data(),
          make_setup(r, N, K, options_.levels, total, inputs[r].n, targets, sample_index, brackets, blocks[r], segment),
          stream(r));
    }
    if (!sample_index.empty() || !brackets.empty()) {
      // The sample, the same on every GPU: the brackets around the splitters, the boundaries of the
      // sub-ranges at its quantiles.
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        launch_sample(inputs[r].keys, inputs[r].n, samples[r], stride, g.sample.data(), stream(r));
      }
      if (reduce) {
        NcclGroupCall group;
        for (int r = 0; r < N; ++r)
          DEPTHSORT_NCCL_CHECK(ncclAllGather(gpu_[r]->sample.data(), gpu_[r]->sample_all.data(), stride, ncclUint32,
                                             comms_.comm(r), stream(r)));
      }
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        std::size_t bytes = g.sample_temp.bytes();
        const int count = static_cast<int>(reduce ? static_cast<std::size_t>(N) * stride : stride);
        DEPTHSORT_CUDA_CHECK(sort_sample(g.sample_temp.data(), bytes, reduce ? g.sample_all.data() : g.sample.data(),
                                         g.sample_sorted.data(), count, stream(r)));
        launch_cuts(g.state.data(), g.sample_sorted.data(), valid, stream(r));
      }
    }
    // The cut pass: one read of every key.
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.cut_local.data(), 0, kCutWords * sizeof(unsigned long long), stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.extremes.data(), 0, 2 * sizeof(unsigned int), stream(r)));
      launch_cut_pass(inputs[r].keys, inputs[r].n, g.state.data(), g.cut_local.data(), g.extremes.data(),
                      g.segment_counts.data(), g.candidates.data(), blocks[r], stream(r));
    }
    if (reduce) {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r) {
        DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->cut_local.data(), gpu_[r]->cut_global.data(), kCutWords, ncclUint64,
                                           ncclSum, comms_.comm(r), stream(r)));
        DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->extremes.data(), gpu_[r]->extremes.data(), 2, ncclUint32, ncclMax,
                                           comms_.comm(r), stream(r)));
      }
    }
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      launch_apply_cuts(g.state.data(), reduce ? g.cut_global.data() : g.cut_local.data(), g.cut_local.data(),
                        g.extremes.data(), stream(r));
    }
    // The levels, over the bracketed keys (or every key where a bracket missed).
    for (int level = 0; level < levels_run; ++level) {
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        DEPTHSORT_CUDA_CHECK(
            cudaMemsetAsync(g.hist_local.data(), 0, kHistogramWords * sizeof(unsigned long long), stream(r)));
        launch_histogram(inputs[r].keys, inputs[r].n, g.candidates.data(), g.segment_counts.data(), g.state.data(),
                         g.hist_local.data(), blocks[r], stream(r));
      }
      if (reduce) {
        NcclGroupCall group;
        for (int r = 0; r < N; ++r)
          DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->hist_local.data(), gpu_[r]->hist_global.data(), kHistogramWords,
                                             ncclUint64, ncclSum, comms_.comm(r), stream(r)));
      }
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        launch_select(g.state.data(), reduce ? g.hist_global.data() : g.hist_local.data(), g.hist_local.data(), level,
                      stream(r));
      }
    }
    // Each GPU's count of every tie key, gathered: its tie ranks start after the lower GPUs' ones.
    const bool gather_equal = reduce && N > 1 && options_.levels == kLevels;
    if (gather_equal) {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r) {
        const auto* equal_local = reinterpret_cast<const unsigned long long*>(
            reinterpret_cast<const char*>(gpu_[r]->state.data()) + offsetof(SplitState, equal_local));
        DEPTHSORT_NCCL_CHECK(ncclAllGather(equal_local, gpu_[r]->equal_all.data(), kMaxSplitters, ncclUint64,
                                           comms_.comm(r), stream(r)));
      }
    }
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      launch_finish(g.state.data(), gather_equal ? g.equal_all.data() : nullptr, g.segment_counts.data(), blocks[r],
                    stream(r));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.readback.data(),
                                           reinterpret_cast<const char*>(g.state.data()) + offsetof(SplitState, out),
                                           sizeof(RangeCounts), cudaMemcpyDeviceToHost, stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.counts_ready.get(), stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.split_end.get(), stream(r)));
    }
  }
}

void MultiGpuSorter::partition(const Run& run) {
  const std::span<const DevicePairs> inputs = run.inputs;
  // ---- partition: one pass per GPU, queued before the host waits for the counts.
  {
    NvtxRange step(kStepNames[1]);
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      if (inputs[r].n > 0) {
        DEPTHSORT_CUDA_CHECK(
            cudaMemsetAsync(g.counters.data(), 0, kCounterWords * sizeof(unsigned long long), stream(r)));
        launch_scatter(inputs[r].keys, inputs[r].values, inputs[r].n, g.state.data(), g.counters.data() + kTiesAt,
                       g.counters.data() + kCursorsAt, g.send_keys.data(), g.send_values.data(), g.stage_keys.data(),
                       g.stage_values.data(), g.shape.scatter_grid, stream(r));
      }
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.scatter_end.get(), stream(r)));
    }
  }
}

}  // namespace depthsort::multi_gpu
