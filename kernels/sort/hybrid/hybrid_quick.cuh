// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section
// 5.2: the sequence of `hybrid-quick`, log2(L) partial-quicksort partition passes into L sublists
// before the vector-mergesort (hybrid_base.cuh).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "sort/hybrid/hybrid_base.cuh"

namespace depthsort::hybrid {

inline constexpr const char* kPartitionNames[] = {
    "partition-01", "partition-02", "partition-03", "partition-04", "partition-05", "partition-06",
    "partition-07", "partition-08", "partition-09", "partition-10", "partition-11", "partition-12",
    "partition-13", "partition-14", "partition-15", "partition-16", "partition-17"};

// hybrid-quick runs hybrid's defaults beside its own two options.
inline HybridOptions quick_options(const HybridQuickOptions& quick) {
  HybridOptions options;
  options.shuffle = quick.shuffle;
  options.buckets = quick.buckets;
  return options;
}

class HybridQuickSorter final : public HybridBase {
 public:
  explicit HybridQuickSorter(const HybridQuickOptions& options)
      : HybridBase("hybrid-quick", Split::Quick, Pivots::ThisFrame, quick_options(options)) {}

 protected:
  // L sublists and the set-aside (the pivots' equals) between them: L + 1 to merge, the set-aside
  // skipped.
  SplitResult split(const SplitInput& in, cudaStream_t stream, StepTimer& timer) override {
    const bool in_second = quick_split(in.src, in.n, in.L, in.counts, stream, timer);
    uint2* bucketed = in_second ? packed2_.data() : packed_.data();
    // The on-chip pass reads before it writes.
    return {in.L + 1, -1, in.L, bucketed, bucketed, false};
  }

 private:
  // log2(L) partition passes; returns true if the sublists ended in packed2_.
  bool quick_split(FloatPairs src, std::uint32_t n, int L, std::uint32_t* counts, cudaStream_t stream,
                   StepTimer& timer) {
    const int passes = primitives::ceil_log2(static_cast<std::size_t>(L));
    std::uint32_t* qoff = quick_.qoff.data();
    std::uint32_t* qnext = quick_.qoff2.data();
    uint2* bufs[2] = {packed_.data(), packed2_.data()};
    quick_init_kernel<<<1, 1, 0, stream>>>(qoff, n);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid quick_init_kernel");
    int cur = -1;  // -1: still the float input
    for (int pass = 0; pass < passes; ++pass) {
      // The first pass follows the initialisation kernel, each later one the pass before.
      const StepStart start = pass > 0 ? StepStart::AtLastStepEnd : StepStart::OwnEvent;
      StepScope step(timer, kPartitionNames[std::min(pass, 16)], start);
      const std::uint32_t K = 1u << pass;
      const int buckets = static_cast<int>(2 * K + 1);
      if (pass > 0) DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(counts, 0, static_cast<std::size_t>(buckets) * 4, stream));
      const QuickSplit split{qoff, quick_.qpivot.data(), K};
      uint2* dst = bufs[cur == 0 ? 1 : 0];
      // The first pass reads the input pairs, later ones the packed pairs of the previous pass.
      const auto partition = [&](const auto& source) {
        quick_pivot_kernel<<<primitives::grid_for(K, 256, 4096), 256, 0, stream>>>(source, qoff, K,
                                                                                   quick_.qpivot.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid quick_pivot_kernel");
        launch_count(source, n, split, buckets, counts, stream);
        quick_offsets_kernel<<<1, Policy::kOneBlock, 0, stream>>>(counts, buckets, qnext, offsets_.cursor.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid quick_offsets_kernel");
        launch_scatter(source, n, split, buckets, offsets_.cursor.data(), PackedStore{dst}, stream);
      };
      if (cur < 0)
        partition(src);
      else
        partition(PackedPairs{bufs[cur]});
      cur = cur == 0 ? 1 : 0;
      std::swap(qoff, qnext);
    }
    Control* ctrl = reinterpret_cast<Control*>(zeroed_.data());
    {
      // After the last pass (with none, after the initialisation kernel).
      StepScope step(timer, "offsets", passes > 0 ? StepStart::AtLastStepEnd : StepStart::OwnEvent);
      launch_offsets(L + 1, -1, L, counts, ctrl, stream);
    }
    return cur == 1;
  }
};

}  // namespace depthsort::hybrid
