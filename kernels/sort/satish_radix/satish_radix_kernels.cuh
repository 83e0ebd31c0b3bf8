// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section III: the kernels of `satish-radix`, the paper's four phases of a pass (local sort,
// histogram, scatter; the scan is CUB's) and the fused arrangements of the option `arrangement`
// (the host side is satish_radix_sorter.cu). The splits move one 32-bit word per pair, (digit << 16
// | position in the tile), and the pairs are gathered once after the last split: the same b splits
// with a third of the shared-memory traffic. Keys travel as the ordered uint32 of keys.hpp:
// converted on the first load, back on the last store.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/satish_radix/satish_radix_digits.hpp"

namespace depthsort::satish_radix {

// Section III: t = 256 threads and 4 elements per thread, a tile of 1024; `items` takes 8 or 16.
inline constexpr int kThreads = 256;
inline constexpr int kMaxRadix = 1 << 8;
inline constexpr int kMaxPasses = 8;
inline constexpr std::uint32_t kPadKey = 0xFFFFFFFFu;  // pads sort after every real key of the tile
inline constexpr int kDigitShift = 16;                 // split word: digit << 16 | position (tiles <= 4096)
inline constexpr std::uint32_t kPositionMask = 0xFFFFu;

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
  alignas(16) std::uint32_t keys[kTile];  // the tile as loaded (pads past the end)
  alignas(16) std::uint32_t values[kTile];
  alignas(16) std::uint32_t words[kTile];  // split words, in the order of the last split
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
__global__ void __launch_bounds__(kThreads)
    local_sort_kernel(KeySource keys, const std::uint32_t* values, std::uint32_t* tile_keys, std::uint32_t* tile_values,
                      std::uint32_t n, int shift, int bits, std::uint32_t p, std::uint32_t* counts,
                      std::uint32_t* starts) {
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
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const std::uint32_t* tile_keys, std::uint32_t n, int shift, int bits, std::uint32_t p,
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
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(const std::uint32_t* tile_keys, const std::uint32_t* tile_values, const std::uint32_t* offsets,
                   const std::uint32_t* starts, std::uint32_t n, int shift, int bits, std::uint32_t p, KeySink out_keys,
                   std::uint32_t* out_values) {
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
__global__ void __launch_bounds__(kThreads)
    count_kernel(KeySource keys, std::uint32_t n, int shift, int bits, std::uint32_t p, std::uint32_t* counts) {
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
__global__ void __launch_bounds__(kThreads)
    sort_scatter_kernel(KeySource keys, const std::uint32_t* values, const std::uint32_t* offsets, std::uint32_t n,
                        int shift, int bits, std::uint32_t p, KeySink out_keys, std::uint32_t* out_values) {
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

}  // namespace depthsort::satish_radix
