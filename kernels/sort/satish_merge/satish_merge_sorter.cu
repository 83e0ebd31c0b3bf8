// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS
// 2009), Section IV: the host dispatcher of `satish-merge`. It owns the workspace (reserved once)
// and launches, on the caller's stream, the paper's steps, each named in the timings:
//   (1) tiles of t pairs (implicit in the grid), (2) "tile sort", (3) the merge tree, one level
//   at a time: "merge level NN splitters" then "merge level NN tiles".
// The output buffers double as one side of the ping-pong, so the workspace is one copy of the
// pairs plus the split points; the parity is chosen so the last step writes the output.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/satish_merge/satish_merge_kernels.cuh"
#include "sort/satish_merge/policy.hpp"
#include "sort/satish_merge/satish_merge_sorter.hpp"

namespace depthsort::satish_merge {
namespace {

// 2^31 pairs / 64-pair tiles: at most 26 levels. The step names are built at compile time, so
// the timer gets pointers to static storage, as it needs ("merge level 07 splitters").
constexpr int kMaxLevels = 26;
struct LevelNames {
  char splitters[kMaxLevels][32];
  char tiles[kMaxLevels][32];
};
constexpr LevelNames make_level_names() {
  LevelNames names{};
  constexpr char kPrefix[] = "merge level ";
  constexpr char kSplitters[] = " splitters";
  constexpr char kTiles[] = " tiles";
  for (int level = 0; level < kMaxLevels; ++level) {
    auto fill = [&](char* out, const char* suffix, int suffix_len) {
      int c = 0;
      for (int i = 0; i < 12; ++i) out[c++] = kPrefix[i];
      out[c++] = static_cast<char>('0' + (level + 1) / 10);
      out[c++] = static_cast<char>('0' + (level + 1) % 10);
      for (int i = 0; i < suffix_len; ++i) out[c++] = suffix[i];
      out[c] = 0;
    };
    fill(names.splitters[level], kSplitters, 10);
    fill(names.tiles[level], kTiles, 6);
  }
  return names;
}
constexpr LevelNames kLevelNames = make_level_names();

constexpr std::uint32_t kPaperTile = 256;
constexpr std::uint32_t kMaxTile = 2048;  // the option's range
static_assert(kMaxTile / Policy::kMaxThreads <= kMaxPerThread,
              "a merge block holds at most kMaxPerThread pairs a thread");

class SatishMergeSorter final : public Sorter {
 public:
  explicit SatishMergeSorter(const SatishMergeOptions& options) : Sorter("satish-merge", Backend::Gpu) {
    faithful_ = options.faithful;
    const int t = options.t;
    if (t != 0 && (t < 64 || (t & (t - 1)) != 0))
      throw OptionError("satish-merge: option 't' must be 0 (auto) or a power of two in 64..2048, got " +
                        std::to_string(t));
    t_ = t != 0 ? static_cast<std::uint32_t>(t) : faithful_ ? kPaperTile : Policy::kDefaultTile;
    threads_ = std::min(t_, Policy::kMaxThreads);
    switch (t_ / threads_) {
      case 1:
        merge_kernel_ = merge_tiles_kernel<1>;
        break;
      case 2:
        merge_kernel_ = merge_tiles_kernel<2>;
        break;
      case 4:
        merge_kernel_ = merge_tiles_kernel<4>;
        break;
      default:
        merge_kernel_ = merge_tiles_kernel<kMaxPerThread>;
        break;
    }
  }

  std::size_t workspace_bytes() const override { return keys_.bytes() + values_.bytes() + points_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    keys_ = {};
    values_ = {};
    points_ = {};
    const std::size_t tiles = (max_n + t_ - 1) / t_;
    keys_ = DeviceBuffer<std::uint32_t>(max_n, name());
    values_ = DeviceBuffer<std::uint32_t>(max_n, name());
    // Per level: pairs * (2R + 1) slots, at most tiles + pairs + 1.
    points_ = DeviceBuffer<SplitPoint>(tiles + tiles / 2 + 2, name());
    primitives::allow_dynamic_smem(merge_kernel_, merge_smem(), "satish-merge merge_tiles_kernel");
    primitives::allow_dynamic_smem(tile_sort_kernel, 2 * std::size_t{t_} * 4, "satish-merge tile_sort_kernel");
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    const auto n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t tiles = (n + t_ - 1) / t_;
    int levels = 0;
    while ((std::uint32_t{1} << levels) < tiles) ++levels;
    auto* out_keys = reinterpret_cast<std::uint32_t*>(b.keys_out);
    // Buffer written by the step `steps_left` steps before the end: the output for even.
    auto keys_at = [&](int steps_left) { return steps_left % 2 == 0 ? out_keys : keys_.data(); };
    auto values_at = [&](int steps_left) { return steps_left % 2 == 0 ? b.values_out : values_.data(); };
    {
      StepScope step(timer, "tile sort");
      tile_sort_kernel<<<tiles, threads_, 2 * t_ * 4, stream>>>(reinterpret_cast<const std::uint32_t*>(b.keys_in),
                                                                b.values_in, keys_at(levels), values_at(levels), n, t_,
                                                                levels == 0);
      DEPTHSORT_CUDA_CHECK_LAUNCH("satish-merge tile_sort_kernel");
    }
    for (int level = 0; level < levels; ++level) {
      const int left = levels - level;  // steps_left of this level's input
      const Level lv{n, t_, t_ << level, std::uint32_t{1} << level};
      const std::uint32_t pairs = static_cast<std::uint32_t>((std::uint64_t{n} + 2ull * lv.w - 1) / (2ull * lv.w));
      {
        StepScope step(timer, kLevelNames.splitters[level], StepStart::AtLastStepEnd);
        splitter_kernel<<<(tiles + 255) / 256, 256, 0, stream>>>(keys_at(left), lv, tiles, points_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-merge splitter_kernel");
      }
      {
        StepScope step(timer, kLevelNames.tiles[level], StepStart::AtLastStepEnd);
        merge_kernel_<<<pairs*(2 * lv.tiles_per_run + 1), threads_, merge_smem(), stream>>>(
            keys_at(left), values_at(left), keys_at(left - 1), values_at(left - 1), lv, points_.data(), !faithful_,
            left - 1 == 0);
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-merge merge_tiles_kernel");
      }
    }
  }

 private:
  std::size_t merge_smem() const { return (faithful_ ? 2 : 6) * std::size_t{t_} * 4; }

  bool faithful_ = false;
  std::uint32_t t_ = Policy::kDefaultTile;
  std::uint32_t threads_ = Policy::kMaxThreads;
  decltype(&merge_tiles_kernel<1>) merge_kernel_ = nullptr;
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<std::uint32_t> values_;
  DeviceBuffer<SplitPoint> points_;
};

}  // namespace

std::unique_ptr<Sorter> make_satish_merge_sorter(const OptionValues& options) {
  return std::make_unique<SatishMergeSorter>(SatishMergeOptions::from(options));
}

}  // namespace depthsort::satish_merge
