// run-bucket (docs/algorithms/run-bucket.md): the host dispatcher. It owns the workspace
// (reserved once) and the last sort's splitters, and runs the steps on the caller's stream:
// sample, plan (the verdict, taken on the device), scatter, bucket starts, bucket sort, check (the
// one read-back: the verdict and whether every bucket fit); or fallback-cub (cub-radix's sort)
// where the input is small, large or incoherent, or a bucket overflowed.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/primitives/launch.hpp"
#include "sort/run_bucket/run_bucket_kernels.cuh"
#include "sort/run_bucket/run_bucket_sorter.hpp"

namespace depthsort::run_bucket {
namespace {

// The most pairs the bucket path takes: kMaxBuckets buckets of kBucketTarget pairs.
constexpr std::size_t kMaxBucketPairs = std::size_t{kMaxBuckets} * kBucketTarget;

std::uint32_t buckets_for(std::size_t n) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(2, (n + kBucketTarget - 1) / kBucketTarget));
}

class RunBucketSorter final : public Sorter {
 public:
  explicit RunBucketSorter(const OptionValues& options)
      : Sorter("run-bucket", Backend::Gpu),
        max_outside_permille_(static_cast<std::uint32_t>(option_value(options, "max_outside"))),
        min_pairs_(std::size_t{1} << option_value(options, "min_pairs_log2")),
        fallback_(make_cub_radix_sorter({})) {}

  std::size_t workspace_bytes() const override { return workspace_bytes_ + fallback_->workspace_bytes(); }

  Segments segments() const override { return {starts_.data(), segment_count_, "bucket"}; }

 protected:
  void do_reserve(std::size_t max_n) override {
    // A larger reservation must not need the old and the new workspace at once.
    for (auto* buffer : {&bucketed_keys_, &bucketed_values_, &sample_, &sorted_sample_, &splitters_, &cursors_,
                         &starts_, &sample_counts_, &large_list_})
      *buffer = {};
    reuse_splitters_ = false;
    expect_fallback_ = false;
    temp_ = {};
    segment_count_ = 0;
    try {
      fallback_->reserve(max_n);
    } catch (const CapacityError& e) {
      throw CapacityError(name() + " (its cub-radix fallback): " + e.what());
    }
    const std::string& owner = name();
    const std::size_t bucket_n = std::min(max_n, kMaxBucketPairs);
    const std::uint32_t buckets = buckets_for(bucket_n);
    const std::uint32_t samples = buckets * kSamplesPerBucket;
    bucketed_keys_ = DeviceBuffer<std::uint32_t>(std::size_t{buckets} * kBucketCapacity, owner);
    bucketed_values_ = DeviceBuffer<std::uint32_t>(std::size_t{buckets} * kBucketCapacity, owner);
    sample_ = DeviceBuffer<std::uint32_t>(samples, owner);
    sorted_sample_ = DeviceBuffer<std::uint32_t>(samples, owner);
    splitters_ = DeviceBuffer<std::uint32_t>(kSplitterSlots, owner);
    cursors_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    starts_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    sample_counts_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    large_list_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    plan_ = DeviceBuffer<Plan>(1, owner);
    std::size_t sort_bytes = 0, scan_bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, sample_.data(), sorted_sample_.data(),
                                                        static_cast<int>(samples)));
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cursors_.data(), starts_.data(),
                                                       static_cast<int>(buckets + 1)));
    temp_ = DeviceBuffer<unsigned char>(std::max({sort_bytes, scan_bytes, std::size_t{1}}), owner);
    int per_multiprocessor = 0;
    DEPTHSORT_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, scatter_kernel, kTileThreads, 0));
    scatter_blocks_ = static_cast<unsigned>(std::max(1, per_multiprocessor) * primitives::multiprocessor_count());
    large_blocks_ = static_cast<unsigned>(primitives::multiprocessor_count());
    workspace_bytes_ = bucketed_keys_.bytes() + bucketed_values_.bytes() + sample_.bytes() + sorted_sample_.bytes() +
                       splitters_.bytes() + cursors_.bytes() + starts_.bytes() + sample_counts_.bytes() +
                       large_list_.bytes() + plan_.bytes() + temp_.bytes();
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    segment_count_ = 0;
    if (b.n == 0) return;
    if (b.n < min_pairs_ || b.n > kMaxBucketPairs) return fall_back(b, stream, timer);
    const std::uint32_t buckets = buckets_for(b.n);
    // The last sort's output at equal ranks, where it had as many buckets: no sample sort.
    Plan plan = attempt(b, buckets, !(reuse_splitters_ && splitter_buckets_ == buckets), stream, timer);
    if (plan.verdict == kUnfit) plan = attempt(b, buckets, true, stream, timer);
    expect_fallback_ = plan.verdict != kBucketPath || plan.overflow != 0;
    if (expect_fallback_)
      fall_back(b, stream, timer);
    else
      segment_count_ = buckets;
    keep_splitters(b, buckets, stream);
  }

 private:
  // Above this many samples in one bucket (three times the expected 16, the room a bucket has),
  // the last sort's splitters are not used.
  static constexpr std::uint32_t kMostSamplesInABucket = 3 * kSamplesPerBucket;

  void pick_fresh_splitters(std::uint32_t buckets, cudaStream_t stream) {
    const std::uint32_t samples = buckets * kSamplesPerBucket;
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, sample_.data(), sorted_sample_.data(),
                                                        static_cast<int>(samples), 0, 32, stream));
    pick_splitters_kernel<<<primitives::grid_for(kSplitterSlots, 256), 256, 0, stream>>>(sorted_sample_.data(),
                                                                                        buckets, splitters_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket pick_splitters_kernel");
  }

  // The bucket path, with fresh splitters or the last sort's, and its one read-back at the end:
  // the plan's verdict (taken on the device: every kernel after it returns at once unless it is
  // kBucketPath) and whether a bucket overflowed.
  Plan attempt(const SortBuffers& b, std::uint32_t buckets, bool fresh, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t samples = buckets * kSamplesPerBucket;
    {
      StepScope step(timer, fresh ? "sample" : "sample (last splitters)");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(plan_.data(), 0, sizeof(Plan), stream));
      gather_sample_kernel<<<primitives::grid_for(samples, 256), 256, 0, stream>>>(b.keys_in, n, samples,
                                                                                     sample_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket gather_sample_kernel");
      if (fresh) pick_fresh_splitters(buckets, stream);
    }
    {
      StepScope step(timer, "plan");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(sample_counts_.data(), 0, sizeof(std::uint32_t) * buckets, stream));
      coherence_kernel<<<primitives::grid_for(samples, 256), 256, 0, stream>>>(
          sample_.data(), samples, splitters_.data(), buckets, sample_counts_.data(), plan_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket coherence_kernel");
      const auto most_outside =
          static_cast<std::uint32_t>(std::uint64_t{max_outside_permille_} * samples / 1000);
      decide_kernel<<<1, 1, 0, stream>>>(plan_.data(), most_outside, fresh ? 0xFFFFFFFFu : kMostSamplesInABucket);
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket decide_kernel");
      if (expect_fallback_) {
        // The last sort fell back: a read-back here spares this one the no-op launches if it does too.
        Plan plan{};
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&plan, plan_.data(), sizeof plan, cudaMemcpyDeviceToHost, stream));
        DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
        if (plan.verdict != kBucketPath) return plan;
      }
    }
    {
      StepScope step(timer, "scatter");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(cursors_.data(), 0, sizeof(std::uint32_t) * (buckets + 1), stream));
      scatter_kernel<<<primitives::grid_for(n, kTile, scatter_blocks_), kTileThreads, 0, stream>>>(
          b.keys_in, b.values_in, n, splitters_.data(), buckets, cursors_.data(), bucketed_keys_.data(),
          bucketed_values_.data(), plan_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket scatter_kernel");
    }
    {
      StepScope step(timer, "bucket starts");
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, cursors_.data(), starts_.data(),
                                                         static_cast<int>(buckets + 1), stream));
      list_large_kernel<<<primitives::grid_for(buckets, 256), 256, 0, stream>>>(
          cursors_.data(), buckets, kSmallSort.capacity(), large_list_.data(), plan_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket list_large_kernel");
    }
    {
      StepScope step(timer, "bucket sort");
      bucket_sort_kernel<kSmallSort.threads, kSmallSort.items, kSmallSort.min_blocks, kSmallSort.radix_bits,
                         kSmallSort.counting><<<buckets, kSmallSort.threads, 0, stream>>>(
          bucketed_keys_.data(), bucketed_values_.data(), cursors_.data(), starts_.data(), nullptr, plan_.data(),
          b.keys_out, b.values_out);
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket bucket_sort_kernel (small)");
      bucket_sort_kernel<kLargeSort.threads, kLargeSort.items, kLargeSort.min_blocks, kLargeSort.radix_bits,
                         kLargeSort.counting><<<large_blocks_, kLargeSort.threads, 0, stream>>>(
          bucketed_keys_.data(), bucketed_values_.data(), cursors_.data(), starts_.data(), large_list_.data(),
          plan_.data(), b.keys_out, b.values_out);
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket bucket_sort_kernel (large)");
    }
    StepScope step(timer, "check");
    Plan plan{};
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&plan, plan_.data(), sizeof plan, cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    return plan;
  }

  // The next sort's splitters: this one's sorted output at equal ranks.
  void keep_splitters(const SortBuffers& b, std::uint32_t buckets, cudaStream_t stream) {
    splitters_from_output_kernel<<<primitives::grid_for(kSplitterSlots, 256), 256, 0, stream>>>(
        b.keys_out, static_cast<std::uint32_t>(b.n), buckets, splitters_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket splitters_from_output_kernel");
    reuse_splitters_ = true;
    splitter_buckets_ = buckets;
  }

  // The input is too small or too large for the bucket path, its order does not follow the key
  // order, or a bucket overflowed: the library sort, under its own step name.
  void fall_back(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) {
    StepScope step(timer, "fallback-cub");
    fallback_->sort(b, stream);
  }

  std::uint32_t max_outside_permille_ = 0;
  bool reuse_splitters_ = false;      // splitters_ hold the last sort's output at equal ranks
  bool expect_fallback_ = false;      // the last sort fell back
  std::uint32_t splitter_buckets_ = 0;
  std::size_t min_pairs_ = 0;
  std::unique_ptr<Sorter> fallback_;  // cub-radix, with its signed-zero fixup: the exact key order
  unsigned scatter_blocks_ = 1;
  unsigned large_blocks_ = 1;
  std::size_t workspace_bytes_ = 0;
  std::uint32_t segment_count_ = 0;
  DeviceBuffer<std::uint32_t> bucketed_keys_, bucketed_values_, sample_, sorted_sample_, splitters_, cursors_,
      starts_, sample_counts_, large_list_;
  DeviceBuffer<Plan> plan_;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_run_bucket_sorter(const OptionValues& options) {
  return std::make_unique<RunBucketSorter>(options);
}

}  // namespace depthsort::run_bucket
