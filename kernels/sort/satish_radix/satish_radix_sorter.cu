// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section III: `satish-radix`. Every pass of b-bit digits runs the paper's four phases as separate
// kernels, each a timed step named "pass K <phase>":
//   1. local sort: a block of 256 threads loads a tile of 1024 pairs (4 per thread) and sorts it in
//      shared memory by the current digit with b stable 1-bit splits, each built on a block scan;
//   2. histogram: the block's 2^b digit counts (and where each digit starts in the sorted tile),
//      stored column-major (Fig. 2: count of digit d of block j at d * p + j);
//   3. scan: cub::DeviceScan::ExclusiveSum over the p x 2^b table gives each block its global offset
//      per digit;
//   4. scatter: each block writes its sorted tile to those offsets, in 2^b runs contiguous per digit.
// Options (satish_radix_sorter.hpp): b, pairs per thread, and the arrangement of the phases in
// kernels (1+2 fused, or 2, 3, then 1+4 so the sorted tile never goes through global memory).
// This file is the host side; the kernels are satish_radix_kernels.cuh.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/satish_radix/satish_radix_kernels.cuh"
#include "sort/satish_radix/satish_radix_sorter.hpp"

namespace depthsort::satish_radix {
namespace {

// "pass K <phase>" for K = 1..8: string literals, as the StepTimer keeps names without copying.
#define DEPTHSORT_SATISH_PASS(K)                                                                  \
  {                                                                                               \
    "pass " #K " local sort", "pass " #K " histogram", "pass " #K " scan", "pass " #K " scatter", \
        "pass " #K " local sort+histogram", "pass " #K " local sort+scatter"                      \
  }
constexpr const char* kStepNames[kMaxPasses][6] = {
    DEPTHSORT_SATISH_PASS(1), DEPTHSORT_SATISH_PASS(2), DEPTHSORT_SATISH_PASS(3), DEPTHSORT_SATISH_PASS(4),
    DEPTHSORT_SATISH_PASS(5), DEPTHSORT_SATISH_PASS(6), DEPTHSORT_SATISH_PASS(7), DEPTHSORT_SATISH_PASS(8)};
#undef DEPTHSORT_SATISH_PASS
enum Phase { kLocalSort, kHistogram, kScan, kScatter, kLocalSortHistogram, kLocalSortScatter };

// 32-bit positions and the p x 2^b table indexed in size_t: n below 2^31 keeps both in range.
constexpr std::size_t kMaxSatishPairs = (std::size_t{1} << 31) - 4096;

template <int kItems, bool kBallot>
void allow_tile_smem() {
  constexpr int bytes = sizeof(TileSmem<kItems>);
  primitives::allow_dynamic_smem(local_sort_kernel<kItems, kBallot>, bytes, "satish-radix local_sort_kernel");
  primitives::allow_dynamic_smem(sort_scatter_kernel<kItems, kBallot>, bytes, "satish-radix sort_scatter_kernel");
}

class SatishRadixSorter final : public Sorter {
 public:
  explicit SatishRadixSorter(const SatishRadixOptions& options) : Sorter("satish-radix", Backend::Gpu) {
    bits_ = options.faithful ? 4 : options.bits;
    items_ = options.faithful ? 4 : options.items;
    arrangement_ = options.faithful ? Arrangement::Paper : options.arrangement;
    ballot_scan_ = !options.faithful && options.ballot_scan;
    if (items_ != 4 && items_ != 8 && items_ != 16)
      throw OptionError("satish-radix: option 'items' must be 4, 8 or 16, got " + std::to_string(items_));
  }

  std::size_t workspace_bytes() const override {
    return tile_keys_.bytes() + tile_values_.bytes() + counts_.bytes() + offsets_.bytes() + starts_.bytes() +
           scan_temp_.bytes();
  }

 protected:
  void do_reserve(std::size_t max_n) override {
    if (max_n > kMaxSatishPairs)
      throw CapacityError(name() + ": cannot reserve for " + std::to_string(max_n) + " pairs: at most " +
                          std::to_string(kMaxSatishPairs) + " (32-bit positions)");
    // A larger reservation must not need the old and the new workspace at once.
    for (DeviceBuffer<std::uint32_t>* buffer : {&tile_keys_, &tile_values_, &counts_, &offsets_, &starts_})
      *buffer = DeviceBuffer<std::uint32_t>();
    scan_temp_ = DeviceBuffer<unsigned char>();
    const std::size_t n = std::max<std::size_t>(max_n, 1);
    const std::size_t tile = static_cast<std::size_t>(kThreads) * items_;
    const std::size_t table = (n + tile - 1) / tile * (std::size_t{1} << bits_);
    tile_keys_ = DeviceBuffer<std::uint32_t>(n, name());
    tile_values_ = DeviceBuffer<std::uint32_t>(n, name());
    counts_ = DeviceBuffer<std::uint32_t>(table, name());
    offsets_ = DeviceBuffer<std::uint32_t>(table, name());
    if (arrangement_ != Arrangement::CountFirst) starts_ = DeviceBuffer<std::uint32_t>(table, name());
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts_.data(), offsets_.data(), static_cast<int>(table)));
    scan_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), name());
    // [&]: a lambda without captures would also declare a conversion nvcc warns about.
    dispatch([&]<int kItems, bool kBallot>() { allow_tile_smem<kItems, kBallot>(); });
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    dispatch([&]<int kItems, bool kBallot>() { sort_with<kItems, kBallot>(b, stream, timer); });
  }

 private:
  // Calls f.template operator()<items, ballot_scan>() with the options as constants.
  template <class F>
  void dispatch(F&& f) const {
    auto with_items = [&]<bool kBallot>() {
      if (items_ == 4) f.template operator()<4, kBallot>();
      if (items_ == 8) f.template operator()<8, kBallot>();
      if (items_ == 16) f.template operator()<16, kBallot>();
    };
    if (ballot_scan_)
      with_items.template operator()<true>();
    else
      with_items.template operator()<false>();
  }

  template <int kItems, bool kBallot>
  void sort_with(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) {
    constexpr int kTile = kThreads * kItems;
    constexpr int kSmem = sizeof(TileSmem<kItems>);
    const auto n = static_cast<std::uint32_t>(b.n);
    const auto p = static_cast<std::uint32_t>((b.n + kTile - 1) / kTile);
    const int passes = pass_count(bits_);
    const bool count_first = arrangement_ == Arrangement::CountFirst;
    const bool fused = arrangement_ == Arrangement::FusedHistogram;
    // The paper's arrangement sorts in place in the output buffers (the tile buffers hold each
    // pass's sorted tiles); count-first scatters straight from shared memory, so it alternates
    // between the output and the tile buffers, ending in the output.
    auto* out_ordered = reinterpret_cast<std::uint32_t*>(b.keys_out);
    for (int pass = 0; pass < passes; ++pass) {
      const int shift = pass_shift(pass, bits_);
      const int bits = pass_bits(pass, bits_);
      const std::size_t table = static_cast<std::size_t>(p) << bits;
      const bool last = pass + 1 == passes;
      const char* const* names = kStepNames[pass];
      const bool src_in_tile = count_first && pass > 0 && (passes - pass) % 2 == 1;
      const KeySource src{pass == 0 ? b.keys_in : nullptr,
                          pass == 0 ? nullptr : (src_in_tile ? tile_keys_.data() : out_ordered)};
      const std::uint32_t* src_values = pass == 0 ? b.values_in : (src_in_tile ? tile_values_.data() : b.values_out);
      const bool dst_in_tile = count_first && !last && (passes - pass - 1) % 2 == 1;
      const KeySink dst{dst_in_tile ? tile_keys_.data() : out_ordered, last ? b.keys_out : nullptr};
      std::uint32_t* dst_values = dst_in_tile ? tile_values_.data() : b.values_out;
      // Each pass after the first starts where the last one's scatter ends.
      const StepStart pass_start = pass > 0 ? StepStart::AtLastStepEnd : StepStart::OwnEvent;
      if (count_first) {
        {
          StepScope step(timer, names[kHistogram], pass_start);
          count_kernel<kItems><<<p, kThreads, 0, stream>>>(src, n, shift, bits, p, counts_.data());
          DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix count_kernel");
        }
        scan(table, stream, timer, names[kScan]);
        StepScope step(timer, names[kLocalSortScatter], StepStart::AtLastStepEnd);
        sort_scatter_kernel<kItems, kBallot>
            <<<p, kThreads, kSmem, stream>>>(src, src_values, offsets_.data(), n, shift, bits, p, dst, dst_values);
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix sort_scatter_kernel");
        continue;
      }
      {
        StepScope step(timer, names[fused ? kLocalSortHistogram : kLocalSort], pass_start);
        local_sort_kernel<kItems, kBallot>
            <<<p, kThreads, kSmem, stream>>>(src, src_values, tile_keys_.data(), tile_values_.data(), n, shift, bits, p,
                                             fused ? counts_.data() : nullptr, starts_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix local_sort_kernel");
      }
      if (!fused) {
        StepScope step(timer, names[kHistogram], StepStart::AtLastStepEnd);
        histogram_kernel<kItems>
            <<<p, kThreads, 0, stream>>>(tile_keys_.data(), n, shift, bits, p, counts_.data(), starts_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix histogram_kernel");
      }
      scan(table, stream, timer, names[kScan]);
      StepScope step(timer, names[kScatter], StepStart::AtLastStepEnd);
      scatter_kernel<kItems><<<p, kThreads, 0, stream>>>(tile_keys_.data(), tile_values_.data(), offsets_.data(),
                                                         starts_.data(), n, shift, bits, p, dst, dst_values);
      DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix scatter_kernel");
    }
  }

  // Phase 3: the column-major table scanned as one array gives, for digit d and block j, the count
  // of all smaller digits plus that of digit d in blocks before j. It always follows the step that
  // counted the digits.
  void scan(std::size_t table, cudaStream_t stream, StepTimer& timer, const char* name) {
    StepScope step(timer, name, StepStart::AtLastStepEnd);
    std::size_t bytes = scan_temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.data(), bytes, counts_.data(), offsets_.data(),
                                                       static_cast<int>(table), stream));
  }

  int bits_ = 4;
  int items_ = 4;
  Arrangement arrangement_ = Arrangement::Paper;
  bool ballot_scan_ = false;
  DeviceBuffer<std::uint32_t> tile_keys_, tile_values_, counts_, offsets_, starts_;
  DeviceBuffer<unsigned char> scan_temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_satish_radix_sorter(const OptionValues& options) {
  return std::make_unique<SatishRadixSorter>(SatishRadixOptions::from(options));
}

}  // namespace depthsort::satish_radix
