// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section
// 5.1 for frames: the sequence of `hybrid-coherent`, whose pivots are the last sort's output at
// equal ranks (no sample sort), checked on a sample of this frame's keys; a camera cut falls back
// to `hybrid`'s sequence (hybrid_bucket.cuh) in the same sort.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sort/hybrid/hybrid_bucket.cuh"

namespace depthsort::hybrid {

class HybridCoherentSorter final : public HybridBucketSorter {
 public:
  explicit HybridCoherentSorter(const HybridOptions& options)
      : HybridBucketSorter(options, "hybrid-coherent", Pivots::LastFrame) {}

 protected:
  void bucket_split(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hist,
                    std::uint32_t* counts, std::uint32_t* counts2, StepStart first, cudaStream_t stream,
                    StepTimer& timer) override {
    if (coherent_.last_sample_size > 0 && two_level(n, L)) {
      if (coherent_pivots(src, n, L, bins, ctrl, counts2, pivot_.pivots.data(), first, stream, timer)) {
        {
          // The verdict was read inside the validation step: nothing is queued after its end.
          StepScope step(timer, "count", StepStart::AtLastStepEnd);
          count_pass(src, n, L, bins, ctrl, counts, pivot_.pivots.data(), stream);
        }
        reposition_pass(src, n, L, ctrl, counts, stream, timer);
        ++coherent_sorts_;
        return;
      }
      // A cut: this frame from scratch.
      ++fallback_sorts_;
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(zeroed_.data(), 0, zero_words_ * 4, stream));
      first = StepStart::OwnEvent;  // the zeroing lies between
    }
    HybridBucketSorter::bucket_split(src, n, L, bins, ctrl, hist, counts, counts2, first, stream, timer);
  }

  // Step `keep-splitters`: the sorted output's keys at s equal ranks, the splitters of the next
  // sort. On the device, no host sync.
  void finish(const SortBuffers& b, int L, cudaStream_t stream, StepTimer& timer) override {
    StepScope step(timer, "keep-splitters", StepStart::AtLastStepEnd);
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t s = std::min(sample_size(b.n, L), static_cast<std::uint32_t>(coherent_.last_sample.size()));
    keep_splitters_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(
        b.keys_out, n, s, coherent_.last_sample.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid keep_splitters_kernel");
    coherent_.last_sample_size = s;
  }

 private:
  // Pivots from the last sort's splitters, then a sample of this frame's keys counted into those
  // buckets, then one small host round trip (8 bytes) to read whether any bucket would overflow.
  // Returns false when the estimated bucket sizes say the last frame's order no longer holds (a
  // camera cut): the caller then runs the normal path in this same sort, having spent only the
  // sample's cost. The validation estimates; a bucket that still overflows stays exact (the global
  // merge of oversized buckets), it only costs time.
  bool coherent_pivots(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hits,
                       std::uint32_t* pivots, StepStart first, cudaStream_t stream, StepTimer& timer) {
    {
      StepScope step(timer, "refine", first);
      pivots_from_sample_kernel<<<1, Policy::kOneBlock, 0, stream>>>(
          coherent_.last_sample.data(), coherent_.last_sample_size, ctrl, bins, L, pivots, pivot_.table.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid pivots_from_sample_kernel");
    }
    StepScope step(timer, "validate", StepStart::AtLastStepEnd);
    const std::uint32_t s = sample_size(n, L);
    // hits: the zeroed area's second counters, unused on this path.
    sample_hits_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(
        src.keys, n, s, 0x9E3779B9u, BoundSearch{pivots, pivot_.table.data(), ctrl, bins}, hits);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sample_hits_kernel");
    // Sample hits per bucket that stand for kCap keys (at least 1).
    const std::uint32_t limit =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::uint64_t{Policy::kCap} * s / n));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(coherent_.overflow.data(), 0, 2 * sizeof(std::uint32_t), stream));
    bucket_overflow_kernel<<<1, Policy::kOneBlock, 0, stream>>>(hits, L, limit, coherent_.overflow.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid bucket_overflow_kernel");
    std::uint32_t verdict[2] = {0, 0};
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(verdict, coherent_.overflow.data(), sizeof verdict, cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    // verdict[0]: buckets estimated over what one block sorts on chip; verdict[1]: the largest
    // estimate. A few slightly oversized buckets the normal path also has; many, or one far too
    // big, mean a cut.
    const std::uint32_t allowed =
        std::max<std::uint32_t>(2, static_cast<std::uint32_t>(L) / Policy::kCoherentOversizedShare);
    const std::uint64_t largest_keys = std::uint64_t{verdict[1]} * n / std::max<std::uint32_t>(s, 1);
    return verdict[0] <= allowed && largest_keys <= Policy::kCoherentMaxBucket;
  }

  std::uint64_t coherent_sorts_ = 0, fallback_sorts_ = 0;
};

}  // namespace depthsort::hybrid
