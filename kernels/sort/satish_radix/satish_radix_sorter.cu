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
// The splits move one 32-bit word per pair, (digit << 16 | position in the tile), and the pairs are
// gathered once after the last split: the same b splits with a third of the shared-memory traffic.
// Keys travel as the ordered uint32 of keys.hpp: converted on the first load, back on the last store.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/satish_radix/satish_radix_digits.hpp"
#include "sort/satish_radix/satish_radix_sorter.hpp"

namespace depthsort::satish_radix {
namespace {

// Section III: t = 256 threads and 4 elements per thread, a tile of 1024; `items` takes 8 or 16.
constexpr int kThreads = 256;
constexpr int kMaxRadix = 1 << 8;
constexpr int kMaxPasses = 8;
constexpr std::uint32_t kPadKey = 0xFFFFFFFFu;  // pads sort after every real key of the tile
constexpr int kDigitShift = 16;                 // split word: digit << 16 | position (tiles <= 4096)
constexpr std::uint32_t kPositionMask = 0xFFFFu;

using BlockScan = cub::BlockScan<std::uint32_t, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;

// Where a pass reads its keys: the caller's floats (first pass) or ordered keys of a previous pass.
struct KeySource {
  const float* floats;
  const std::uint32_t* ordered;
  __device__ std::uint32_t load(std::uint32_t i) const { return floats ? ordered_key(floats[i]) : ordered[i]; }
};

// Where a pass writes its keys: ordered keys, or floats on the last pass.
struct KeySink {
  std::uint32_t* ordered;
  float* floats;
  __device__ void store(std::uint32_t i, std::uint32_t key) const {
    if (floats)
      floats[i] = key_from_ordered(key);
    else
      ordered[i] = key;
  }
};

struct DigitRuns {
  std::uint32_t start[kMaxRadix];  // first position of each digit in the sorted tile
  std::uint32_t end[kMaxRadix];    // one past its last (start = end = 0 where absent)
};

template <int kItems>
struct TileSmem {
  static constexpr int kTile = kThreads * kItems;
  BlockScan::TempStorage scan;
  alignas(16) std::uint32_t keys[kTile];    // the tile as loaded (pads past the end)
  alignas(16) std::uint32_t values[kTile];
  alignas(16) std::uint32_t words[kTile];   // split words, in the order of the last split
  DigitRuns runs;
  std::uint32_t run_base[kMaxRadix];
  std::uint32_t warp_zeros[kThreads / 32];
};

template <int kItems>
__device__ TileSmem<kItems>& tile_smem() {
  extern __shared__ uint4 smem_raw[];
  return *reinterpret_cast<TileSmem<kItems>*>(smem_raw);
}

template <int kTile>
__device__ std::uint32_t tile_valid(std::uint32_t n) {
  return min(static_cast<std::uint32_t>(kTile), n - blockIdx.x * kTile);
}

// Blocked read of a thread's kItems consecutive words of a tile array, as 128-bit loads.
template <int kItems>
__device__ void read_blocked(const std::uint32_t* array, std::uint32_t (&w)[kItems]) {
  const uint4* vectors = reinterpret_cast<const uint4*>(array) + threadIdx.x * (kItems / 4);
#pragma unroll
  for (int q = 0; q < kItems / 4; ++q) {
    const uint4 v = vectors[q];
    w[4 * q] = v.x;
    w[4 * q + 1] = v.y;
    w[4 * q + 2] = v.z;
    w[4 * q + 3] = v.w;
  }
}

// Which tile position a thread's item i holds during the splits. The block scan of CUB takes each
// thread's items consecutive (blocked); the ballot scan takes them warp-striped, so the 32 lanes of
// a warp write neighbouring ranks and the split's shared-memory scatter has few bank conflicts.
template <int kItems, bool kBallot>
__device__ std::uint32_t item_position(int i) {
  if constexpr (kBallot)
    return striped_position(threadIdx.x, i, kItems);
  else
    return blocked_position(threadIdx.x, i, kItems);
}

template <int kItems, bool kBallot>
__device__ void read_items(const std::uint32_t* array, std::uint32_t (&w)[kItems]) {
  if constexpr (kBallot) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) w[i] = array[item_position<kItems, true>(i)];
  } else {
    read_blocked<kItems>(array, w);
  }
}

// The block scan of a split: for each item, the 0-bit items at tile positions before it, and the
// tile's total. CUB's BlockScan over per-thread counts, or one ballot per item and warp totals.
template <int kItems, bool kBallot>
__device__ std::uint32_t scan_zeros(TileSmem<kItems>& s, const std::uint32_t (&ones)[kItems],
                                    std::uint32_t (&zeros_before)[kItems]) {
  std::uint32_t total = 0;
  if constexpr (kBallot) {
    const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const std::uint32_t lanes_before = (1u << lane) - 1u;
    std::uint32_t in_warp = 0;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const std::uint32_t zero_lanes = __ballot_sync(0xFFFFFFFFu, ones[i] == 0u);
      zeros_before[i] = in_warp + __popc(zero_lanes & lanes_before);
      in_warp += __popc(zero_lanes);
    }
    if (lane == 0) s.warp_zeros[warp] = in_warp;
    // Orders every thread's reads of s.words (end of the previous split) before any writes below.
    __syncthreads();
    std::uint32_t before = 0;
#pragma unroll
    for (std::uint32_t v = 0; v < kThreads / 32; ++v) {
      const std::uint32_t z = s.warp_zeros[v];
      before += v < warp ? z : 0u;
      total += z;
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) zeros_before[i] += before;
  } else {
    std::uint32_t zeros = 0;
#pragma unroll
    for (int i = 0; i < kItems; ++i) zeros += 1u - ones[i];
    std::uint32_t running = 0;
    // The scan's own barrier also orders every thread's reads of s.words before the writes.
    BlockScan(s.scan).ExclusiveSum(zeros, running, total);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      zeros_before[i] = running;
      running += 1u - ones[i];
    }
  }
  return total;
}

// Phase 1 on the tile in shared memory: b stable 1-bit splits, the digit's least significant bit
// first (Blelloch's split). Afterwards s.words holds (digit << 16 | position) in digit order,
// stable within a digit; pads (largest key, last positions) land last.
template <int kItems, bool kBallot>
__device__ void split_sort_tile(TileSmem<kItems>& s, int shift, int bits) {
  std::uint32_t w[kItems];
  read_items<kItems, kBallot>(s.keys, w);
#pragma unroll
  for (int i = 0; i < kItems; ++i)
    w[i] = digit_of(w[i], shift, bits) << kDigitShift | item_position<kItems, kBallot>(i);
  for (int bit = kDigitShift; bit < kDigitShift + bits; ++bit) {
    std::uint32_t ones[kItems], zeros_before[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) ones[i] = (w[i] >> bit) & 1u;
    const std::uint32_t total_zeros = scan_zeros<kItems, kBallot>(s, ones, zeros_before);
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      s.words[split_rank(ones[i], item_position<kItems, kBallot>(i), zeros_before[i], total_zeros)] = w[i];
    __syncthreads();
    if (bit + 1 < kDigitShift + bits) read_items<kItems, kBallot>(s.words, w);
  }
}

// Phase 2 on a sorted tile: where each digit's run starts and ends (digit_at(i) of position i).
template <class DigitAt>
__device__ void find_digit_runs(DigitRuns& runs, std::uint32_t valid, DigitAt digit_at) {
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t d = digit_at(i);
    if (i == 0 || digit_at(i - 1) != d) runs.start[d] = i;
    if (i + 1 == valid || digit_at(i + 1) != d) runs.end[d] = i + 1;
  }
  __syncthreads();
}

__device__ void clear_runs(DigitRuns& runs, int radix) {
  for (int d = threadIdx.x; d < radix; d += kThreads) runs.start[d] = runs.end[d] = 0;
}

// Column-major table (Fig. 2): counts[d * p + block]; starts row-major, for the scatter.
__device__ void write_histogram(const DigitRuns& runs, int radix, std::uint32_t p, std::uint32_t* counts,
                                std::uint32_t* starts) {
  for (int d = threadIdx.x; d < radix; d += kThreads) {
    counts[static_cast<std::size_t>(d) * p + blockIdx.x] = runs.end[d] - runs.start[d];
    if (starts) starts[static_cast<std::size_t>(blockIdx.x) * radix + d] = runs.start[d];
  }
}

template <int kItems>
__device__ void load_tile(TileSmem<kItems>& s, KeySource keys, const std::uint32_t* values, std::uint32_t valid) {
  const std::uint32_t base = blockIdx.x * TileSmem<kItems>::kTile;
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const std::uint32_t i = threadIdx.x + r * kThreads;
    const bool real = i < valid;
    s.keys[i] = real ? keys.load(base + i) : kPadKey;
    s.values[i] = real ? values[base + i] : 0u;
  }
  __syncthreads();
}

// Phase 1 (and 2 when `counts` is given): sort the tile by the digit and write it back sorted.
template <int kItems, bool kBallot>
__global__ void __launch_bounds__(kThreads) local_sort_kernel(KeySource keys, const std::uint32_t* values,
                                                              std::uint32_t* tile_keys, std::uint32_t* tile_values,
                                                              std::uint32_t n, int shift, int bits, std::uint32_t p,
                                                              std::uint32_t* counts, std::uint32_t* starts) {
  TileSmem<kItems>& s = tile_smem<kItems>();
  constexpr int kTile = TileSmem<kItems>::kTile;
  const std::uint32_t valid = tile_valid<kTile>(n);
  const int radix = 1 << bits;
  clear_runs(s.runs, radix);
  load_tile(s, keys, values, valid);
  split_sort_tile<kItems, kBallot>(s, shift, bits);
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t from = s.words[i] & kPositionMask;
    tile_keys[base + i] = s.keys[from];
    tile_values[base + i] = s.values[from];
  }
  if (counts) {
    find_digit_runs(s.runs, valid, [&](std::uint32_t i) { return s.words[i] >> kDigitShift; });
    write_histogram(s.runs, radix, p, counts, starts);
  }
}

// Phase 2 as its own kernel (the paper's order): read the sorted tile's keys, find the digit runs.
template <int kItems>
__global__ void __launch_bounds__(kThreads) histogram_kernel(const std::uint32_t* tile_keys, std::uint32_t n,
                                                             int shift, int bits, std::uint32_t p,
                                                             std::uint32_t* counts, std::uint32_t* starts) {
  constexpr int kTile = kThreads * kItems;
  __shared__ std::uint32_t keys[kTile];
  __shared__ DigitRuns runs;
  const std::uint32_t valid = tile_valid<kTile>(n);
  const int radix = 1 << bits;
  clear_runs(runs, radix);
  const std::uint32_t base = blockIdx.x * kTile;
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const std::uint32_t i = threadIdx.x + r * kThreads;
    if (i < valid) keys[i] = tile_keys[base + i];
  }
  __syncthreads();
  find_digit_runs(runs, valid, [&](std::uint32_t i) { return digit_of(keys[i], shift, bits); });
  write_histogram(runs, radix, p, counts, starts);
}

// Phase 4: each sorted pair goes to its digit's global offset plus its distance into the digit's run.
template <int kItems>
__global__ void __launch_bounds__(kThreads) scatter_kernel(const std::uint32_t* tile_keys,
                                                           const std::uint32_t* tile_values,
                                                           const std::uint32_t* offsets, const std::uint32_t* starts,
                                                           std::uint32_t n, int shift, int bits, std::uint32_t p,
                                                           KeySink out_keys, std::uint32_t* out_values) {
  constexpr int kTile = kThreads * kItems;
  __shared__ std::uint32_t run_base[kMaxRadix];
  const int radix = 1 << bits;
  for (int d = threadIdx.x; d < radix; d += kThreads)
    run_base[d] = offsets[static_cast<std::size_t>(d) * p + blockIdx.x] -
                  starts[static_cast<std::size_t>(blockIdx.x) * radix + d];
  __syncthreads();
  const std::uint32_t valid = tile_valid<kTile>(n);
  const std::uint32_t base = blockIdx.x * kTile;
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const std::uint32_t i = threadIdx.x + r * kThreads;
    if (i >= valid) break;
    const std::uint32_t key = tile_keys[base + i];
    const std::uint32_t to = run_base[digit_of(key, shift, bits)] + i;
    out_keys.store(to, key);
    out_values[to] = tile_values[base + i];
  }
}

// arrangement 2, phase 2 first: digit counts of the unsorted tile (shared-memory atomics), every
// key loaded before the first atomic so the loads overlap.
template <int kItems>
__global__ void __launch_bounds__(kThreads) count_kernel(KeySource keys, std::uint32_t n, int shift, int bits,
                                                         std::uint32_t p, std::uint32_t* counts) {
  constexpr int kTile = kThreads * kItems;
  __shared__ std::uint32_t hist[kMaxRadix];
  const int radix = 1 << bits;
  for (int d = threadIdx.x; d < radix; d += kThreads) hist[d] = 0;
  const std::uint32_t valid = tile_valid<kTile>(n);
  const std::uint32_t base = blockIdx.x * kTile;
  std::uint32_t k[kItems];
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const std::uint32_t i = threadIdx.x + r * kThreads;
    k[r] = i < valid ? keys.load(base + i) : 0u;
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kItems; ++r)
    if (threadIdx.x + r * kThreads < valid) atomicAdd(&hist[digit_of(k[r], shift, bits)], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < radix; d += kThreads) counts[static_cast<std::size_t>(d) * p + blockIdx.x] = hist[d];
}

// arrangement 2, phases 1 + 4: sort the tile on chip, then write each digit's run to its offset.
template <int kItems, bool kBallot>
__global__ void __launch_bounds__(kThreads) sort_scatter_kernel(KeySource keys, const std::uint32_t* values,
                                                                const std::uint32_t* offsets, std::uint32_t n,
                                                                int shift, int bits, std::uint32_t p,
                                                                KeySink out_keys, std::uint32_t* out_values) {
  TileSmem<kItems>& s = tile_smem<kItems>();
  constexpr int kTile = TileSmem<kItems>::kTile;
  const std::uint32_t valid = tile_valid<kTile>(n);
  const int radix = 1 << bits;
  clear_runs(s.runs, radix);
  for (int d = threadIdx.x; d < radix; d += kThreads)
    s.run_base[d] = offsets[static_cast<std::size_t>(d) * p + blockIdx.x];
  load_tile(s, keys, values, valid);
  split_sort_tile<kItems, kBallot>(s, shift, bits);
  find_digit_runs(s.runs, valid, [&](std::uint32_t i) { return s.words[i] >> kDigitShift; });
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t word = s.words[i];
    const std::uint32_t d = word >> kDigitShift;
    const std::uint32_t to = s.run_base[d] + (i - s.runs.start[d]);
    out_keys.store(to, s.keys[word & kPositionMask]);
    out_values[to] = s.values[word & kPositionMask];
  }
}

// "pass K <phase>" for K = 1..8: string literals, as the StepTimer keeps names without copying.
#define DEPTHSORT_SATISH_PASS(K)                                                                   \
  {"pass " #K " local sort", "pass " #K " histogram", "pass " #K " scan", "pass " #K " scatter", \
   "pass " #K " local sort+histogram", "pass " #K " local sort+scatter"}
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
  explicit SatishRadixSorter(const OptionValues& options) : Sorter("satish-radix", Backend::Gpu) {
    const bool faithful = option_value(options, "faithful") != 0;
    bits_ = faithful ? 4 : option_value(options, "bits");
    items_ = faithful ? 4 : option_value(options, "items");
    arrangement_ = faithful ? Arrangement::Paper : static_cast<Arrangement>(option_value(options, "arrangement"));
    ballot_scan_ = !faithful && option_value(options, "ballot_scan") != 0;
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
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts_.data(), offsets_.data(),
                                                       static_cast<int>(table)));
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
        sort_scatter_kernel<kItems, kBallot><<<p, kThreads, kSmem, stream>>>(src, src_values, offsets_.data(), n, shift, bits,
                                                                    p, dst, dst_values);
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix sort_scatter_kernel");
        continue;
      }
      {
        StepScope step(timer, names[fused ? kLocalSortHistogram : kLocalSort], pass_start);
        local_sort_kernel<kItems, kBallot><<<p, kThreads, kSmem, stream>>>(src, src_values, tile_keys_.data(),
                                                                  tile_values_.data(), n, shift, bits, p,
                                                                  fused ? counts_.data() : nullptr, starts_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix local_sort_kernel");
      }
      if (!fused) {
        StepScope step(timer, names[kHistogram], StepStart::AtLastStepEnd);
        histogram_kernel<kItems><<<p, kThreads, 0, stream>>>(tile_keys_.data(), n, shift, bits, p, counts_.data(),
                                                             starts_.data());
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
  return std::make_unique<SatishRadixSorter>(options);
}

}  // namespace depthsort::satish_radix
