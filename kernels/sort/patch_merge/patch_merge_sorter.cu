// patch-merge (docs/algorithms/patch-merge.md): the host dispatcher. It owns the workspace
// (reserved once) and runs the steps on the caller's stream: probe, tile-sort, bounds, extract,
// sort-outliers, merge; or, where the input is far from sorted, fallback-cub (cub-radix's sort).
// Two small host reads per sort: the probe's count and the outlier count (CUB's sort of the
// outliers takes its length from the host).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/patch_merge/patch_merge_kernels.cuh"
#include "sort/patch_merge/patch_merge_sorter.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::patch_merge {
namespace {

class PatchMergeSorter final : public Sorter {
 public:
  explicit PatchMergeSorter(const OptionValues& options)
      : Sorter("patch-merge", Backend::Gpu),
        probe_(option_value(options, "probe") != 0),
        max_outliers_64ths_(option_value(options, "max_outliers")),
        fallback_(make_cub_radix_sorter({})) {}

  std::size_t workspace_bytes() const override { return workspace_bytes_ + fallback_->workspace_bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    // A larger reservation must not need the old and the new workspace at once.
    sorted_ = {};
    for (auto* b : {&tile_min_reversed_, &tile_max_, &prefix_max_, &suffix_min_reversed_, &good_begin_, &good_count_,
                    &outlier_count_, &good_offset_, &outlier_offset_, &outlier_keys_, &outlier_values_,
                    &outlier_keys_sorted_, &outlier_values_sorted_, &probe_count_})
      *b = {};
    temp_ = {};
    try {
      fallback_->reserve(max_n);
    } catch (const CapacityError& e) {
      throw CapacityError(name() + " (its cub-radix fallback): " + e.what());
    }
    const std::string& owner = name();
    const std::size_t tiles = (max_n + kTile - 1) / kTile + 1;
    const std::size_t outliers = outlier_capacity(max_n) + 1;
    sorted_ = DeviceBuffer<uint2>(std::max<std::size_t>(max_n, 1), owner);
    auto u32 = [&](std::size_t count) { return DeviceBuffer<std::uint32_t>(count, owner); };
    tile_min_reversed_ = u32(tiles);
    tile_max_ = u32(tiles);
    prefix_max_ = u32(tiles);
    suffix_min_reversed_ = u32(tiles);
    good_begin_ = u32(tiles);
    good_count_ = u32(tiles + 1);
    outlier_count_ = u32(tiles + 1);
    good_offset_ = u32(tiles + 1);
    outlier_offset_ = u32(tiles + 1);
    outlier_keys_ = u32(outliers);
    outlier_values_ = u32(outliers);
    outlier_keys_sorted_ = u32(outliers);
    outlier_values_sorted_ = u32(outliers);
    probe_count_ = u32(1);
    const int t = static_cast<int>(tiles + 1);
    std::size_t bytes = 0, need = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, tile_max_.data(), prefix_max_.data(),
                                                        cuda::maximum<>{}, t));
    need = std::max(need, bytes);
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, tile_min_reversed_.data(),
                                                        suffix_min_reversed_.data(), cuda::minimum<>{}, t));
    need = std::max(need, bytes);
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, good_count_.data(), good_offset_.data(), t));
    need = std::max(need, bytes);
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, outlier_keys_.data(),
                                                         outlier_keys_sorted_.data(), outlier_values_.data(),
                                                         outlier_values_sorted_.data(), static_cast<int>(outliers)));
    need = std::max(need, bytes);
    temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(need, 1), owner);
    workspace_bytes_ = sorted_.bytes() + temp_.bytes() + 4 * (9 * tiles + 4 * outliers + 1);
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    if (n == 0) return;
    // Below two tiles there is nothing to patch: one library sort.
    if (n <= 2u * kTile || !patch_path(b, stream, timer)) {
      StepScope step(timer, "fallback-cub");
      fallback_->sort(b, stream);
    }
  }

 private:
  std::size_t outlier_capacity(std::size_t n) const { return n * static_cast<std::size_t>(max_outliers_64ths_) / 64; }

  // The patch path; false (nothing written to the output) where the input is too far from sorted.
  bool patch_path(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    if (probe_) {
      StepScope step(timer, "probe");
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(probe_count_.data(), 0, 4, stream));
      probe_kernel<<<primitives::grid_for(kProbePairs, kThreads, 64), kThreads, 0, stream>>>(b.keys_in, n, 2 * kTile, kProbePairs,
                                                                                 probe_count_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge probe_kernel");
      std::uint32_t inverted = 0;
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&inverted, probe_count_.data(), 4, cudaMemcpyDeviceToHost, stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
      if (inverted > kProbePairs / 32) return false;
    }
    const std::uint32_t tiles = (n + kTile - 1) / kTile;
    {
      StepScope step(timer, "tile-sort");
      tile_sort_kernel<<<tiles, kThreads, 0, stream>>>(b.keys_in, b.values_in, n, sorted_.data(),
                                                       tile_min_reversed_.data(), tile_max_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge tile_sort_kernel");
    }
    std::uint32_t totals[2] = {0, 0};  // in-place keys, outliers
    {
      StepScope step(timer, "bounds");
      std::size_t bytes = temp_.bytes();
      const int t = static_cast<int>(tiles);
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp_.data(), bytes, tile_max_.data(), prefix_max_.data(),
                                                          cuda::maximum<>{}, t, stream));
      bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp_.data(), bytes, tile_min_reversed_.data(),
                                                          suffix_min_reversed_.data(), cuda::minimum<>{}, t, stream));
      // Entry `tiles` of the counts stays 0, so the exclusive sums end with the totals.
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(good_count_.data() + tiles, 0, 4, stream));
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(outlier_count_.data() + tiles, 0, 4, stream));
      classify_kernel<<<primitives::grid_for(tiles, 256, 4096), 256, 0, stream>>>(
          sorted_.data(), n, tiles, prefix_max_.data(), suffix_min_reversed_.data(), good_begin_.data(),
          good_count_.data(), outlier_count_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge classify_kernel");
      bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(
          cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, good_count_.data(), good_offset_.data(), t + 1, stream));
      bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, outlier_count_.data(),
                                                         outlier_offset_.data(), t + 1, stream));
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpyAsync(&totals[0], good_offset_.data() + tiles, 4, cudaMemcpyDeviceToHost, stream));
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpyAsync(&totals[1], outlier_offset_.data() + tiles, 4, cudaMemcpyDeviceToHost, stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    const std::uint32_t good = totals[0], outliers = totals[1];
    if (static_cast<std::size_t>(good) + outliers != n)
      throw Error(name() + ": internal error: " + std::to_string(good) + " in-place keys and " +
                  std::to_string(outliers) + " outliers for " + std::to_string(n) + " keys");
    if (outliers > outlier_capacity(n)) return false;
    if (outliers > 0) {
      {
        StepScope step(timer, "extract");
        extract_kernel<<<tiles, kThreads, 0, stream>>>(sorted_.data(), n, good_begin_.data(), good_count_.data(),
                                                       outlier_offset_.data(), outlier_keys_.data(),
                                                       outlier_values_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge extract_kernel");
      }
      StepScope step(timer, "sort-outliers");
      std::size_t bytes = temp_.bytes();
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, outlier_keys_.data(),
                                                           outlier_keys_sorted_.data(), outlier_values_.data(),
                                                           outlier_values_sorted_.data(), static_cast<int>(outliers),
                                                           0, 32, stream));
    }
    StepScope step(timer, "merge");
    merge_good_kernel<<<tiles, kThreads, 0, stream>>>(sorted_.data(), n, good_begin_.data(), good_count_.data(),
                                                      good_offset_.data(), outlier_keys_sorted_.data(), outliers,
                                                      b.keys_out, b.values_out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge merge_good_kernel");
    if (outliers > 0) {
      merge_outliers_kernel<<<primitives::grid_for(outliers, kThreads, 4096), kThreads, 0, stream>>>(
          sorted_.data(), n, tiles, good_begin_.data(), good_offset_.data(), good, outlier_keys_sorted_.data(),
          outlier_values_sorted_.data(), outliers, b.keys_out, b.values_out);
      DEPTHSORT_CUDA_CHECK_LAUNCH("patch-merge merge_outliers_kernel");
    }
    return true;
  }

  bool probe_ = true;
  int max_outliers_64ths_ = 16;
  std::unique_ptr<Sorter> fallback_;  // cub-radix, with its signed-zero fixup: the exact key order
  std::size_t workspace_bytes_ = 0;
  DeviceBuffer<uint2> sorted_;
  DeviceBuffer<std::uint32_t> tile_min_reversed_, tile_max_, prefix_max_, suffix_min_reversed_, good_begin_,
      good_count_, outlier_count_, good_offset_, outlier_offset_, outlier_keys_, outlier_values_, outlier_keys_sorted_,
      outlier_values_sorted_, probe_count_;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_patch_merge_sorter(const OptionValues& options) {
  return std::make_unique<PatchMergeSorter>(options);
}

}  // namespace depthsort::patch_merge
