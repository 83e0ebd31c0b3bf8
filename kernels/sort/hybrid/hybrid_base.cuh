// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): the host
// dispatcher the three registry sorters share: the workspace (reserved once), the shuffle of
// Section 5.1, and the vector-mergesort of every bucket or sublist (Sections 4 and 6: steps
// `vector-merge`, `vector-merge-global`). How the buckets are made is each sorter's own sequence:
// hybrid_bucket.cuh (`hybrid`, Section 5.1), hybrid_coherent.cuh (`hybrid-coherent`),
// hybrid_quick.cuh (`hybrid-quick`, Section 5.2). Nothing goes through the host between steps
// (pivots are found on the GPU).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/hybrid/binning.cuh"
#include "sort/hybrid/bucketing.cuh"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_sorter.hpp"
#include "sort/hybrid/quick_split.cuh"
#include "sort/hybrid/sample_split.cuh"
#include "sort/hybrid/shuffle.cuh"
#include "sort/hybrid/vector_merge.cuh"
#include "sort/hybrid/vector_merge_global.cuh"
#include "sort/hybrid/workspace.hpp"
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::hybrid {

// Largest n the 32-bit indices of the kernels allow, with room for padding: below Sorter::kMaxPairs
// (named apart from it, which a member function would find first).
inline constexpr std::size_t kMaxHybridPairs = (std::size_t{1} << 31) - (std::size_t{1} << 24);

enum class Split { Bucket, Quick };
// Where the bucket pivots come from: this frame's keys only, or the last sort's output.
enum class Pivots { ThisFrame, LastFrame };

class HybridBase : public Sorter {
 public:
  HybridBase(const char* name, Split split, Pivots pivots, const HybridOptions& options)
      : Sorter(name, Backend::Gpu), split_(split), last_frame_pivots_(pivots == Pivots::LastFrame), options_(options) {}

  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  // The buckets (sublists) of the last sort: offset[b] is bucket b's first output position.
  Segments segments() const override {
    return Segments{offsets_.offset.data(), segment_count_, split_ == Split::Bucket ? "bucket" : "sublist"};
  }

 protected:
  // What a sort's split hands the vector-mergesort: the pointers into the zeroed area, and where
  // its first step starts.
  struct SplitInput {
    const SortBuffers& b;
    FloatPairs src;
    std::uint32_t n;
    int L;
    int bins;
    Control* ctrl;
    std::uint32_t* hist;
    std::uint32_t* counts;
    std::uint32_t* counts2;
    StepStart first;
  };
  // What it leaves: the buckets (sublists) to merge, those the merge skips (the quicksort's
  // set-aside), where the bucketed pairs are and the buffer the on-chip pass may write; `sorted`
  // where the split's sorter finished the sort itself (the paper's global merge).
  struct SplitResult {
    int buckets;
    int skip_lo;
    int skip_hi;
    const uint2* bucketed;
    uint2* tmp;
    bool sorted;
  };

  // The sorter's own sequence from the (shuffled) input to the bucketed pairs.
  virtual SplitResult split(const SplitInput& in, cudaStream_t stream, StepTimer& timer) = 0;
  // After the sort's last step (hybrid-coherent keeps its splitters here).
  virtual void finish(const SortBuffers&, int /*L*/, cudaStream_t, StepTimer&) {}

  // Number of buckets (sublists) for n pairs.
  int buckets_for(std::size_t n) const {
    if (split_ == Split::Quick) {
      int sublists = options_.buckets;
      if (sublists <= 0) {
        const std::size_t target = std::max<std::size_t>(1, n / Policy::kTargetBucket);
        sublists = 1 << std::clamp(primitives::ceil_log2(target), 1, 16);
      }
      return std::max(2, 1 << primitives::ceil_log2(static_cast<std::size_t>(sublists)));
    }
    if (options_.buckets > 0) return std::max(4, options_.buckets);
    if (options_.splitter) {
      const std::size_t target = (n + Policy::kSampleTargetBucket - 1) / Policy::kSampleTargetBucket;
      return static_cast<int>(std::clamp<std::size_t>(target, Policy::kMinBuckets, Policy::kSampleMaxBuckets));
    }
    const std::size_t target = (n + Policy::kTargetBucket - 1) / Policy::kTargetBucket;
    return static_cast<int>(std::clamp<std::size_t>(target, Policy::kMinBuckets, Policy::kMaxAutoBuckets));
  }

  // Keys in the splitter sample: oversample per bucket, at most every key.
  std::uint32_t sample_size(std::size_t n, int L) const {
    return static_cast<std::uint32_t>(std::min<std::size_t>(n, static_cast<std::size_t>(L) * options_.oversample));
  }

  void do_reserve(std::size_t max_n) override {
    if (max_n > kMaxHybridPairs)
      throw CapacityError(name() + ": cannot reserve for " + std::to_string(max_n) + " pairs: at most " +
                          std::to_string(kMaxHybridPairs) + " pairs (32-bit indices)");
    // A larger reservation must not need the old and the new workspace at once.
    release_workspace();
    workspace_bytes_ = 0;
    const std::string& owner = name();
    auto u32 = [&](std::size_t count) {
      workspace_bytes_ += count * 4;
      return DeviceBuffer<std::uint32_t>(count, owner);
    };
    const std::size_t L = static_cast<std::size_t>(buckets_for(max_n)) + 1;  // quick: + set-aside
    const std::size_t bins = static_cast<std::size_t>(std::max(options_.histogram_bins, 16));
    max_items_ = L + max_n / Policy::kCap + 2;
    // One zeroed area: Control, histogram, counts, second counts, unsorted flags.
    zero_words_ = sizeof(Control) / 4 + bins + (L + 1) * 3;
    zeroed_ = u32(zero_words_);
    pivot_.pivots = u32(L);
    pivot_.pivots2 = u32(L);
    pivot_.table = u32(bins + 1);
    pivot_.cum = u32(L + 1);
    offsets_.offset = u32(L + 1);
    offsets_.base = u32(L);
    offsets_.cursor = u32(L);
    offsets_.poff = u32(L);
    merge_.ov_bucket = u32(L);
    merge_.ov_tile_start = u32(L + 1);
    merge_.items = DeviceBuffer<uint2>(max_items_, owner);
    merge_.tile_start = u32(max_items_);
    merge_.chunk_mm = DeviceBuffer<uint2>(max_items_, owner);
    workspace_bytes_ += 2 * max_items_ * sizeof(uint2);
    if (options_.shuffle) {
      shuffled_.keys = DeviceBuffer<float>(max_n, owner);
      shuffled_.values = u32(max_n);
      workspace_bytes_ += max_n * 4;
    }
    packed_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
    workspace_bytes_ += max_n * sizeof(uint2);
    if (split_ == Split::Bucket && last_frame_pivots_) {
      coherent_.last_sample = u32(sample_size(max_n, static_cast<int>(L)));
      coherent_.last_sample_size = 0;  // a new reservation starts with no last frame
      coherent_.overflow = u32(2);
    }
    if (split_ == Split::Bucket && options_.splitter) {
      const std::uint32_t s = sample_size(max_n, static_cast<int>(L));
      pivot_.sample = u32(s);
      pivot_.sample_sorted = u32(s);
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, pivot_.sample_temp_bytes, pivot_.sample.data(),
                                                          pivot_.sample_sorted.data(), static_cast<int>(s)));
      pivot_.sample_temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(pivot_.sample_temp_bytes, 1), owner);
      workspace_bytes_ += pivot_.sample_temp_bytes;
    }
    if (split_ == Split::Quick) {
      packed2_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
      workspace_bytes_ += max_n * sizeof(uint2);
      quick_.qoff = u32(L + 2);
      quick_.qoff2 = u32(L + 2);
      quick_.qpivot = u32(L);
    }
    if (options_.atomic_count) {
      paper_.sublist = u32(max_n);
      paper_.index = u32(max_n);
    }
    if (options_.global_merge) {
      const std::size_t padded = max_n + 3 * L + 4;
      for (int i = 0; i < 2; ++i) {
        paper_.pkeys[i] = u32(padded);
        paper_.pvalues[i] = u32(padded);
      }
    }
    sm_count_ = primitives::multiprocessor_count();
    // Hopper gives a block up to 227 KB; desktop GPUs 64-99 KB. Where the count's pivots, table
    // and counters do not fit, it takes the count kernel that keeps them in global memory; where a
    // pass's block-local counters do not, the pass counts in global memory.
    search_smem_max_ = std::min(Policy::kSearchSmemMax, primitives::dynamic_smem_limit(count_search_smem_kernel));
    smem_buckets_max_ = Policy::kSmemBucketsMax;
    for (const void* f : counter_kernels())
      smem_buckets_max_ = std::min(smem_buckets_max_, static_cast<int>(primitives::dynamic_smem_limit(f) / 4));
    if (split_ == Split::Bucket && !options_.atomic_count && !options_.global_merge) {
      reposition_.bucket16 = DeviceBuffer<std::uint16_t>(std::max<std::size_t>(max_n, 1), owner);
      reposition_.moved16 = DeviceBuffer<std::uint16_t>(std::max<std::size_t>(max_n, 1), owner);
      packed2_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
      reposition_.coarse_cursor = u32(Policy::kCoarse);
      reposition_.fine_items = DeviceBuffer<uint2>(Policy::kCoarse + max_n / Policy::kScatterTile + 2, owner);
      workspace_bytes_ += max_n * (2 + 2 + 8) + (Policy::kCoarse + max_n / Policy::kScatterTile + 2) * 8;
    }
    const int onchip_smem = 4 * Policy::kCap * 4;
    for (const void* f : {reinterpret_cast<const void*>(vector_merge_onchip_kernel<16>),
                          reinterpret_cast<const void*>(vector_merge_onchip_kernel<8>)})
      primitives::allow_dynamic_smem(f, onchip_smem, "hybrid vector_merge_onchip_kernel");
    primitives::allow_dynamic_smem(vector_merge_global_kernel, onchip_smem, "hybrid vector_merge_global_kernel");
    int blocks_per_sm = 0;
    DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, vector_merge_global_kernel,
                                                                       Policy::kSortThreads, onchip_smem));
    cooperative_blocks_ = std::max(1, blocks_per_sm) * sm_count_;
    set_smem_limits();
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    segment_count_ = 0;
    if (n == 0) return;
    const int L = buckets_for(b.n);
    std::uint32_t* zero = zeroed_.data();
    Control* ctrl = reinterpret_cast<Control*>(zero);
    const int bins = std::max(options_.histogram_bins, 16);
    std::uint32_t* hist = zero + sizeof(Control) / 4;
    std::uint32_t* counts = hist + bins;
    std::uint32_t* counts2 = counts + (L + 2);
    std::uint32_t* unsorted = counts2 + (L + 2);
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(zero, 0, zero_words_ * 4, stream));

    FloatPairs src{b.keys_in, b.values_in};
    if (options_.shuffle) {
      StepScope step(timer, "shuffle");
      const int bits = std::max(2, primitives::ceil_log2(b.n) + (primitives::ceil_log2(b.n) & 1));
      const Feistel perm{static_cast<std::uint32_t>(bits / 2), (1u << (bits / 2)) - 1u, n,
                         0x2545F491u * static_cast<std::uint32_t>(++shuffle_serial_)};
      shuffle_kernel<<<primitives::grid_for(n, 256, 8u * sm_count_ * 8u), 256, 0, stream>>>(
          b.keys_in, b.values_in, shuffled_.keys.data(), shuffled_.values.data(), n, perm);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid shuffle_kernel");
      src = FloatPairs{shuffled_.keys.data(), shuffled_.values.data()};
    }

    // Its first step starts where the shuffle ends; without one, after the zeroing.
    const StepStart first = options_.shuffle ? StepStart::AtLastStepEnd : StepStart::OwnEvent;
    const SplitResult split_result =
        split(SplitInput{b, src, n, L, bins, ctrl, hist, counts, counts2, first}, stream, timer);
    const int final_buckets = split_result.buckets;
    segment_count_ = static_cast<std::uint32_t>(final_buckets);
    if (split_result.sorted) {
      finish(b, L, stream, timer);
      return;
    }
    {
      StepScope step(timer, "vector-merge", StepStart::AtLastStepEnd);
      SortStageArgs args{split_result.bucketed,
                         counts,
                         offsets_.offset.data(),
                         merge_.items.data(),
                         ctrl,
                         split_result.skip_lo,
                         split_result.skip_hi,
                         b.keys_out,
                         b.values_out,
                         split_result.tmp,
                         merge_.chunk_mm.data(),
                         options_.word_merge};
      const std::size_t items = static_cast<std::size_t>(final_buckets) + b.n / Policy::kCap + 2;
      const unsigned grid = static_cast<unsigned>(items);
      // Outputs per thread: 8 (twice the threads) while the chunks are too few to fill the GPU
      // with 4 blocks per SM, else 16 (half the merge-path searches).
      const int outputs = options_.merge_outputs == 8 || options_.merge_outputs == 16
                              ? options_.merge_outputs
                              : (final_buckets < 4 * sm_count_ ? 8 : 16);
      if (outputs == 8)
        vector_merge_onchip_kernel<8><<<grid, Policy::kCap / 8, 4 * Policy::kCap * 4, stream>>>(args);
      else
        vector_merge_onchip_kernel<16><<<grid, Policy::kCap / 16, 4 * Policy::kCap * 4, stream>>>(args);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid vector_merge_onchip_kernel");
    }
    {
      StepScope step(timer, "vector-merge-global", StepStart::AtLastStepEnd);
      OversizedArgs args{ctrl,
                         counts,
                         offsets_.offset.data(),
                         merge_.items.data(),
                         merge_.chunk_mm.data(),
                         merge_.ov_bucket.data(),
                         merge_.ov_tile_start.data(),
                         unsorted,
                         merge_.tile_start.data(),
                         split_result.skip_lo,
                         split_result.skip_hi,
                         b.keys_out,
                         b.values_out,
                         split_result.tmp};
      void* params[] = {&args};
      DEPTHSORT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(vector_merge_global_kernel),
                                                       dim3(cooperative_blocks_), dim3(Policy::kSortThreads), params,
                                                       4 * Policy::kCap * 4, stream));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid vector_merge_global_kernel");
    }
    finish(b, L, stream, timer);
  }

  // The passes' kernels that count in shared memory (a word a bucket, up to smem_buckets_max_).
  static std::array<const void*, 7> counter_kernels() {
    return {reinterpret_cast<const void*>(count_kernel<true, FloatPairs, BoundSearch>),
            reinterpret_cast<const void*>(scatter_kernel<true, FloatPairs, BoundSearch, PackedStore>),
            reinterpret_cast<const void*>(scatter_kernel<true, FloatPairs, BoundSearch, SplitStore>),
            reinterpret_cast<const void*>(count_kernel<true, FloatPairs, QuickSplit>),
            reinterpret_cast<const void*>(count_kernel<true, PackedPairs, QuickSplit>),
            reinterpret_cast<const void*>(scatter_kernel<true, FloatPairs, QuickSplit, PackedStore>),
            reinterpret_cast<const void*>(scatter_kernel<true, PackedPairs, QuickSplit, PackedStore>)};
  }

  void set_smem_limits() {
    for (const void* f : counter_kernels())
      primitives::allow_dynamic_smem(f, smem_buckets_max_ * std::size_t{4}, "hybrid count or scatter kernel");
    primitives::allow_dynamic_smem(count_search_smem_kernel, search_smem_max_, "hybrid count_search_smem_kernel");
    primitives::allow_dynamic_smem(scatter_coarse_kernel, sizeof(TileScatterSmem), "hybrid scatter_coarse_kernel");
    primitives::allow_dynamic_smem(scatter_fine_kernel, sizeof(TileScatterSmem), "hybrid scatter_fine_kernel");
    // Histogram bins beyond this GPU's shared memory (an H above about 16000 on a 64 KB GPU) are
    // refused here, naming the kernel and the bytes.
    const std::size_t bins = static_cast<std::size_t>(std::max(options_.histogram_bins, 16));
    primitives::allow_dynamic_smem(histogram_kernel<512>, bins * 4, "hybrid histogram_kernel (option histogram_bins)");
    primitives::allow_dynamic_smem(refine_from_histogram_kernel, (bins + 1) * 4,
                                   "hybrid refine_from_histogram_kernel (option histogram_bins)");
  }

  unsigned pass_grid(std::uint32_t n) const {
    return primitives::grid_for(n, Policy::kPassThreads * Policy::kPassItems, static_cast<unsigned>(2 * sm_count_));
  }

  template <class Src, class Bucketer>
  void launch_count(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* counts,
                    cudaStream_t stream, std::uint16_t* bucket_of = nullptr) {
    if (buckets <= smem_buckets_max_)
      count_kernel<true, Src, Bucketer>
          <<<pass_grid(n), Policy::kPassThreads, buckets * 4, stream>>>(src, n, bucketer, buckets, counts, bucket_of);
    else
      count_kernel<false, Src, Bucketer>
          <<<pass_grid(n), Policy::kPassThreads, 0, stream>>>(src, n, bucketer, buckets, counts, bucket_of);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_kernel");
  }

  template <class Src, class Bucketer, class Dst>
  void launch_scatter(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* cursor, Dst dst,
                      cudaStream_t stream) {
    if (buckets <= smem_buckets_max_)
      scatter_kernel<true, Src, Bucketer, Dst>
          <<<pass_grid(n), Policy::kPassThreads, buckets * 4, stream>>>(src, n, bucketer, buckets, cursor, dst);
    else
      scatter_kernel<false, Src, Bucketer, Dst>
          <<<pass_grid(n), Policy::kPassThreads, 0, stream>>>(src, n, bucketer, buckets, cursor, dst);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_kernel");
  }

  void launch_offsets(int L, int skip_lo, int skip_hi, const std::uint32_t* counts, Control* ctrl,
                      cudaStream_t stream) {
    OffsetsArgs args{counts,
                     L,
                     skip_lo,
                     skip_hi,
                     options_.global_merge,
                     offsets_.offset.data(),
                     offsets_.base.data(),
                     offsets_.cursor.data(),
                     offsets_.poff.data(),
                     options_.global_merge ? paper_.pkeys[0].data() : nullptr,
                     options_.global_merge ? paper_.pvalues[0].data() : nullptr,
                     merge_.items.data(),
                     merge_.ov_bucket.data(),
                     merge_.ov_tile_start.data(),
                     ctrl};
    offsets_kernel<<<1, Policy::kOneBlock, 0, stream>>>(args);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid offsets_kernel");
  }

  // Every buffer, freed before a new reservation.
  void release_workspace() {
    zeroed_ = {};
    packed_ = {};
    packed2_ = {};
    shuffled_ = {};
    pivot_ = {};
    coherent_.last_sample = {};
    coherent_.overflow = {};
    offsets_ = {};
    reposition_ = {};
    merge_ = {};
    quick_ = {};
    paper_ = {};
  }

  Split split_;
  bool last_frame_pivots_ = false;
  HybridOptions options_;
  std::uint32_t segment_count_ = 0;
  int sm_count_ = 132;
  int cooperative_blocks_ = 132;
  std::uint64_t shuffle_serial_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::size_t zero_words_ = 0;
  std::size_t max_items_ = 0;
  std::size_t search_smem_max_ = Policy::kSearchSmemMax;  // shared memory the default count may take here
  int smem_buckets_max_ = Policy::kSmemBucketsMax;        // buckets whose counters a pass keeps in shared memory here

  // One zeroed area (Control, histogram, counts, second counts, unsorted flags), memset each sort.
  DeviceBuffer<std::uint32_t> zeroed_;
  // The bucketed pairs as 8-byte words: packed_, and packed2_ (the quicksort's second buffer of
  // its ping-pong; the two-level reposition's intermediate).
  DeviceBuffer<uint2> packed_, packed2_;
  ShuffleBuffers shuffled_;
  PivotBuffers pivot_;
  CoherentBuffers coherent_;
  OffsetBuffers offsets_;
  RepositionBuffers reposition_;
  MergeBuffers merge_;
  QuickBuffers quick_;
  PaperBuffers paper_;
};

}  // namespace depthsort::hybrid
