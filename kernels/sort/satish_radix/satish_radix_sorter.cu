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
// Options (satish_radix_sorter.hpp) fuse 1+2 (`fuse_histogram`) or reorder them so the sorted tile
// never goes through global memory (`count_first`: histogram, scan, local sort + scatter).
// Keys travel as the ordered uint32 of keys.hpp: converted on the first load, back on the last store.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>

#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "sort/satish_radix/satish_radix_digits.hpp"
#include "sort/satish_radix/satish_radix_sorter.hpp"

namespace depthsort::satish_radix {
namespace {

// Section III: t = 256 threads, 4 elements per thread, 1024 per tile, p = ceil(n / 1024) blocks.
constexpr int kThreads = 256;
constexpr int kItems = 4;
constexpr int kTile = kThreads * kItems;
constexpr int kMaxRadix = 1 << 8;
constexpr int kMaxPasses = 8;
constexpr std::uint32_t kPadKey = 0xFFFFFFFFu;  // pads sort after every real key of the tile

using BlockScan = cub::BlockScan<std::uint32_t, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;

// Where a pass reads its keys: the caller's floats (first pass) or ordered keys of a previous pass.
struct KeySource {
  const float* floats;
  const std::uint32_t* ordered;
  __device__ std::uint32_t load(std::uint32_t i) const {
    return floats ? ordered_key(floats[i]) : ordered[i];
  }
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

struct TileSmem {
  BlockScan::TempStorage scan;
  alignas(16) std::uint32_t keys[kTile];
  alignas(16) std::uint32_t values[kTile];
  std::uint32_t start[kMaxRadix];  // first position of each digit in the sorted tile
  std::uint32_t end[kMaxRadix];    // one past its last (start = end = 0 where absent)
};

__device__ std::uint32_t tile_valid(std::uint32_t n) {
  const std::uint32_t base = blockIdx.x * kTile;
  return min(static_cast<std::uint32_t>(kTile), n - base);
}

// Phase 1 on a tile already in smem (pads past `valid`): b stable 1-bit splits, least significant
// bit of the digit first, so after them the tile is sorted by the digit and stable within it.
__device__ void split_sort_tile(TileSmem& s, int shift, int bits) {
  const std::uint32_t first = threadIdx.x * kItems;
  for (int bit = shift; bit < shift + bits; ++bit) {
    __syncthreads();
    const uint4 k4 = reinterpret_cast<const uint4*>(s.keys)[threadIdx.x];
    const uint4 v4 = reinterpret_cast<const uint4*>(s.values)[threadIdx.x];
    const std::uint32_t k[kItems] = {k4.x, k4.y, k4.z, k4.w};
    const std::uint32_t v[kItems] = {v4.x, v4.y, v4.z, v4.w};
    std::uint32_t ones[kItems];
    std::uint32_t zeros = 0;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      ones[i] = (k[i] >> bit) & 1u;
      zeros += 1u - ones[i];
    }
    std::uint32_t zeros_before = 0, total_zeros = 0;
    // The scan's own barriers also order this iteration's reads before any thread's writes below.
    BlockScan(s.scan).ExclusiveSum(zeros, zeros_before, total_zeros);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const std::uint32_t rank = split_rank(ones[i], first + i, zeros_before, total_zeros);
      zeros_before += 1u - ones[i];
      s.keys[rank] = k[i];
      s.values[rank] = v[i];
    }
  }
  __syncthreads();
}

// Phase 2 on the sorted tile in smem: where each digit's run starts and ends.
__device__ void find_digit_runs(TileSmem& s, std::uint32_t valid, int shift, int bits) {
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t d = digit_of(s.keys[i], shift, bits);
    if (i == 0 || digit_of(s.keys[i - 1], shift, bits) != d) s.start[d] = i;
    if (i + 1 == valid || digit_of(s.keys[i + 1], shift, bits) != d) s.end[d] = i + 1;
  }
  __syncthreads();
}

__device__ void clear_runs(TileSmem& s, int radix) {
  for (int d = threadIdx.x; d < radix; d += kThreads) s.start[d] = s.end[d] = 0;
}

// Column-major table (Fig. 2): counts[d * p + block]; starts row-major for the scatter.
__device__ void write_histogram(const TileSmem& s, int radix, std::uint32_t p, std::uint32_t* counts,
                                std::uint32_t* starts) {
  for (int d = threadIdx.x; d < radix; d += kThreads) {
    counts[static_cast<std::size_t>(d) * p + blockIdx.x] = s.end[d] - s.start[d];
    if (starts) starts[static_cast<std::size_t>(blockIdx.x) * radix + d] = s.start[d];
  }
}

__device__ void load_tile(TileSmem& s, KeySource keys, const std::uint32_t* values, std::uint32_t valid) {
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < kTile; i += kThreads) {
    const bool real = i < valid;
    s.keys[i] = real ? keys.load(base + i) : kPadKey;
    s.values[i] = real ? values[base + i] : 0u;
  }
}

// Phase 1 (and 2 when `counts` is given): sort the tile by the digit, write it back in place order.
__global__ void __launch_bounds__(kThreads) local_sort_kernel(KeySource keys, const std::uint32_t* values,
                                                              std::uint32_t* tile_keys, std::uint32_t* tile_values,
                                                              std::uint32_t n, int shift, int bits, std::uint32_t p,
                                                              std::uint32_t* counts, std::uint32_t* starts) {
  __shared__ TileSmem s;
  const std::uint32_t valid = tile_valid(n);
  const int radix = 1 << bits;
  clear_runs(s, radix);
  load_tile(s, keys, values, valid);
  split_sort_tile(s, shift, bits);
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    tile_keys[base + i] = s.keys[i];
    tile_values[base + i] = s.values[i];
  }
  if (counts) {
    find_digit_runs(s, valid, shift, bits);
    write_histogram(s, radix, p, counts, starts);
  }
}

// Phase 2 as its own kernel (the paper's order): read the sorted tile's keys, find the digit runs.
__global__ void __launch_bounds__(kThreads) histogram_kernel(const std::uint32_t* tile_keys, std::uint32_t n,
                                                             int shift, int bits, std::uint32_t p,
                                                             std::uint32_t* counts, std::uint32_t* starts) {
  __shared__ TileSmem s;
  const std::uint32_t valid = tile_valid(n);
  const int radix = 1 << bits;
  clear_runs(s, radix);
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) s.keys[i] = tile_keys[base + i];
  __syncthreads();
  find_digit_runs(s, valid, shift, bits);
  write_histogram(s, radix, p, counts, starts);
}

// Phase 4: each sorted pair goes to its digit's global offset plus its distance into the digit's run.
__global__ void __launch_bounds__(kThreads) scatter_kernel(const std::uint32_t* tile_keys,
                                                           const std::uint32_t* tile_values,
                                                           const std::uint32_t* offsets, const std::uint32_t* starts,
                                                           std::uint32_t n, int shift, int bits, std::uint32_t p,
                                                           KeySink out_keys, std::uint32_t* out_values) {
  __shared__ std::uint32_t run_base[kMaxRadix];
  const int radix = 1 << bits;
  for (int d = threadIdx.x; d < radix; d += kThreads)
    run_base[d] = offsets[static_cast<std::size_t>(d) * p + blockIdx.x] -
                  starts[static_cast<std::size_t>(blockIdx.x) * radix + d];
  __syncthreads();
  const std::uint32_t valid = tile_valid(n);
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t key = tile_keys[base + i];
    const std::uint32_t to = run_base[digit_of(key, shift, bits)] + i;
    out_keys.store(to, key);
    out_values[to] = tile_values[base + i];
  }
}

// count_first, phase 2 before 1: digit counts of the unsorted tile (shared-memory atomics).
__global__ void __launch_bounds__(kThreads) count_kernel(KeySource keys, std::uint32_t n, int shift, int bits,
                                                         std::uint32_t p, std::uint32_t* counts) {
  __shared__ std::uint32_t hist[kMaxRadix];
  const int radix = 1 << bits;
  for (int d = threadIdx.x; d < radix; d += kThreads) hist[d] = 0;
  __syncthreads();
  const std::uint32_t valid = tile_valid(n);
  const std::uint32_t base = blockIdx.x * kTile;
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads)
    atomicAdd(&hist[digit_of(keys.load(base + i), shift, bits)], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < radix; d += kThreads) counts[static_cast<std::size_t>(d) * p + blockIdx.x] = hist[d];
}

// count_first, phases 1 + 4: sort the tile on chip, then write each digit's run to its global offset.
__global__ void __launch_bounds__(kThreads) sort_scatter_kernel(KeySource keys, const std::uint32_t* values,
                                                                const std::uint32_t* offsets, std::uint32_t n,
                                                                int shift, int bits, std::uint32_t p,
                                                                KeySink out_keys, std::uint32_t* out_values) {
  __shared__ TileSmem s;
  __shared__ std::uint32_t run_base[kMaxRadix];
  const std::uint32_t valid = tile_valid(n);
  const int radix = 1 << bits;
  clear_runs(s, radix);
  for (int d = threadIdx.x; d < radix; d += kThreads)
    run_base[d] = offsets[static_cast<std::size_t>(d) * p + blockIdx.x];
  load_tile(s, keys, values, valid);
  split_sort_tile(s, shift, bits);
  find_digit_runs(s, valid, shift, bits);
  for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
    const std::uint32_t key = s.keys[i];
    const std::uint32_t d = digit_of(key, shift, bits);
    const std::uint32_t to = run_base[d] + (i - s.start[d]);
    out_keys.store(to, key);
    out_values[to] = s.values[i];
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
constexpr std::size_t kMaxSatishPairs = (std::size_t{1} << 31) - kTile;

class SatishRadixSorter final : public Sorter {
 public:
  explicit SatishRadixSorter(const OptionValues& options) : Sorter("satish-radix", Backend::Gpu) {
    bits_ = option_value(options, "bits");
    fuse_histogram_ = option_value(options, "fuse_histogram") != 0;
    count_first_ = option_value(options, "count_first") != 0;
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
    const std::size_t table = (n + kTile - 1) / kTile * (std::size_t{1} << bits_);
    tile_keys_ = DeviceBuffer<std::uint32_t>(n, name());
    tile_values_ = DeviceBuffer<std::uint32_t>(n, name());
    counts_ = DeviceBuffer<std::uint32_t>(table, name());
    offsets_ = DeviceBuffer<std::uint32_t>(table, name());
    if (!count_first_) starts_ = DeviceBuffer<std::uint32_t>(table, name());
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts_.data(), offsets_.data(),
                                                       static_cast<int>(table)));
    scan_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    const auto n = static_cast<std::uint32_t>(b.n);
    if (n == 0) return;
    const auto p = static_cast<std::uint32_t>((b.n + kTile - 1) / kTile);
    const int passes = pass_count(bits_);
    // The faithful path sorts in place in the output buffers (the tile buffer holds each pass's
    // sorted tiles); count_first scatters straight from shared memory, so it alternates between the
    // output and the tile buffer, ending in the output.
    auto* out_ordered = reinterpret_cast<std::uint32_t*>(b.keys_out);
    for (int pass = 0; pass < passes; ++pass) {
      const int shift = pass_shift(pass, bits_);
      const int bits = pass_bits(pass, bits_);
      const std::size_t table = static_cast<std::size_t>(p) << bits;
      const bool last = pass + 1 == passes;
      const char* const* names = kStepNames[pass];
      const bool src_in_tile = count_first_ && pass > 0 && (passes - pass) % 2 == 1;
      const KeySource src{pass == 0 ? b.keys_in : nullptr,
                          pass == 0 ? nullptr : (src_in_tile ? tile_keys_.data() : out_ordered)};
      const std::uint32_t* src_values =
          pass == 0 ? b.values_in : (src_in_tile ? tile_values_.data() : b.values_out);
      const bool dst_in_tile = count_first_ && !last && (passes - pass - 1) % 2 == 1;
      const KeySink dst{dst_in_tile ? tile_keys_.data() : out_ordered, last ? b.keys_out : nullptr};
      std::uint32_t* dst_values = dst_in_tile ? tile_values_.data() : b.values_out;
      if (count_first_) {
        {
          StepScope step(timer, names[kHistogram]);
          count_kernel<<<p, kThreads, 0, stream>>>(src, n, shift, bits, p, counts_.data());
          DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix count_kernel");
        }
        scan(table, stream, timer, names[kScan]);
        StepScope step(timer, names[kLocalSortScatter]);
        sort_scatter_kernel<<<p, kThreads, 0, stream>>>(src, src_values, offsets_.data(), n, shift, bits, p, dst,
                                                        dst_values);
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix sort_scatter_kernel");
        continue;
      }
      {
        StepScope step(timer, names[fuse_histogram_ ? kLocalSortHistogram : kLocalSort]);
        local_sort_kernel<<<p, kThreads, 0, stream>>>(src, src_values, tile_keys_.data(), tile_values_.data(), n,
                                                      shift, bits, p, fuse_histogram_ ? counts_.data() : nullptr,
                                                      starts_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix local_sort_kernel");
      }
      if (!fuse_histogram_) {
        StepScope step(timer, names[kHistogram]);
        histogram_kernel<<<p, kThreads, 0, stream>>>(tile_keys_.data(), n, shift, bits, p, counts_.data(),
                                                     starts_.data());
        DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix histogram_kernel");
      }
      scan(table, stream, timer, names[kScan]);
      StepScope step(timer, names[kScatter]);
      scatter_kernel<<<p, kThreads, 0, stream>>>(tile_keys_.data(), tile_values_.data(), offsets_.data(),
                                                 starts_.data(), n, shift, bits, p, dst, dst_values);
      DEPTHSORT_CUDA_CHECK_LAUNCH("satish-radix scatter_kernel");
    }
  }

 private:
  // Phase 3: the column-major table scanned as one array gives, for digit d and block j, the count
  // of all smaller digits plus that of digit d in blocks before j.
  void scan(std::size_t table, cudaStream_t stream, StepTimer& timer, const char* name) {
    StepScope step(timer, name);
    std::size_t bytes = scan_temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.data(), bytes, counts_.data(), offsets_.data(),
                                                       static_cast<int>(table), stream));
  }

  int bits_ = 4;
  bool fuse_histogram_ = false;
  bool count_first_ = false;
  DeviceBuffer<std::uint32_t> tile_keys_, tile_values_, counts_, offsets_, starts_;
  DeviceBuffer<unsigned char> scan_temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_satish_radix_sorter(const OptionValues& options) {
  return std::make_unique<SatishRadixSorter>(options);
}

}  // namespace depthsort::satish_radix
