// range-bucket (docs/algorithms/range-bucket.md): the host dispatcher. It owns the workspace
// (reserved once) and runs the steps on the caller's stream: key range, histogram, plan (one
// read-back), scatter, bucket sort, big buckets; or, where many pairs fall into buckets too large
// for a block, fallback-cub (cub-radix's sort).
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/dynamic_smem.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/key_range/key_range.hpp"
#include "sort/range_bucket/range_bucket_kernels.cuh"
#include "sort/range_bucket/range_bucket_sorter.hpp"

namespace depthsort::range_bucket {
namespace {

// Up to 2^15 buckets: their counters (128 KiB) are what the histogram and scatter blocks hold in
// shared memory.
constexpr int kMaxBucketBits = 15;
// Where more than 1/kBigShare of the pairs fall into buckets too large for a block, the library
// sort of everything beats CUB's segmented sort of those buckets.
constexpr std::uint32_t kBigShare = 8;

int device_multiprocessors() {
  int device = 0, count = 0;
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

template <int kClass>
void launch_bucket_sort(unsigned blocks, const std::uint32_t* keys, const std::uint32_t* values,
                        const std::uint32_t* starts, const std::uint32_t* list, const key_range::KeyRange* range,
                        float* keys_out, std::uint32_t* values_out, cudaStream_t stream) {
  constexpr BucketClass kShape = kBucketClasses[kClass];
  bucket_sort_kernel<kShape.threads, kShape.items>
      <<<blocks, kShape.threads, 0, stream>>>(keys, values, starts, list, range, keys_out, values_out);
  DEPTHSORT_CUDA_CHECK_LAUNCH("range-bucket bucket_sort_kernel");
}

class RangeBucketSorter final : public Sorter {
 public:
  explicit RangeBucketSorter(const OptionValues& options)
      : Sorter("range-bucket", Backend::Gpu),
        bucket_pairs_log2_(option_value(options, "bucket_pairs")),
        group_atomics_(option_value(options, "group_atomics") != 0),
        fallback_(make_cub_radix_sorter({})) {}

  std::size_t workspace_bytes() const override { return workspace_bytes_ + fallback_->workspace_bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    // A larger reservation must not need the old and the new workspace at once.
    for (auto* b : {&bucketed_keys_, &bucketed_values_, &counts_, &starts_, &cursors_, &class_lists_, &big_begin_,
                    &big_end_})
      *b = {};
    temp_ = {};
    try {
      fallback_->reserve(max_n);
    } catch (const CapacityError& e) {
      throw CapacityError(name() + " (its cub-radix fallback): " + e.what());
    }
    const std::string& owner = name();
    const std::size_t buckets = std::size_t{1} << bucket_bits_for(max_n);
    bucketed_keys_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(max_n, 1), owner);
    bucketed_values_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(max_n, 1), owner);
    counts_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    starts_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    cursors_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    class_lists_ = DeviceBuffer<std::uint32_t>(kClassCount * buckets, owner);
    big_begin_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    big_end_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    range_ = DeviceBuffer<key_range::KeyRange>(1, owner);
    plan_ = DeviceBuffer<Plan>(1, owner);
    std::size_t bytes = 0, scan_bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts_.data(), starts_.data(),
                                                       static_cast<int>(buckets + 1)));
    DEPTHSORT_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
        nullptr, bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::int64_t>(max_n), static_cast<std::int64_t>(buckets), big_begin_.data(), big_end_.data()));
    temp_ = DeviceBuffer<unsigned char>(std::max({bytes, scan_bytes, std::size_t{1}}), owner);
    const std::size_t smem = buckets * sizeof(std::uint32_t);
    common::allow_dynamic_smem(bucket_histogram_kernel<false>, smem, "range-bucket bucket_histogram_kernel");
    common::allow_dynamic_smem(bucket_histogram_kernel<true>, smem, "range-bucket bucket_histogram_kernel");
    common::allow_dynamic_smem(scatter_kernel<false>, smem, "range-bucket scatter_kernel");
    common::allow_dynamic_smem(scatter_kernel<true>, smem, "range-bucket scatter_kernel");
    blocks_ = 2 * device_multiprocessors();
    workspace_bytes_ = bucketed_keys_.bytes() + bucketed_values_.bytes() + temp_.bytes() +
                       sizeof(std::uint32_t) * (buckets * (5 + kClassCount) + 2) + sizeof(Plan) +
                       sizeof(key_range::KeyRange);
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    if (n == 0) return;
    const int bucket_bits = bucket_bits_for(n);
    const std::uint32_t buckets = 1u << bucket_bits;
    const std::size_t smem = buckets * sizeof(std::uint32_t);
    {
      StepScope step(timer, "key range");
      key_range::launch_key_range(b.keys_in, n, range_.data(), stream);
    }
    {
      StepScope step(timer, "histogram");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, smem + sizeof(std::uint32_t), stream));
      const unsigned blocks = std::min<unsigned>(blocks_, (n + 4 * kScanThreads - 1) / (4 * kScanThreads));
      (group_atomics_ ? bucket_histogram_kernel<true> : bucket_histogram_kernel<false>)
          <<<blocks, kScanThreads, smem, stream>>>(b.keys_in, n, range_.data(), bucket_bits, counts_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("range-bucket bucket_histogram_kernel");
    }
    Plan plan{};
    {
      // The one read-back: how many blocks of each class to launch, and whether to fall back.
      StepScope step(timer, "plan");
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, counts_.data(), starts_.data(),
                                                         static_cast<int>(buckets + 1), stream));
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(plan_.data(), 0, sizeof(Plan), stream));
      classify_kernel<<<(buckets + 255) / 256, 256, 0, stream>>>(starts_.data(), buckets, range_.data(),
                                                                 cursors_.data(), class_lists_.data(),
                                                                 big_begin_.data(), big_end_.data(), plan_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("range-bucket classify_kernel");
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&plan, plan_.data(), sizeof plan, cudaMemcpyDeviceToHost, stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (plan.big_pairs > n / kBigShare) {
      // Many pairs in buckets too large for a block (a few key values, a narrow cluster beside far
      // outliers, or keys spread over many octaves): the structure is not there.
      StepScope step(timer, "fallback-cub");
      fallback_->sort(b, stream);
      return;
    }
    {
      StepScope step(timer, "scatter");
      const std::uint32_t per_block = ((n + blocks_ - 1) / blocks_ + kScanThreads - 1) / kScanThreads * kScanThreads;
      const unsigned blocks = (n + per_block - 1) / per_block;
      (group_atomics_ ? scatter_kernel<true> : scatter_kernel<false>)<<<blocks, kScanThreads, smem, stream>>>(
          b.keys_in, b.values_in, n, per_block, range_.data(), bucket_bits, cursors_.data(), bucketed_keys_.data(),
          bucketed_values_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("range-bucket scatter_kernel");
    }
    {
      StepScope step(timer, "bucket sort");
      auto list = [&](int c) { return class_lists_.data() + static_cast<std::size_t>(c) * buckets; };
      if (plan.class_buckets[0])
        launch_bucket_sort<0>(plan.class_buckets[0], bucketed_keys_.data(), bucketed_values_.data(), starts_.data(),
                              list(0), range_.data(), b.keys_out, b.values_out, stream);
      if (plan.class_buckets[1])
        launch_bucket_sort<1>(plan.class_buckets[1], bucketed_keys_.data(), bucketed_values_.data(), starts_.data(),
                              list(1), range_.data(), b.keys_out, b.values_out, stream);
      if (plan.class_buckets[2])
        launch_bucket_sort<2>(plan.class_buckets[2], bucketed_keys_.data(), bucketed_values_.data(), starts_.data(),
                              list(2), range_.data(), b.keys_out, b.values_out, stream);
    }
    if (plan.big_buckets) {
      StepScope step(timer, "big buckets");
      auto* keys_out = reinterpret_cast<std::uint32_t*>(b.keys_out);
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
          temp_.data(), bytes, static_cast<const std::uint32_t*>(bucketed_keys_.data()), keys_out,
          static_cast<const std::uint32_t*>(bucketed_values_.data()), b.values_out, static_cast<std::int64_t>(n),
          static_cast<std::int64_t>(plan.big_buckets), big_begin_.data(), big_end_.data(), stream));
      restore_big_kernel<<<plan.big_buckets, 256, 0, stream>>>(keys_out, big_begin_.data(), big_end_.data(),
                                                               range_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("range-bucket restore_big_kernel");
    }
  }

 private:
  // Buckets of about 2^bucket_pairs pairs each, at least 2 (so a bucket's shift stays below 32).
  int bucket_bits_for(std::size_t n) const {
    const std::size_t per = std::size_t{1} << bucket_pairs_log2_;
    const int bits = static_cast<int>(std::bit_width((n + per - 1) / per)) - 1;
    return std::clamp(bits, 1, kMaxBucketBits);
  }

  int bucket_pairs_log2_ = 11;
  bool group_atomics_ = false;
  int blocks_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::unique_ptr<Sorter> fallback_;  // cub-radix, with its signed-zero fixup: the exact key order
  DeviceBuffer<std::uint32_t> bucketed_keys_, bucketed_values_, counts_, starts_, cursors_, class_lists_, big_begin_,
      big_end_;
  DeviceBuffer<key_range::KeyRange> range_;
  DeviceBuffer<Plan> plan_;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_range_bucket_sorter(const OptionValues& options) {
  return std::make_unique<RangeBucketSorter>(options);
}

}  // namespace depthsort::range_bucket
