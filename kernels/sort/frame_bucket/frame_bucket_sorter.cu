// frame-bucket (docs/algorithms/frame-bucket.md): the host dispatcher. It owns the workspace
// (reserved once) and the state kept from the last sort (splitters and slot capacities, device
// only), and runs the steps on the caller's stream: scatter, validate, offsets, bucket-sort,
// keep-splitters; without state or on an overflowing slot: fallback-cub (cub-radix's sort), then
// keep-splitters. One 4-byte device->host read and stream sync per sort (validate).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <cub/device/device_scan.cuh>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/frame_bucket/frame_bucket_kernels.cuh"
#include "sort/frame_bucket/frame_bucket_sorter.hpp"

namespace depthsort::frame_bucket {
namespace {

class FrameBucketSorter final : public Sorter {
 public:
  explicit FrameBucketSorter(const OptionValues& options)
      : Sorter("frame-bucket", Backend::Gpu),
        bucket_pairs_(static_cast<std::uint32_t>(option_value(options, "bucket"))),
        slack_pct_(static_cast<std::uint32_t>(option_value(options, "slack_pct"))),
        fallback_(make_cub_radix_sorter({})) {}

  std::size_t workspace_bytes() const override {
    return w_.slots.bytes() + w_.splitters.bytes() + w_.capacity.bytes() + w_.slot_offset.bytes() +
           w_.cursor.bytes() + w_.out_offset.bytes() + w_.temp.bytes() + fallback_->workspace_bytes();
  }

  Segments segments() const override {
    if (segment_count_ == 0) return {};
    return {w_.out_offset.data(), segment_count_, "bucket"};
  }

 protected:
  void do_reserve(std::size_t max_n) override {
    // A larger reservation must not need the old and the new workspace at once; the state goes too.
    has_state_ = false;
    segment_count_ = 0;
    w_ = {};
    try {
      fallback_->reserve(max_n);
    } catch (const CapacityError& e) {
      throw CapacityError(name() + " (its cub-radix fallback): " + e.what());
    }
    const std::string& owner = name();
    const std::uint32_t max_buckets = buckets_for(max_n);
    // Slots: sum over buckets of count * (1 + slack) + kSlotPad + 1 (rounded up to even).
    const std::uint64_t slot_pairs = std::uint64_t{max_n} + std::uint64_t{max_n} * slack_pct_ / 100 +
                                     std::uint64_t{max_buckets} * (kSlotPad + 1) + 2;
    if (slot_pairs > std::numeric_limits<std::uint32_t>::max())
      throw CapacityError(owner + ": " + std::to_string(max_n) + " pairs need " + std::to_string(slot_pairs) +
                          " slots, more than 32-bit slot offsets address; lower slack_pct");
    w_.slots = DeviceBuffer<uint2>(slot_pairs, owner);
    // Slots never written this frame are still read (masked) by the paired loads: keep them defined.
    DEPTHSORT_CUDA_CHECK(cudaMemset(w_.slots.data(), 0, w_.slots.bytes()));
    w_.splitters = DeviceBuffer<std::uint32_t>(std::max<std::uint32_t>(max_buckets, 1), owner);
    w_.capacity = DeviceBuffer<std::uint32_t>(max_buckets + 1, owner);
    w_.slot_offset = DeviceBuffer<std::uint32_t>(max_buckets + 1, owner);
    w_.cursor = DeviceBuffer<std::uint32_t>(max_buckets + 2, owner);  // counts, a 0, the overflow flag
    w_.out_offset = DeviceBuffer<std::uint32_t>(max_buckets + 1, owner);
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, w_.capacity.data(), w_.slot_offset.data(),
                                                       static_cast<int>(max_buckets + 1)));
    w_.temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), owner);
    int device = 0, sms = 0;
    DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
    DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // Eight 256-thread blocks fill an SM; more would only reload the splitters.
    scatter_grid_cap_ = static_cast<std::uint32_t>(std::max(sms, 1)) * 8;
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    // Until keep-splitters finishes the state belongs to no sort (an exception leaves none).
    const bool had_state = has_state_ && n == state_n_;
    has_state_ = false;
    segment_count_ = 0;
    if (n == 0) return;
    if (!had_state || !bucket_path(b, stream, timer)) {
      StepScope step(timer, "fallback-cub");
      fallback_->sort(b, stream);
    }
    StepScope step(timer, "keep-splitters");
    const std::uint32_t buckets = buckets_for(n);
    keep_splitters_kernel<<<(buckets + 1 + 255) / 256, 256, 0, stream>>>(b.keys_out, n, ranks_for(n), buckets,
                                                                         slack_pct_,
                                                                         w_.splitters.data(), w_.capacity.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("frame-bucket keep_splitters_kernel");
    std::size_t bytes = w_.temp.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(w_.temp.data(), bytes, w_.capacity.data(), w_.slot_offset.data(),
                                                       static_cast<int>(buckets + 1), stream));
    state_n_ = n;
    has_state_ = true;
  }

 private:
  // Ranks the splitters are read at: one per `bucket` pairs. Each gives two splitters (see
  // splitter_at), so 2 ranks - 1 buckets: ranks - 1 of one key value each, the others between.
  std::uint32_t ranks_for(std::size_t n) const {
    return static_cast<std::uint32_t>(std::max<std::size_t>((n + bucket_pairs_ - 1) / bucket_pairs_, 1));
  }
  std::uint32_t buckets_for(std::size_t n) const { return 2 * ranks_for(n) - 1; }

  // Steps 1-4 with the last sort's state (same n); false, the output untouched, on an overflow.
  bool bucket_path(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t buckets = buckets_for(n);
    std::uint32_t* overflow = w_.cursor.data() + buckets + 1;
    {
      StepScope step(timer, "scatter");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(w_.cursor.data(), 0, (buckets + 2) * sizeof(std::uint32_t), stream));
      const std::uint32_t splitter_count = buckets - 1;
      const bool in_smem = splitter_count <= kMaxSmemSplitters;
      const std::size_t smem = in_smem ? splitter_count * sizeof(std::uint32_t) : 0;
      const std::uint32_t grid = std::clamp<std::uint32_t>((n + kScatterTile - 1) / kScatterTile, 1, scatter_grid_cap_);
      scatter_kernel<<<grid, kScatterThreads, smem, stream>>>(
          b.keys_in, b.values_in, n, w_.splitters.data(), splitter_count, in_smem, w_.slot_offset.data(),
          w_.capacity.data(), w_.cursor.data(), w_.slots.data(), overflow);
      DEPTHSORT_CUDA_CHECK_LAUNCH("frame-bucket scatter_kernel");
    }
    {
      StepScope step(timer, "validate");
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&overflow_host_, overflow, sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                           stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (overflow_host_ != 0) return false;
    {
      StepScope step(timer, "offsets");
      // cursor[buckets] is 0, so out_offset[buckets] = n.
      std::size_t bytes = w_.temp.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(w_.temp.data(), bytes, w_.cursor.data(), w_.out_offset.data(),
                                                         static_cast<int>(buckets + 1), stream));
    }
    {
      StepScope step(timer, "bucket-sort");
      bucket_sort_kernel<<<buckets, kSortThreads, 0, stream>>>(w_.slots.data(), w_.slot_offset.data(), w_.cursor.data(),
                                                               w_.out_offset.data(), w_.splitters.data(), buckets,
                                                               b.keys_out, b.values_out);
      DEPTHSORT_CUDA_CHECK_LAUNCH("frame-bucket bucket_sort_kernel");
    }
    segment_count_ = buckets;
    return true;
  }

  std::uint32_t bucket_pairs_ = 3840;
  std::uint32_t slack_pct_ = 25;
  std::unique_ptr<Sorter> fallback_;  // cub-radix, with its signed-zero fixup: the exact key order
  std::uint32_t scatter_grid_cap_ = 1;
  // State kept from the last sort: valid for the next sort of state_n_ pairs.
  bool has_state_ = false;
  std::uint32_t state_n_ = 0;
  std::uint32_t segment_count_ = 0;  // buckets of the last sort where it took the bucket path
  std::uint32_t overflow_host_ = 0;
  // The workspace, reserved once; splitters and capacities are the state kept between sorts.
  struct Workspace {
    DeviceBuffer<uint2> slots;                // (ordered key, value) per slot entry
    DeviceBuffer<std::uint32_t> splitters;    // buckets - 1 ordered keys, nondecreasing
    DeviceBuffer<std::uint32_t> capacity;     // slot capacity per bucket, then a 0
    DeviceBuffer<std::uint32_t> slot_offset;  // exclusive sum of capacity
    DeviceBuffer<std::uint32_t> cursor;       // pairs per bucket this sort, a 0, the overflow flag
    DeviceBuffer<std::uint32_t> out_offset;   // exclusive sum of the counts: the output's bucket starts
    DeviceBuffer<unsigned char> temp;         // CUB's scans
  } w_;
};

}  // namespace

std::unique_ptr<Sorter> make_frame_bucket_sorter(const OptionValues& options) {
  return std::make_unique<FrameBucketSorter>(options);
}

}  // namespace depthsort::frame_bucket
