// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section
// 5.1: the sequence of `hybrid`, the bucketsort before the vector-mergesort (hybrid_base.cuh):
// pivots from a sorted sample (default; deviation 12) or the paper's min/max, histogram and refine
// (Fig. 5), then count (Fig. 4), offsets and reposition (Fig. 6); with global_merge=1 also Step 7
// as the paper executes it (Fig. 3).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <cub/device/device_radix_sort.cuh>

#include "sort/hybrid/global_merge.cuh"
#include "sort/hybrid/hybrid_base.cuh"

namespace depthsort::hybrid {

inline constexpr const char* kPassNames[] = {
    "merge-pass-01", "merge-pass-02", "merge-pass-03", "merge-pass-04", "merge-pass-05", "merge-pass-06",
    "merge-pass-07", "merge-pass-08", "merge-pass-09", "merge-pass-10", "merge-pass-11", "merge-pass-12",
    "merge-pass-13", "merge-pass-14", "merge-pass-15", "merge-pass-16", "merge-pass-17", "merge-pass-18",
    "merge-pass-19", "merge-pass-20", "merge-pass-21", "merge-pass-22", "merge-pass-23", "merge-pass-24",
    "merge-pass-25", "merge-pass-26", "merge-pass-27", "merge-pass-28", "merge-pass-29", "merge-pass-30"};

class HybridBucketSorter : public HybridBase {
 public:
  explicit HybridBucketSorter(const HybridOptions& options, const char* name = "hybrid",
                              Pivots pivots = Pivots::ThisFrame)
      : HybridBase(name, Split::Bucket, pivots, options) {}

 protected:
  SplitResult split(const SplitInput& in, cudaStream_t stream, StepTimer& timer) override {
    bucket_split(in.src, in.n, in.L, in.bins, in.ctrl, in.hist, in.counts, in.counts2, in.first, stream, timer);
    if (options_.global_merge) {
      merge_in_global_memory(in.b, in.L, in.counts, stream, timer);
      return {in.L, 0, in.L - 1, packed_.data(), packed_.data(), true};
    }
    return {in.L, 0, in.L - 1, packed_.data(), packed_.data(), false};
  }

  // Section 5.1: min/max, histogram, refine (Fig. 5), count (Fig. 4), offsets, reposition (Fig. 6).
  // `first`: where its first step starts.
  virtual void bucket_split(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hist,
                            std::uint32_t* counts, std::uint32_t* counts2, StepStart first, cudaStream_t stream,
                            StepTimer& timer) {
    std::uint32_t* pivots = pivot_.pivots.data();
    std::uint32_t* spare = pivot_.pivots2.data();
    if (options_.splitter)
      sample_pivots(src, n, L, bins, ctrl, pivots, first, stream, timer);
    else
      histogram_pivots(src, n, L, bins, ctrl, hist, pivots, first, stream, timer);
    bucket_pass(src, n, L, bins, ctrl, counts, counts2, pivots, spare, stream, timer);
  }

  // True where the default count and two-level reposition take n pairs in L buckets.
  bool two_level(std::uint32_t n, int L) const {
    return !options_.atomic_count && !options_.global_merge && L <= 65536 && reposition_.bucket16.size() >= n;
  }

  // Deviation 12: pivots from a sorted sample of the keys (steps `sample`, `refine`).
  void sample_pivots(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* pivots,
                     StepStart first, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t s = sample_size(n, L);
    {
      StepScope step(timer, "sample", first);
      sample_keys_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(src.keys, n, s, 0x9E3779B9u,
                                                                                           pivot_.sample.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sample_keys_kernel");
      std::size_t temp_bytes = 0;
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
          nullptr, temp_bytes, pivot_.sample.data(), pivot_.sample_sorted.data(), static_cast<int>(s), 0, 32, stream));
      if (temp_bytes > pivot_.sample_temp_bytes)
        throw CapacityError(name() + ": the sample sort needs more temporary storage than was reserved");
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(pivot_.sample_temp.data(), temp_bytes, pivot_.sample.data(),
                                                          pivot_.sample_sorted.data(), static_cast<int>(s), 0, 32,
                                                          stream));
    }
    StepScope step(timer, "refine", StepStart::AtLastStepEnd);
    pivots_from_sample_kernel<<<1, Policy::kOneBlock, 0, stream>>>(pivot_.sample_sorted.data(), s, ctrl, bins, L,
                                                                   pivots, pivot_.table.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid pivots_from_sample_kernel");
  }

  // Section 5.1 as in the paper (splitter=0): min/max, histogram, refine (Fig. 5).
  void histogram_pivots(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hist,
                        std::uint32_t* pivots, StepStart first, cudaStream_t stream, StepTimer& timer) {
    {
      StepScope step(timer, "min/max", first);
      minmax_kernel<512><<<primitives::grid_for(n, 512 * 8, 4u * sm_count_), 512, 0, stream>>>(src.keys, n, ctrl);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid minmax_kernel");
    }
    {
      StepScope step(timer, "histogram", StepStart::AtLastStepEnd);
      histogram_kernel<512>
          <<<primitives::grid_for(n, 512 * 8, 2u * sm_count_), 512, bins * 4, stream>>>(src.keys, n, ctrl, bins, hist);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid histogram_kernel");
    }
    StepScope step(timer, "refine", StepStart::AtLastStepEnd);
    refine_from_histogram_kernel<<<1, Policy::kOneBlock, (bins + 1) * 4, stream>>>(hist, bins, ctrl, n, L, pivots,
                                                                                   pivot_.table.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid refine_from_histogram_kernel");
  }

  // Section 5.1 with the pivots found: further refinements, count (Fig. 4), offsets, reposition (Fig. 6).
  void bucket_pass(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* counts,
                   std::uint32_t* counts2, std::uint32_t* pivots, std::uint32_t* spare, cudaStream_t stream,
                   StepTimer& timer) {
    for (int r = 1; r < options_.refinements; ++r) {
      {
        StepScope step(timer, "count", StepStart::AtLastStepEnd);
        DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(counts2, 0, static_cast<std::size_t>(L) * 4, stream));
        launch_count(src, n, BoundSearch{pivots, pivot_.table.data(), ctrl, bins}, L, counts2, stream);
      }
      StepScope step(timer, "refine", StepStart::AtLastStepEnd);
      refine_from_counts_kernel<<<1, Policy::kOneBlock, 0, stream>>>(counts2, pivots, pivot_.cum.data(), ctrl, bins, n,
                                                                     L, spare, pivot_.table.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid refine_from_counts_kernel");
      std::swap(pivots, spare);
    }
    const BoundSearch search{pivots, pivot_.table.data(), ctrl, bins};
    if (two_level(n, L)) {
      {
        StepScope step(timer, "count", StepStart::AtLastStepEnd);
        count_pass(src, n, L, bins, ctrl, counts, pivots, stream);
      }
      reposition_pass(src, n, L, ctrl, counts, stream, timer);
      return;
    }
    bucket_pass_general(src, n, L, bins, ctrl, counts, pivots, search, stream, timer);
  }

  // The default count: every key's bucket (16 bits, kept for the reposition) and the bucket sizes.
  void count_pass(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* counts,
                  std::uint32_t* pivots, cudaStream_t stream) {
    const BoundSearch search{pivots, pivot_.table.data(), ctrl, bins};
    const std::size_t smem = (2 * static_cast<std::size_t>(L) + bins + 1) * 4;
    if (smem <= search_smem_max_)
      count_search_smem_kernel<<<pass_grid(n), Policy::kPassThreads, smem, stream>>>(src, n, search, L, counts,
                                                                                     reposition_.bucket16.data());
    else
      launch_count(src, n, search, L, counts, stream, reposition_.bucket16.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_search_smem_kernel");
  }

  // The default offsets and two-level reposition, from count_pass's buckets.
  void reposition_pass(FloatPairs src, std::uint32_t n, int L, Control* ctrl, std::uint32_t* counts,
                       cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t fine = static_cast<std::uint32_t>((L + Policy::kCoarse - 1) / Policy::kCoarse);
    const int coarse = static_cast<int>((static_cast<std::uint32_t>(L) + fine - 1) / fine);
    {
      StepScope step(timer, "offsets", StepStart::AtLastStepEnd);
      launch_offsets(L, 0, L - 1, counts, ctrl, stream);
      coarse_kernel<<<1, Policy::kCoarse, 0, stream>>>(offsets_.offset.data(), L, fine, coarse,
                                                       reposition_.coarse_cursor.data(), reposition_.fine_items.data(),
                                                       ctrl);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid coarse_kernel");
    }
    StepScope step(timer, "reposition", StepStart::AtLastStepEnd);
    const int smem = sizeof(TileScatterSmem);
    scatter_coarse_kernel<<<primitives::grid_for(n, Policy::kScatterTile, 2u * sm_count_), Policy::kScatterThreads,
                            smem, stream>>>(src, n, reposition_.bucket16.data(), fine, coarse,
                                            reposition_.coarse_cursor.data(), packed2_.data(),
                                            reposition_.moved16.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_coarse_kernel");
    const unsigned tiles = static_cast<unsigned>(coarse + n / Policy::kScatterTile + 1);
    scatter_fine_kernel<<<tiles, Policy::kScatterThreads, smem, stream>>>(
        packed2_.data(), reposition_.moved16.data(), offsets_.offset.data(), reposition_.fine_items.data(), ctrl, fine,
        L, offsets_.cursor.data(), packed_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_fine_kernel");
  }

  // The paper's count and reposition (atomic_count, global_merge) and the generic one for large L.
  void bucket_pass_general(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* counts,
                           std::uint32_t* pivots, const BoundSearch& search, cudaStream_t stream, StepTimer& timer) {
    {
      StepScope step(timer, "count", StepStart::AtLastStepEnd);
      if (options_.atomic_count) {
        count_by_pivot_search_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(
            src, n, pivots, L, counts, paper_.sublist.data(), paper_.index.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_by_pivot_search_kernel");
      } else {
        launch_count(src, n, BoundSearch{pivots, pivot_.table.data(), ctrl, bins}, L, counts, stream);
      }
    }
    {
      StepScope step(timer, "offsets", StepStart::AtLastStepEnd);
      launch_offsets(L, 0, L - 1, counts, ctrl, stream);
    }
    StepScope step(timer, "reposition", StepStart::AtLastStepEnd);
    if (options_.atomic_count) {
      if (options_.global_merge)
        move_to_bucket_place_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(
            src, n, paper_.sublist.data(), paper_.index.data(), offsets_.base.data(),
            SplitStore{paper_.pkeys[0].data(), paper_.pvalues[0].data()});
      else
        move_to_bucket_place_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(
            src, n, paper_.sublist.data(), paper_.index.data(), offsets_.base.data(), PackedStore{packed_.data()});
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid move_to_bucket_place_kernel");
    } else {
      if (options_.global_merge)
        launch_scatter(src, n, search, L, offsets_.cursor.data(),
                       SplitStore{paper_.pkeys[0].data(), paper_.pvalues[0].data()}, stream);
      else
        launch_scatter(src, n, search, L, offsets_.cursor.data(), PackedStore{packed_.data()}, stream);
    }
  }

  // Step 7 as the paper executes it: sortElements, then one launch per merge pass (Fig. 3).
  void merge_in_global_memory(const SortBuffers& b, int L, const std::uint32_t* counts, cudaStream_t stream,
                              StepTimer& timer) {
    auto& keys = paper_.pkeys;
    auto& values = paper_.pvalues;
    const PaddedArgs args{counts, offsets_.poff.data(), offsets_.offset.data(), L, 0, L - 1};
    const unsigned grid_y = static_cast<unsigned>(std::min(L, 65535));
    const std::size_t per_bucket = b.n / static_cast<std::size_t>(L) + 4;
    {
      StepScope step(timer, "sort-elements", StepStart::AtLastStepEnd);
      const dim3 grid(primitives::grid_for(per_bucket / 4 + 1, 128, 1u << 16), grid_y);
      sort_elements_kernel<<<grid, 128, 0, stream>>>(args, reinterpret_cast<uint4*>(keys[0].data()),
                                                     reinterpret_cast<uint4*>(values[0].data()));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sort_elements_kernel");
    }
    const int passes = primitives::ceil_log2((b.n + 3) / 4 + 1);
    for (int pass = 0; pass < passes; ++pass) {
      StepScope step(timer, kPassNames[std::min(pass, 29)], StepStart::AtLastStepEnd);
      const std::size_t pairs = per_bucket / (std::size_t{8} << pass) + 1;
      const dim3 grid(primitives::grid_for(2 * pairs, 64, 1u << 16), grid_y);
      const int s = pass & 1;
      merge_list_pairs_kernel<<<grid, 64, 0, stream>>>(
          args, static_cast<std::uint32_t>(pass), reinterpret_cast<const uint4*>(keys[s].data()),
          reinterpret_cast<const uint4*>(values[s].data()), reinterpret_cast<uint4*>(keys[1 - s].data()),
          reinterpret_cast<uint4*>(values[1 - s].data()));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid merge_list_pairs_kernel");
    }
    StepScope step(timer, "compact", StepStart::AtLastStepEnd);
    const dim3 grid(primitives::grid_for(per_bucket, 256, 1u << 16), grid_y);
    compact_kernel<<<grid, 256, 0, stream>>>(args, keys[0].data(), values[0].data(), keys[1].data(), values[1].data(),
                                             b.keys_out, b.values_out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid compact_kernel");
  }
};

}  // namespace depthsort::hybrid
