// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008):
// the host dispatcher of `hybrid` (Section 5.1 bucketsort, then Section 4 vector-mergesort of
// every bucket, Section 6) and `hybrid-quick` (Section 5.2 partial quicksort, then the same).
// It owns the workspace (reserved once), launches the steps on the caller's stream and names each
// step in the timings: shuffle, sample (default) or min/max + histogram, refine, count, offsets,
// reposition, vector-merge. Nothing goes through the host between steps (pivots are found on the
// GPU).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/hybrid/binning.cuh"
#include "sort/hybrid/bucketing.cuh"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/quick_split.cuh"
#include "sort/hybrid/sample_split.cuh"
#include "sort/hybrid/shuffle.cuh"
#include "sort/hybrid/vector_merge.cuh"
#include "sort/hybrid/hybrid_sorter.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::hybrid {
namespace {

constexpr const char* kPassNames[] = {
    "merge-pass-01", "merge-pass-02", "merge-pass-03", "merge-pass-04", "merge-pass-05", "merge-pass-06",
    "merge-pass-07", "merge-pass-08", "merge-pass-09", "merge-pass-10", "merge-pass-11", "merge-pass-12",
    "merge-pass-13", "merge-pass-14", "merge-pass-15", "merge-pass-16", "merge-pass-17", "merge-pass-18",
    "merge-pass-19", "merge-pass-20", "merge-pass-21", "merge-pass-22", "merge-pass-23", "merge-pass-24",
    "merge-pass-25", "merge-pass-26", "merge-pass-27", "merge-pass-28", "merge-pass-29", "merge-pass-30"};
constexpr const char* kPartitionNames[] = {
    "partition-01", "partition-02", "partition-03", "partition-04", "partition-05", "partition-06",
    "partition-07", "partition-08", "partition-09", "partition-10", "partition-11", "partition-12",
    "partition-13", "partition-14", "partition-15", "partition-16", "partition-17"};

// Shared memory the default count may take for its counters, pivots and table (one block per SM),
// at most: less where the device allows a block less.
constexpr std::size_t kSearchSmemMax = 200 * 1024;

// Largest n the 32-bit indices of the kernels allow, with room for padding: below Sorter::kMaxPairs
// (named apart from it, which a member function would find first).
constexpr std::size_t kMaxHybridPairs = (std::size_t{1} << 31) - (std::size_t{1} << 24);

enum class Split { Bucket, Quick };
// Where the bucket pivots come from: this frame's keys only, or the last sort's output.
enum class Pivots { ThisFrame, LastFrame };

const char* sorter_name(Split split, Pivots pivots) {
  if (split == Split::Quick) return "hybrid-quick";
  return pivots == Pivots::LastFrame ? "hybrid-coherent" : "hybrid";
}

class HybridSorter final : public Sorter {
 public:
  HybridSorter(Split split, const OptionValues& options, Pivots pivots = Pivots::ThisFrame)
      : Sorter(sorter_name(split, pivots), Backend::Gpu), split_(split), last_frame_pivots_(pivots == Pivots::LastFrame) {
    shuffle_ = option_value(options, "shuffle") != 0;
    buckets_option_ = option_value(options, "buckets");
    if (split == Split::Bucket) {
      bins_ = option_value(options, "histogram_bins");
      refinements_ = option_value(options, "refinements");
      atomic_count_ = option_value(options, "atomic_count") != 0;
      global_merge_ = option_value(options, "global_merge") != 0;
      merge_outputs_ = option_value(options, "merge_outputs");
      if (merge_outputs_ != 0 && merge_outputs_ != 8 && merge_outputs_ != 16)
        throw OptionError("hybrid: option 'merge_outputs' must be 0 (auto), 8 or 16, got " +
                          std::to_string(merge_outputs_));
      word_merge_ = option_value(options, "word_merge") != 0;
      sample_splitter_ = option_value(options, "splitter") != 0;
      oversample_ = option_value(options, "oversample");
    }
  }

  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  // The buckets (sublists) of the last sort: offset_[b] is bucket b's first output position.
  Segments segments() const override {
    return Segments{offset_.data(), segment_count_, split_ == Split::Bucket ? "bucket" : "sublist"};
  }

 protected:
  // Number of buckets (sublists) for n pairs.
  int buckets_for(std::size_t n) const {
    if (split_ == Split::Quick) {
      int sublists = buckets_option_;
      if (sublists <= 0) {
        const std::size_t target = std::max<std::size_t>(1, n / kTargetBucket);
        sublists = 1 << std::clamp(primitives::ceil_log2(target), 1, 16);
      }
      return std::max(2, 1 << primitives::ceil_log2(static_cast<std::size_t>(sublists)));
    }
    if (buckets_option_ > 0) return std::max(4, buckets_option_);
    if (sample_splitter_) {
      const std::size_t target = (n + kSampleTargetBucket - 1) / kSampleTargetBucket;
      return static_cast<int>(std::clamp<std::size_t>(target, kMinBuckets, kSampleMaxBuckets));
    }
    const std::size_t target = (n + kTargetBucket - 1) / kTargetBucket;
    return static_cast<int>(std::clamp<std::size_t>(target, kMinBuckets, kMaxAutoBuckets));
  }

  // Keys in the splitter sample: oversample per bucket, at most every key.
  std::uint32_t sample_size(std::size_t n, int L) const {
    return static_cast<std::uint32_t>(std::min<std::size_t>(n, static_cast<std::size_t>(L) * oversample_));
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
    const std::size_t bins = static_cast<std::size_t>(std::max(bins_, 16));
    max_items_ = L + max_n / kCap + 2;
    // One zeroed area: Control, histogram, counts, second counts, unsorted flags.
    zero_words_ = sizeof(Control) / 4 + bins + (L + 1) * 3;
    zeroed_ = u32(zero_words_);
    pivots_ = u32(L);
    pivots2_ = u32(L);
    table_ = u32(bins + 1);
    cum_ = u32(L + 1);
    offset_ = u32(L + 1);
    base_ = u32(L);
    cursor_ = u32(L);
    poff_ = u32(L);
    ov_bucket_ = u32(L);
    ov_tile_start_ = u32(L + 1);
    items_ = DeviceBuffer<uint2>(max_items_, owner);
    tile_start_ = u32(max_items_);
    chunk_mm_ = DeviceBuffer<uint2>(max_items_, owner);
    workspace_bytes_ += 2 * max_items_ * sizeof(uint2);
    if (shuffle_) {
      shuffled_keys_ = DeviceBuffer<float>(max_n, owner);
      shuffled_values_ = u32(max_n);
      workspace_bytes_ += max_n * 4;
    }
    packed_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
    workspace_bytes_ += max_n * sizeof(uint2);
    if (split_ == Split::Bucket && last_frame_pivots_) {
      // The splitters kept from the last sort (as many as the sample splitter draws), and the
      // overflow verdict of the bucket sizes they give.
      last_sample_ = u32(sample_size(max_n, static_cast<int>(L)));
      last_sample_size_ = 0;  // a new reservation starts with no last frame
      overflow_ = u32(2);
    }
    if (split_ == Split::Bucket && sample_splitter_) {
      const std::uint32_t s = sample_size(max_n, static_cast<int>(L));
      sample_ = u32(s);
      sample_sorted_ = u32(s);
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sample_temp_bytes_, sample_.data(),
                                                          sample_sorted_.data(), static_cast<int>(s)));
      sample_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(sample_temp_bytes_, 1), owner);
      workspace_bytes_ += sample_temp_bytes_;
    }
    if (split_ == Split::Quick) {
      packed2_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
      workspace_bytes_ += max_n * sizeof(uint2);
      qoff_ = u32(L + 2);
      qoff2_ = u32(L + 2);
      qpivot_ = u32(L);
    }
    if (atomic_count_) {
      sublist_ = u32(max_n);
      index_ = u32(max_n);
    }
    if (global_merge_) {
      const std::size_t padded = max_n + 3 * L + 4;
      for (int i = 0; i < 2; ++i) {
        pkeys_[i] = u32(padded);
        pvalues_[i] = u32(padded);
      }
    }
    sm_count_ = primitives::multiprocessor_count();
    // Hopper gives a block up to 227 KB; desktop GPUs 64-99 KB. Where the count's pivots, table
    // and counters do not fit, it takes the count kernel that keeps them in global memory; where a
    // pass's block-local counters do not, the pass counts in global memory.
    search_smem_max_ = std::min(kSearchSmemMax, primitives::dynamic_smem_limit(count_search_smem_kernel));
    smem_buckets_max_ = kSmemBucketsMax;
    for (const void* f : counter_kernels())
      smem_buckets_max_ = std::min(smem_buckets_max_, static_cast<int>(primitives::dynamic_smem_limit(f) / 4));
    if (split_ == Split::Bucket && !atomic_count_ && !global_merge_) {
      bucket16_ = DeviceBuffer<std::uint16_t>(std::max<std::size_t>(max_n, 1), owner);
      moved16_ = DeviceBuffer<std::uint16_t>(std::max<std::size_t>(max_n, 1), owner);
      packed2_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
      coarse_cursor_ = u32(kCoarse);
      fine_items_ = DeviceBuffer<uint2>(kCoarse + max_n / kScatterTile + 2, owner);
      workspace_bytes_ += max_n * (2 + 2 + 8) + (kCoarse + max_n / kScatterTile + 2) * 8;
    }
    const int onchip_smem = 4 * kCap * 4;
    for (const void* f : {reinterpret_cast<const void*>(vector_merge_onchip_kernel<16>),
                          reinterpret_cast<const void*>(vector_merge_onchip_kernel<8>)})
      primitives::allow_dynamic_smem(f, onchip_smem, "hybrid vector_merge_onchip_kernel");
    primitives::allow_dynamic_smem(vector_merge_global_kernel, onchip_smem, "hybrid vector_merge_global_kernel");
    int blocks_per_sm = 0;
    DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, vector_merge_global_kernel,
                                                                       kSortThreads, onchip_smem));
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
    const int bins = std::max(bins_, 16);
    std::uint32_t* hist = zero + sizeof(Control) / 4;
    std::uint32_t* counts = hist + bins;
    std::uint32_t* counts2 = counts + (L + 2);
    std::uint32_t* unsorted = counts2 + (L + 2);
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(zero, 0, zero_words_ * 4, stream));

    FloatPairs src{b.keys_in, b.values_in};
    if (shuffle_) {
      StepScope step(timer, "shuffle");
      const int bits = std::max(2, primitives::ceil_log2(b.n) + (primitives::ceil_log2(b.n) & 1));
      const Feistel perm{static_cast<std::uint32_t>(bits / 2), (1u << (bits / 2)) - 1u, n,
                         0x2545F491u * static_cast<std::uint32_t>(++shuffle_serial_)};
      shuffle_kernel<<<primitives::grid_for(n, 256, 8u * sm_count_ * 8u), 256, 0, stream>>>(
          b.keys_in, b.values_in, shuffled_keys_.data(), shuffled_values_.data(), n, perm);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid shuffle_kernel");
      src = FloatPairs{shuffled_keys_.data(), shuffled_values_.data()};
    }

    int final_buckets = L;
    int skip_lo = 0, skip_hi = L - 1;
    const uint2* bucketed = packed_.data();
    uint2* tmp = packed_.data();
    if (split_ == Split::Bucket) {
      // Its first step starts where the shuffle ends; without one, after the zeroing.
      const StepStart first = shuffle_ ? StepStart::AtLastStepEnd : StepStart::OwnEvent;
      bucket_split(src, n, L, bins, ctrl, hist, counts, counts2, first, stream, timer);
    } else {
      const bool in_second = quick_split(src, n, L, counts, stream, timer);
      final_buckets = L + 1;
      skip_lo = -1;
      skip_hi = L;
      bucketed = in_second ? packed2_.data() : packed_.data();
      tmp = in_second ? packed2_.data() : packed_.data();  // the on-chip pass reads before it writes
    }
    segment_count_ = static_cast<std::uint32_t>(final_buckets);
    if (split_ == Split::Bucket && global_merge_) {
      merge_in_global_memory(b, L, counts, stream, timer);
      keep_splitters(b, L, stream, timer);
      return;
    }
    {
      StepScope step(timer, "vector-merge", StepStart::AtLastStepEnd);
      SortStageArgs args{bucketed, counts, offset_.data(), items_.data(), ctrl, skip_lo, skip_hi,
                         b.keys_out, b.values_out, tmp, chunk_mm_.data(), word_merge_};
      const std::size_t items = static_cast<std::size_t>(final_buckets) + b.n / kCap + 2;
      const unsigned grid = static_cast<unsigned>(items);
      // Outputs per thread: 8 (twice the threads) while the chunks are too few to fill the GPU
      // with 4 blocks per SM, else 16 (half the merge-path searches).
      const int outputs = merge_outputs_ == 8 || merge_outputs_ == 16
                              ? merge_outputs_
                              : (final_buckets < 4 * sm_count_ ? 8 : 16);
      if (outputs == 8)
        vector_merge_onchip_kernel<8><<<grid, kCap / 8, 4 * kCap * 4, stream>>>(args);
      else
        vector_merge_onchip_kernel<16><<<grid, kCap / 16, 4 * kCap * 4, stream>>>(args);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid vector_merge_onchip_kernel");
    }
    {
      StepScope step(timer, "vector-merge-global", StepStart::AtLastStepEnd);
      OversizedArgs args{ctrl,     counts,   offset_.data(), items_.data(), chunk_mm_.data(), ov_bucket_.data(),
                         ov_tile_start_.data(), unsorted, tile_start_.data(), skip_lo, skip_hi, b.keys_out,
                         b.values_out, tmp};
      void* params[] = {&args};
      DEPTHSORT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(vector_merge_global_kernel),
                                                       dim3(cooperative_blocks_), dim3(kSortThreads), params,
                                                       4 * kCap * 4, stream));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid vector_merge_global_kernel");
    }
    keep_splitters(b, L, stream, timer);
  }

 private:
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
    const std::size_t bins = static_cast<std::size_t>(std::max(bins_, 16));
    primitives::allow_dynamic_smem(histogram_kernel<512>, bins * 4, "hybrid histogram_kernel (option histogram_bins)");
    primitives::allow_dynamic_smem(refine_from_histogram_kernel, (bins + 1) * 4,
                                   "hybrid refine_from_histogram_kernel (option histogram_bins)");
  }

  unsigned pass_grid(std::uint32_t n) const {
    return primitives::grid_for(n, kPassThreads * kPassItems, static_cast<unsigned>(2 * sm_count_));
  }

  template <class Src, class Bucketer>
  void launch_count(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* counts,
                    cudaStream_t stream, std::uint16_t* bucket_of = nullptr) {
    if (buckets <= smem_buckets_max_)
      count_kernel<true, Src, Bucketer><<<pass_grid(n), kPassThreads, buckets * 4, stream>>>(src, n, bucketer,
                                                                                             buckets, counts, bucket_of);
    else
      count_kernel<false, Src, Bucketer><<<pass_grid(n), kPassThreads, 0, stream>>>(src, n, bucketer, buckets,
                                                                                     counts, bucket_of);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_kernel");
  }

  template <class Src, class Bucketer, class Dst>
  void launch_scatter(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* cursor, Dst dst,
                      cudaStream_t stream) {
    if (buckets <= smem_buckets_max_)
      scatter_kernel<true, Src, Bucketer, Dst><<<pass_grid(n), kPassThreads, buckets * 4, stream>>>(
          src, n, bucketer, buckets, cursor, dst);
    else
      scatter_kernel<false, Src, Bucketer, Dst><<<pass_grid(n), kPassThreads, 0, stream>>>(src, n, bucketer,
                                                                                            buckets, cursor, dst);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_kernel");
  }

  void launch_offsets(int L, int skip_lo, int skip_hi, const std::uint32_t* counts, Control* ctrl,
                      cudaStream_t stream) {
    OffsetsArgs args{counts,          L,
                     skip_lo,         skip_hi,
                     global_merge_,   offset_.data(),
                     base_.data(),    cursor_.data(),
                     poff_.data(),    global_merge_ ? pkeys_[0].data() : nullptr,
                     global_merge_ ? pvalues_[0].data() : nullptr,
                     items_.data(),   ov_bucket_.data(),
                     ov_tile_start_.data(), ctrl};
    offsets_kernel<<<1, kOneBlock, 0, stream>>>(args);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid offsets_kernel");
  }

  // hybrid-coherent, step `keep-splitters`: the sorted output's keys at s equal ranks, the
  // splitters of the next sort. On the device, no host sync.
  void keep_splitters(const SortBuffers& b, int L, cudaStream_t stream, StepTimer& timer) {
    if (!last_frame_pivots_ || split_ != Split::Bucket) return;
    StepScope step(timer, "keep-splitters", StepStart::AtLastStepEnd);
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t s = std::min(sample_size(b.n, L), static_cast<std::uint32_t>(last_sample_.size()));
    keep_splitters_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(b.keys_out, n, s, last_sample_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid keep_splitters_kernel");
    last_sample_size_ = s;
  }

  // hybrid-coherent: pivots from the last sort's splitters, then a sample of this frame's keys
  // counted into those buckets, then one small host round trip (8 bytes) to read whether any
  // bucket would overflow. Returns false when the estimated bucket sizes say the last frame's
  // order no longer holds (a camera cut): the caller then runs the normal path in this same sort,
  // having spent only the sample's cost. The validation estimates; a bucket that still overflows
  // stays exact (the global merge of oversized buckets), it only costs time.
  bool coherent_pivots(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hits,
                       std::uint32_t* pivots, StepStart first, cudaStream_t stream, StepTimer& timer) {
    {
      StepScope step(timer, "refine", first);
      pivots_from_sample_kernel<<<1, kOneBlock, 0, stream>>>(last_sample_.data(), last_sample_size_, ctrl, bins, L,
                                                             pivots, table_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid pivots_from_sample_kernel");
    }
    StepScope step(timer, "validate", StepStart::AtLastStepEnd);
    const std::uint32_t s = sample_size(n, L);
    // hits: the zeroed area's second counters, unused on this path.
    sample_hits_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(
        src.keys, n, s, 0x9E3779B9u, BoundSearch{pivots, table_.data(), ctrl, bins}, hits);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sample_hits_kernel");
    // Sample hits per bucket that stand for kCap keys (at least 1).
    const std::uint32_t limit =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::uint64_t{kCap} * s / n));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(overflow_.data(), 0, 2 * sizeof(std::uint32_t), stream));
    bucket_overflow_kernel<<<1, kOneBlock, 0, stream>>>(hits, L, limit, overflow_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid bucket_overflow_kernel");
    std::uint32_t verdict[2] = {0, 0};
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(verdict, overflow_.data(), sizeof verdict, cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    // verdict[0]: buckets estimated over what one block sorts on chip; verdict[1]: the largest
    // estimate. A few slightly oversized buckets the normal path also has; many, or one far too
    // big, mean a cut.
    const std::uint32_t allowed = std::max<std::uint32_t>(2, static_cast<std::uint32_t>(L) / kCoherentOversizedShare);
    const std::uint64_t largest_keys = std::uint64_t{verdict[1]} * n / std::max<std::uint32_t>(s, 1);
    return verdict[0] <= allowed && largest_keys <= kCoherentMaxBucket;
  }

  // Section 5.1: min/max, histogram, refine (Fig. 5), count (Fig. 4), offsets, reposition (Fig. 6).
  // `first`: where its first step starts.
  void bucket_split(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* hist,
                    std::uint32_t* counts, std::uint32_t* counts2, StepStart first, cudaStream_t stream,
                    StepTimer& timer) {
    std::uint32_t* pivots = pivots_.data();
    std::uint32_t* spare = pivots2_.data();
    if (last_frame_pivots_ && last_sample_size_ > 0 && !atomic_count_ && !global_merge_ && L <= 65536 &&
        bucket16_.size() >= n) {
      if (coherent_pivots(src, n, L, bins, ctrl, counts2, pivots, first, stream, timer)) {
        {
          // The verdict was read inside the validation step: nothing is queued after its end.
          StepScope step(timer, "count", StepStart::AtLastStepEnd);
          count_pass(src, n, L, bins, ctrl, counts, pivots, stream);
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
    if (sample_splitter_)
      sample_pivots(src, n, L, bins, ctrl, pivots, first, stream, timer);
    else
      histogram_pivots(src, n, L, bins, ctrl, hist, pivots, first, stream, timer);
    bucket_pass(src, n, L, bins, ctrl, counts, counts2, pivots, spare, stream, timer);
  }

  // Deviation 12: pivots from a sorted sample of the keys (steps `sample`, `refine`).
  void sample_pivots(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* pivots,
                     StepStart first, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t s = sample_size(n, L);
    {
      StepScope step(timer, "sample", first);
      sample_keys_kernel<<<primitives::grid_for(s, 256, 4u * sm_count_), 256, 0, stream>>>(src.keys, n, s, 0x9E3779B9u,
                                                                              sample_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sample_keys_kernel");
      std::size_t temp_bytes = 0;
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, sample_.data(), sample_sorted_.data(),
                                                          static_cast<int>(s), 0, 32, stream));
      if (temp_bytes > sample_temp_bytes_)
        throw CapacityError(name() + ": the sample sort needs more temporary storage than was reserved");
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(sample_temp_.data(), temp_bytes, sample_.data(),
                                                          sample_sorted_.data(), static_cast<int>(s), 0, 32, stream));
    }
    StepScope step(timer, "refine", StepStart::AtLastStepEnd);
    pivots_from_sample_kernel<<<1, kOneBlock, 0, stream>>>(sample_sorted_.data(), s, ctrl, bins, L, pivots,
                                                           table_.data());
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
      histogram_kernel<512><<<primitives::grid_for(n, 512 * 8, 2u * sm_count_), 512, bins * 4, stream>>>(src.keys, n, ctrl,
                                                                                             bins, hist);
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid histogram_kernel");
    }
    StepScope step(timer, "refine", StepStart::AtLastStepEnd);
    refine_from_histogram_kernel<<<1, kOneBlock, (bins + 1) * 4, stream>>>(hist, bins, ctrl, n, L, pivots,
                                                                           table_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid refine_from_histogram_kernel");
  }

  // Section 5.1 with the pivots found: further refinements, count (Fig. 4), offsets, reposition (Fig. 6).
  void bucket_pass(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* counts,
                   std::uint32_t* counts2, std::uint32_t* pivots, std::uint32_t* spare, cudaStream_t stream,
                   StepTimer& timer) {
    for (int r = 1; r < refinements_; ++r) {
      {
        StepScope step(timer, "count", StepStart::AtLastStepEnd);
        DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(counts2, 0, static_cast<std::size_t>(L) * 4, stream));
        launch_count(src, n, BoundSearch{pivots, table_.data(), ctrl, bins}, L, counts2, stream);
      }
      StepScope step(timer, "refine", StepStart::AtLastStepEnd);
      refine_from_counts_kernel<<<1, kOneBlock, 0, stream>>>(counts2, pivots, cum_.data(), ctrl, bins, n, L, spare,
                                                             table_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid refine_from_counts_kernel");
      std::swap(pivots, spare);
    }
    const BoundSearch search{pivots, table_.data(), ctrl, bins};
    if (!atomic_count_ && !global_merge_ && L <= 65536 && bucket16_.size() >= n) {
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
    const BoundSearch search{pivots, table_.data(), ctrl, bins};
    const std::size_t smem = (2 * static_cast<std::size_t>(L) + bins + 1) * 4;
    if (smem <= search_smem_max_)
      count_search_smem_kernel<<<pass_grid(n), kPassThreads, smem, stream>>>(src, n, search, L, counts,
                                                                             bucket16_.data());
    else
      launch_count(src, n, search, L, counts, stream, bucket16_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_search_smem_kernel");
  }

  // The default offsets and two-level reposition, from count_pass's buckets.
  void reposition_pass(FloatPairs src, std::uint32_t n, int L, Control* ctrl, std::uint32_t* counts,
                       cudaStream_t stream, StepTimer& timer) {
    {
      const std::uint32_t fine = static_cast<std::uint32_t>((L + kCoarse - 1) / kCoarse);
      const int coarse = static_cast<int>((static_cast<std::uint32_t>(L) + fine - 1) / fine);
      {
        StepScope step(timer, "offsets", StepStart::AtLastStepEnd);
        launch_offsets(L, 0, L - 1, counts, ctrl, stream);
        coarse_kernel<<<1, kCoarse, 0, stream>>>(offset_.data(), L, fine, coarse, coarse_cursor_.data(),
                                                 fine_items_.data(), ctrl);
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid coarse_kernel");
      }
      StepScope step(timer, "reposition", StepStart::AtLastStepEnd);
      const int smem = sizeof(TileScatterSmem);
      scatter_coarse_kernel<<<primitives::grid_for(n, kScatterTile, 2u * sm_count_), kScatterThreads, smem, stream>>>(
          src, n, bucket16_.data(), fine, coarse, coarse_cursor_.data(), packed2_.data(), moved16_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_coarse_kernel");
      const unsigned tiles = static_cast<unsigned>(coarse + n / kScatterTile + 1);
      scatter_fine_kernel<<<tiles, kScatterThreads, smem, stream>>>(packed2_.data(), moved16_.data(), offset_.data(),
                                                                   fine_items_.data(), ctrl, fine, L, cursor_.data(),
                                                                   packed_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid scatter_fine_kernel");
    }
  }

  // The paper's count and reposition (atomic_count, global_merge) and the generic one for large L.
  void bucket_pass_general(FloatPairs src, std::uint32_t n, int L, int bins, Control* ctrl, std::uint32_t* counts,
                           std::uint32_t* pivots, const BoundSearch& search, cudaStream_t stream, StepTimer& timer) {
    {
      StepScope step(timer, "count", StepStart::AtLastStepEnd);
      if (atomic_count_) {
        count_by_pivot_search_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(src, n, pivots, L, counts,
                                                                          sublist_.data(), index_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid count_by_pivot_search_kernel");
      } else {
        launch_count(src, n, BoundSearch{pivots, table_.data(), ctrl, bins}, L, counts, stream);
      }
    }
    {
      StepScope step(timer, "offsets", StepStart::AtLastStepEnd);
      launch_offsets(L, 0, L - 1, counts, ctrl, stream);
    }
    StepScope step(timer, "reposition", StepStart::AtLastStepEnd);
    if (atomic_count_) {
      if (global_merge_)
        move_to_bucket_place_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(
            src, n, sublist_.data(), index_.data(), base_.data(), SplitStore{pkeys_[0].data(), pvalues_[0].data()});
      else
        move_to_bucket_place_kernel<<<primitives::grid_for(n, 256, 1u << 30), 256, 0, stream>>>(
            src, n, sublist_.data(), index_.data(), base_.data(), PackedStore{packed_.data()});
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid move_to_bucket_place_kernel");
    } else {
      if (global_merge_)
        launch_scatter(src, n, search, L, cursor_.data(), SplitStore{pkeys_[0].data(), pvalues_[0].data()}, stream);
      else
        launch_scatter(src, n, search, L, cursor_.data(), PackedStore{packed_.data()}, stream);
    }
  }

  // Section 5.2: log2(L) partition passes; returns true if the sublists ended in packed2_.
  bool quick_split(FloatPairs src, std::uint32_t n, int L, std::uint32_t* counts, cudaStream_t stream,
                   StepTimer& timer) {
    const int passes = primitives::ceil_log2(static_cast<std::size_t>(L));
    std::uint32_t* qoff = qoff_.data();
    std::uint32_t* qnext = qoff2_.data();
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
      const QuickSplit split{qoff, qpivot_.data(), K};
      uint2* dst = bufs[cur == 0 ? 1 : 0];
      // The first pass reads the input pairs, later ones the packed pairs of the previous pass.
      const auto partition = [&](const auto& source) {
        quick_pivot_kernel<<<primitives::grid_for(K, 256, 4096), 256, 0, stream>>>(source, qoff, K, qpivot_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid quick_pivot_kernel");
        launch_count(source, n, split, buckets, counts, stream);
        quick_offsets_kernel<<<1, kOneBlock, 0, stream>>>(counts, buckets, qnext, cursor_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid quick_offsets_kernel");
        launch_scatter(source, n, split, buckets, cursor_.data(), PackedStore{dst}, stream);
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

  // Step 7 as the paper executes it: sortElements, then one launch per merge pass (Fig. 3).
  void merge_in_global_memory(const SortBuffers& b, int L, const std::uint32_t* counts, cudaStream_t stream,
                              StepTimer& timer) {
    const PaddedArgs args{counts, poff_.data(), offset_.data(), L, 0, L - 1};
    const unsigned grid_y = static_cast<unsigned>(std::min(L, 65535));
    const std::size_t per_bucket = b.n / static_cast<std::size_t>(L) + 4;
    {
      StepScope step(timer, "sort-elements", StepStart::AtLastStepEnd);
      const dim3 grid(primitives::grid_for(per_bucket / 4 + 1, 128, 1u << 16), grid_y);
      sort_elements_kernel<<<grid, 128, 0, stream>>>(args, reinterpret_cast<uint4*>(pkeys_[0].data()),
                                                     reinterpret_cast<uint4*>(pvalues_[0].data()));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid sort_elements_kernel");
    }
    const int passes = primitives::ceil_log2((b.n + 3) / 4 + 1);
    for (int pass = 0; pass < passes; ++pass) {
      StepScope step(timer, kPassNames[std::min(pass, 29)], StepStart::AtLastStepEnd);
      const std::size_t pairs = per_bucket / (std::size_t{8} << pass) + 1;
      const dim3 grid(primitives::grid_for(2 * pairs, 64, 1u << 16), grid_y);
      const int s = pass & 1;
      merge_list_pairs_kernel<<<grid, 64, 0, stream>>>(
          args, static_cast<std::uint32_t>(pass), reinterpret_cast<const uint4*>(pkeys_[s].data()),
          reinterpret_cast<const uint4*>(pvalues_[s].data()), reinterpret_cast<uint4*>(pkeys_[1 - s].data()),
          reinterpret_cast<uint4*>(pvalues_[1 - s].data()));
      DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid merge_list_pairs_kernel");
    }
    StepScope step(timer, "compact", StepStart::AtLastStepEnd);
    const dim3 grid(primitives::grid_for(per_bucket, 256, 1u << 16), grid_y);
    compact_kernel<<<grid, 256, 0, stream>>>(args, pkeys_[0].data(), pvalues_[0].data(), pkeys_[1].data(),
                                             pvalues_[1].data(), b.keys_out, b.values_out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("hybrid compact_kernel");
  }

  Split split_;
  bool last_frame_pivots_ = false;
  std::uint32_t last_sample_size_ = 0;  // splitters kept by the last sort; 0: none yet
  std::uint64_t coherent_sorts_ = 0, fallback_sorts_ = 0;
  std::uint32_t segment_count_ = 0;
  bool shuffle_ = false;
  int buckets_option_ = 0;
  int bins_ = 1024;
  int refinements_ = 1;
  bool atomic_count_ = false;
  bool global_merge_ = false;
  int merge_outputs_ = 0;  // hybrid-quick: the defaults of hybrid
  bool word_merge_ = true;
  bool sample_splitter_ = false;
  int oversample_ = 64;
  std::size_t sample_temp_bytes_ = 0;
  int sm_count_ = 132;
  int cooperative_blocks_ = 132;
  std::uint64_t shuffle_serial_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::size_t zero_words_ = 0;
  std::size_t max_items_ = 0;
  std::size_t search_smem_max_ = kSearchSmemMax;  // shared memory the default count may take here
  int smem_buckets_max_ = kSmemBucketsMax;        // buckets whose counters a pass keeps in shared memory here

  // Every DeviceBuffer member below, freed before a new reservation.
  void release_workspace() {
    for (auto* b : {&bucket16_, &moved16_}) *b = {};
    for (auto* b : {&fine_items_, &items_, &chunk_mm_, &packed_, &packed2_}) *b = {};
    for (auto* b : {&coarse_cursor_, &tile_start_, &zeroed_, &pivots_, &pivots2_, &table_, &cum_, &offset_, &base_,
                    &cursor_, &poff_, &ov_bucket_, &ov_tile_start_, &shuffled_values_, &qoff_, &qoff2_, &qpivot_,
                    &sublist_, &index_, &sample_, &sample_sorted_, &last_sample_, &overflow_, &pkeys_[0], &pkeys_[1], &pvalues_[0], &pvalues_[1]})
      *b = {};
    shuffled_keys_ = {};
    sample_temp_ = {};
  }

  DeviceBuffer<std::uint16_t> bucket16_, moved16_;
  DeviceBuffer<uint2> fine_items_;
  DeviceBuffer<std::uint32_t> coarse_cursor_, tile_start_;
  DeviceBuffer<std::uint32_t> zeroed_, pivots_, pivots2_, table_, cum_, offset_, base_, cursor_, poff_, ov_bucket_,
      ov_tile_start_, shuffled_values_, qoff_, qoff2_, qpivot_, sublist_, index_, sample_, sample_sorted_,
      last_sample_, overflow_;
  DeviceBuffer<unsigned char> sample_temp_;
  DeviceBuffer<std::uint32_t> pkeys_[2], pvalues_[2];
  DeviceBuffer<float> shuffled_keys_;
  DeviceBuffer<uint2> items_, chunk_mm_, packed_, packed2_;
};

}  // namespace

std::unique_ptr<Sorter> make_hybrid_sorter(const OptionValues& options) {
  return std::make_unique<HybridSorter>(Split::Bucket, options);
}
std::unique_ptr<Sorter> make_hybrid_coherent_sorter(const OptionValues& options) {
  return std::make_unique<HybridSorter>(Split::Bucket, options, Pivots::LastFrame);
}
std::unique_ptr<Sorter> make_hybrid_quick_sorter(const OptionValues& options) {
  return std::make_unique<HybridSorter>(Split::Quick, options);
}

}  // namespace depthsort::hybrid
