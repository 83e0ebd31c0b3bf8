// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008):
// the device kernels of Sections 5.1 (bucketsort: min/max, histogram, pivot refinement of Fig. 5,
// counting of Fig. 4, repositioning of Fig. 6, random shuffling), 5.2 (partial quicksort) and
// 4/6 (vector-mergesort: sortElements, the merge passes of Fig. 3, on chip or in global memory).
// The per-thread networks live in hybrid_networks.hpp; the host sequence in hybrid_sorter.cu.
#pragma once

#include <cooperative_groups.h>

#include <cfloat>
#include <type_traits>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
#include <cub/block/block_scan.cuh>

#include "depthsort/keys.hpp"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {

// ---------------------------------------------------------------------------------------------
// Tuning constants, in one place. Measured on the lent H200 (docs/results/hybrid-h200.md): auto L =
// n/2816 was the fastest L at 4M and 16M; kCap 3328 (4 blocks/SM) with it beat kCap 4096 with
// n/3072 (0.954 vs 1.007 ms at 16M, count step included); the two-level reposition beat one scatter
// into L buckets (0.31 vs 0.63-0.91 ms at 16M).
// ---------------------------------------------------------------------------------------------
inline constexpr int kCap = 3328;              // pairs one block sorts on chip: 52 KB of smem, 4 blocks/SM
inline constexpr int kSortThreads = kCap / 16;  // each thread owns a 16-pair tile per merge pass
inline constexpr int kTargetBucket = 2816;     // auto L = n / 2816: 85% of kCap on average
inline constexpr int kMinBuckets = 64;
inline constexpr int kMaxAutoBuckets = 1 << 16;
inline constexpr int kSmemBucketsMax = 16384;  // block-local counters while L fits shared memory
inline constexpr int kPassThreads = 512;       // count / scatter blocks
inline constexpr int kPassItems = 16;          // keys per thread per tile in those
inline constexpr int kOneBlock = 1024;         // single-block kernels (refine, offsets)
// Two-level reposition: pairs go first to kCoarse coarse ranges (runs of histogram bins, or of
// buckets), in tiles of kScatterTile pairs, then to their buckets, in tiles of kFineTile pairs;
// each tile ordered in shared memory by destination.
inline constexpr int kCoarse = 128;
inline constexpr int kScatterThreads = 512;  // first level (the second: kFineThreads)
inline constexpr int kScatterItems = 8;
inline constexpr int kScatterTile = kScatterThreads * kScatterItems;
inline constexpr int kFineThreads = 256;
inline constexpr int kFineDigits = 2048;  // destinations one second-level tile may order
inline constexpr std::uint32_t kFineTile = kFineThreads * kScatterItems;
static_assert(kCoarse <= 256, "a coarse range index is kept in one byte per bin");

// Small per-sort state; zeroed by one memset each sort.
struct Control {
  std::uint32_t omin_c;  // complement of the smallest ordered key (atomicMax of complements)
  std::uint32_t omax;    // largest ordered key
  std::uint32_t num_items;
  std::uint32_t num_oversized;
  std::uint32_t max_passes;
  std::uint32_t fine_tiles;  // tiles of the fine scatter (two-level reposition)
};

__device__ __forceinline__ std::uint32_t ceil_log2_u(std::uint32_t x) {
  return x <= 1 ? 0u : 32u - static_cast<std::uint32_t>(__clz(x - 1));
}

// Shared-memory swizzle: element i of a bucket lives at i ^ ((i / 32) % 32), so that the 16-pair
// tiles of one warp (stride 16 words) fall on different banks.
__device__ __forceinline__ std::uint32_t sw(std::uint32_t i) { return i ^ ((i >> 5) & 31u); }

// ---------------------------------------------------------------------------------------------
// Histogram bins: at most H bins spaced linearly from the smallest to the largest key (Section
// 5.1), linear in the ordered key of keys.hpp rather than in the float value (deviation: a float
// range is useless once +-FLT_MAX, infinities or NaNs are among the keys, while the ordered key
// space holds every key; inside one binary exponent it is linear in the value). Bins are 2^shift
// keys wide, so a bin is a shift: exact, monotone, the same in every kernel.
// ---------------------------------------------------------------------------------------------
struct Binning {
  std::uint32_t lo;     // smallest ordered key
  std::uint32_t shift;  // log2 of the bin width
  int bins;             // bins in use (<= H)
  __device__ __forceinline__ int bin(std::uint32_t k) const {
    if (k <= lo) return 0;
    return min(static_cast<int>((k - lo) >> shift), bins - 1);
  }
  __device__ __forceinline__ unsigned long long bin_start(int i) const {
    return static_cast<unsigned long long>(lo) + (static_cast<unsigned long long>(i) << shift);
  }
};

__device__ __forceinline__ Binning make_binning(const Control& c, int max_bins) {
  const std::uint32_t lo = ~c.omin_c, hi = c.omax;
  const std::uint32_t range = hi >= lo ? hi - lo : 0u;
  std::uint32_t shift = 0;
  while (shift < 32 && (static_cast<unsigned long long>(range) >> shift) >= static_cast<unsigned long long>(max_bins))
    ++shift;
  return {lo, shift, static_cast<int>((static_cast<unsigned long long>(range) >> shift) + 1)};
}

// Bucket of a key: upper_bound over the L-1 pivots, as the binary search of Fig. 4, narrowed by
// the pivot table (table[i] = number of pivots whose bin is below i) to the pivots of the key's
// bin. Inside a bin Fig. 5 spaces the pivots evenly, so the first guess is an interpolation,
// exact or off by one for smooth inputs; galloping then a binary search settle any other case.
struct LdgLoad {
  __device__ __forceinline__ std::uint32_t operator()(const std::uint32_t* p) const { return __ldg(p); }
};
struct PlainLoad {  // pivots and table copied to shared memory
  __device__ __forceinline__ std::uint32_t operator()(const std::uint32_t* p) const { return *p; }
};

template <class Load = LdgLoad>
struct PivotSearch {
  const std::uint32_t* pivots;
  const std::uint32_t* table;
  Binning binning;
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t /*position*/, std::uint32_t k) const {
    const int b = binning.bin(k);
    std::uint32_t lo = Load{}(table + b), hi = Load{}(table + b + 1);
    if (lo == hi) return lo;
    const unsigned long long start = binning.bin_start(b);
    const unsigned long long off = k > start ? k - start : 0ull;
    std::uint32_t g = lo + static_cast<std::uint32_t>(min((off * (hi - lo)) >> binning.shift,
                                                          static_cast<unsigned long long>(hi - lo)));
    if (g > lo && Load{}(pivots + g - 1) > k) {  // answer <= g - 1: gallop down
      hi = g - 1;
      std::uint32_t step = 1;
      while (hi > lo) {
        const std::uint32_t c = hi - lo > step ? hi - step : lo;
        if (Load{}(pivots + c) > k) {
          hi = c;
          step <<= 1;
        } else {
          lo = c + 1;
          break;
        }
      }
    } else if (g < hi && Load{}(pivots + g) <= k) {  // answer >= g + 1: gallop up
      lo = g + 1;
      std::uint32_t step = 1;
      while (lo < hi) {
        const std::uint32_t c = hi - lo > step ? lo + step - 1 : hi - 1;
        if (Load{}(pivots + c) <= k) {
          lo = c + 1;
          step <<= 1;
        } else {
          hi = c;
          break;
        }
      }
    } else {
      return g;
    }
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) >> 1;
      if (Load{}(pivots + mid) <= k)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
};

// What the host passes: the bins are computed on the device, once per thread, from the min/max.
struct BoundSearch {
  const std::uint32_t* pivots;
  const std::uint32_t* table;
  const Control* ctrl;
  int bins;
  __device__ __forceinline__ PivotSearch<> prepare() const { return PivotSearch<>{pivots, table, make_binning(*ctrl, bins)}; }
};

// Section 5.2: the sublist of a position (offsets of K sublists, then the set-aside sublist of the
// largest possible key), then which side of the sublist's pivot the key falls.
struct QuickSplit {
  const std::uint32_t* qoff;  // K + 2 entries: K active sublists, the set-aside one, then n
  const std::uint32_t* pivot;
  std::uint32_t K;
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t position, std::uint32_t k) const {
    std::uint32_t lo = 0, hi = K + 2;  // upper_bound(qoff, position) - 1
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) >> 1;
      if (__ldg(qoff + mid) <= position)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::uint32_t s = lo - 1;
    if (s >= K || k == kSentinelHigh) return 2 * K;
    return 2 * s + (k >= __ldg(pivot + s) ? 1u : 0u);
  }
  __device__ __forceinline__ QuickSplit prepare() const { return *this; }
};

// ---------------------------------------------------------------------------------------------
// Sources and destinations of pairs.
// ---------------------------------------------------------------------------------------------
struct FloatPairs {  // separate float keys and values (the input, the shuffled copy, the output)
  const float* keys;
  const std::uint32_t* values;
  __device__ __forceinline__ std::uint32_t key(std::size_t i) const { return ordered_key(keys[i]); }
  __device__ __forceinline__ std::uint32_t value(std::size_t i) const { return values[i]; }
};
struct PackedPairs {  // interleaved (ordered key, value): the bucketed array of the fast path
  const uint2* pairs;
  __device__ __forceinline__ std::uint32_t key(std::size_t i) const { return pairs[i].x; }
  __device__ __forceinline__ uint2 pair(std::size_t i) const { return pairs[i]; }
};
struct PackedStore {
  uint2* pairs;
  __device__ __forceinline__ void store(std::uint32_t pos, std::uint32_t k, std::uint32_t v) const {
    pairs[pos] = make_uint2(k, v);
  }
};
struct SplitStore {  // the paper's layout: separate key and value arrays, buckets padded to 4
  std::uint32_t* keys;
  std::uint32_t* values;
  __device__ __forceinline__ void store(std::uint32_t pos, std::uint32_t k, std::uint32_t v) const {
    keys[pos] = k;
    values[pos] = v;
  }
};

// ---------------------------------------------------------------------------------------------
// Step 8, Section 5.1 "Random shuffling": a gather through a 4-round Feistel permutation of
// [0, 2^(2h)) restricted to [0, n) by cycle walking: a bijection, O(n), no atomics needed.
// ---------------------------------------------------------------------------------------------
struct Feistel {
  std::uint32_t half_bits, mask, n, seed;
  __device__ __forceinline__ static std::uint32_t mix(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
  }
  __device__ __forceinline__ std::uint32_t permute(std::uint32_t x) const {
    std::uint32_t l = x >> half_bits, r = x & mask;
#pragma unroll
    for (std::uint32_t round = 0; round < 4; ++round) {
      const std::uint32_t f = mix(r ^ (seed + round * 0x9E3779B9u)) & mask;
      const std::uint32_t nl = r;
      r = l ^ f;
      l = nl;
    }
    return (l << half_bits) | r;
  }
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t i) const {
    std::uint32_t x = permute(i);
    while (x >= n) x = permute(x);
    return x;
  }
};

__global__ void shuffle_kernel(const float* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                               float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out,
                               std::uint32_t n, Feistel perm) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const std::uint32_t from = perm(i);
    keys_out[i] = keys_in[from];
    values_out[i] = values_in[from];
  }
}

// ---------------------------------------------------------------------------------------------
// Step 1, Section 5.1: min and max by a reduction, of all keys and of the finite keys (the bins).
// ---------------------------------------------------------------------------------------------
// Every key of keys[0, n) once, through f(float): 16-byte loads (kUnroll per thread in flight)
// where the array is 16-byte aligned, the last n % 4 keys (or all, if unaligned) one by one.
template <int kThreads, class F>
__device__ __forceinline__ void for_each_key(const float* __restrict__ keys, std::size_t n, F&& f) {
  constexpr int kUnroll = 4;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(keys) & 15u) == 0;
  const std::size_t n4 = aligned ? n / 4 : 0;
  const float4* __restrict__ k4 = reinterpret_cast<const float4*>(keys);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads * kUnroll;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kThreads * kUnroll; base < n4; base += stride) {
    float4 x[kUnroll];
#pragma unroll
    for (int q = 0; q < kUnroll; ++q) {
      const std::size_t i = base + q * kThreads + threadIdx.x;
      x[q] = i < n4 ? k4[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int q = 0; q < kUnroll; ++q)
      if (base + q * kThreads + threadIdx.x < n4) {
        f(x[q].x);
        f(x[q].y);
        f(x[q].z);
        f(x[q].w);
      }
  }
  for (std::size_t i = n4 * 4 + static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kThreads)
    f(keys[i]);
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads) minmax_kernel(const float* __restrict__ keys, std::size_t n,
                                                          Control* ctrl) {
  std::uint32_t omin = 0xFFFFFFFFu, omax = 0;
  for_each_key<kThreads>(keys, n, [&](float f) {
    const std::uint32_t o = ordered_key(f);
    omin = min(omin, o);
    omax = max(omax, o);
  });
  using Reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  __shared__ typename Reduce::TempStorage temp[2];
  const std::uint32_t a = Reduce(temp[0]).Reduce(~omin, ::cuda::maximum<>{});
  const std::uint32_t b = Reduce(temp[1]).Reduce(omax, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    atomicMax(&ctrl->omin_c, a);
    atomicMax(&ctrl->omax, b);
  }
}

// ---------------------------------------------------------------------------------------------
// Step 2, Section 5.1 "Optimizations": the histogram of H linear bins (NVIDIA's shared-memory
// histogram extended to H bins, one flush of nonzero bins per block).
// ---------------------------------------------------------------------------------------------
template <int kThreads>
__global__ void __launch_bounds__(kThreads) histogram_kernel(const float* __restrict__ keys, std::size_t n,
                                                             const Control* ctrl, int bins,
                                                             std::uint32_t* __restrict__ hist) {
  extern __shared__ std::uint32_t sh_hist[];
  for (int i = threadIdx.x; i < bins; i += kThreads) sh_hist[i] = 0;
  const Binning binning = make_binning(*ctrl, bins);
  __syncthreads();
  for_each_key<kThreads>(keys, n, [&](float f) { atomicAdd(&sh_hist[binning.bin(ordered_key(f))], 1u); });
  __syncthreads();
  for (int i = threadIdx.x; i < bins; i += kThreads)
    if (sh_hist[i]) atomicAdd(&hist[i], sh_hist[i]);
}

// ---------------------------------------------------------------------------------------------
// Step 3, Fig. 5: pivot refinement, on the GPU. Fig. 5 walks the bins taking N/L elements at a
// time, assuming keys spread evenly inside a bin; the same pivots come out of one thread per
// pivot: pivot j sits at rank j*N/L', found in the cumulative histogram and interpolated inside
// its bin. Pivot 0 is 1 and pivot L-2 is the largest key, so bucket 0 holds only the smallest
// possible key and bucket L-1 only the largest: every other bucket's keys lie strictly between
// the merge sentinels (hybrid_networks.hpp), and those two buckets are never merged.
// ---------------------------------------------------------------------------------------------
__device__ inline void build_pivot_table(const std::uint32_t* pivots, int L, const Binning& binning,
                                         std::uint32_t* table) {  // pivots: global or shared memory
  // table[i] = number of pivots whose bin is below i (the bins of the sorted pivots are sorted).
  for (int i = threadIdx.x; i <= binning.bins; i += blockDim.x) {
    std::uint32_t lo = 0, hi = static_cast<std::uint32_t>(L - 1);
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) >> 1;
      if (binning.bin(pivots[mid]) < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    table[i] = lo;
  }
}

// Exclusive cumulative counts of counts[0, cells) into cum[0, cells] (one block of kOneBlock
// threads; each thread sums a contiguous run of cells, one block scan joins the runs).
__device__ inline void block_cumulative_counts(const std::uint32_t* __restrict__ counts, int cells,
                                               std::uint32_t* cum) {
  using Scan = cub::BlockScan<std::uint32_t, kOneBlock>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int per = (cells + kOneBlock - 1) / kOneBlock;
  const int begin = min(cells, static_cast<int>(threadIdx.x) * per), end = min(cells, begin + per);
  std::uint32_t sum = 0;
  for (int i = begin; i < end; ++i) sum += counts[i];
  std::uint32_t prefix = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(sum, prefix, total);
  for (int i = begin; i < end; ++i) {
    cum[i] = prefix;
    prefix += counts[i];
  }
  if (threadIdx.x == 0) cum[cells] = total;
  __syncthreads();
}

// Fig. 5: pivot j of L-1 sits at rank j*N/(L-2) of the cumulative counts cum[0, cells] (cells of
// keys: histogram bins or the buckets of the previous pivots); inside its cell the keys are
// assumed evenly spread, so the pivot is the cell's first key plus the fraction of the cell taken,
// inside(cell, taken, cell count). Pivot 0 is 1 and pivot L-2 is the largest key (reserved
// buckets). One thread per pivot, then the pivot table.
template <class Inside>
__device__ inline void interpolate_pivots(const std::uint32_t* cum, int cells, std::uint32_t n, int L,
                                          const Inside& inside, const Binning& binning, std::uint32_t* pivots,
                                          std::uint32_t* table, std::uint32_t* shared_pivots = nullptr) {
  const std::uint32_t real_buckets = static_cast<std::uint32_t>(L - 2);
  for (int j = threadIdx.x; j < L - 1; j += kOneBlock) {
    std::uint32_t p;
    if (j == 0) {
      p = 1;
    } else if (j == L - 2) {
      p = kSentinelHigh;
    } else {
      const std::uint32_t target = static_cast<std::uint32_t>(
          static_cast<unsigned long long>(j) * n / real_buckets);  // < n
      int lo = 0, hi = cells + 1;  // upper_bound(cum, target) - 1: cum[i] <= target < cum[i+1]
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (cum[mid] <= target)
          lo = mid + 1;
        else
          hi = mid;
      }
      const int i = lo - 1;  // Fig. 5: take what is needed from cell i, assumed even inside
      unsigned long long q = inside(i, target - cum[i], cum[i + 1] - cum[i]);
      if (q < 1) q = 1;
      if (q > kSentinelHigh) q = kSentinelHigh;
      p = static_cast<std::uint32_t>(q);
    }
    pivots[j] = p;
    if (shared_pivots) shared_pivots[j] = p;
  }
  __syncthreads();
  // The table's binary searches read the pivots from shared memory where the caller has room.
  build_pivot_table(shared_pivots ? shared_pivots : pivots, L, binning, table);
}

// The coarse ranges of the two-level reposition (default path), from the same cumulative
// histogram: range c is the run of bins [cut[c], cut[c+1]), cut[c] the first bin whose cumulative
// count reaches c * n / kCoarse (a bin holding more than n / kCoarse keys makes some ranges empty).
// Writes each bin's range, the ranges' first positions (sums of bins: exact before any key moves)
// and the list of second-level tiles (range, tile).
struct CoarseSetup {
  std::uint8_t* coarse_of_bin;   // H
  std::uint32_t* coarse_off;     // kCoarse + 1
  std::uint32_t* coarse_cursor;  // kCoarse
  uint2* items;                  // second-level tiles
  Control* ctrl;                 // fine_tiles
};

__device__ inline void cut_coarse_ranges(const std::uint32_t* cum, int cells, std::uint32_t n, const CoarseSetup& s) {
  using Scan = cub::BlockScan<std::uint32_t, kOneBlock>;
  __shared__ typename Scan::TempStorage scan_temp;
  __shared__ std::uint32_t cut[kCoarse + 1];
  const int tid = threadIdx.x;
  for (int c = tid; c <= kCoarse; c += kOneBlock) {
    std::uint32_t x = 0;
    if (c == kCoarse) {
      x = static_cast<std::uint32_t>(cells);
    } else if (c > 0) {
      const std::uint32_t target = static_cast<std::uint32_t>(static_cast<unsigned long long>(c) * n / kCoarse);
      int lo = 0, hi = cells;  // first bin b with cum[b] >= target
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (cum[mid] < target)
          lo = mid + 1;
        else
          hi = mid;
      }
      x = static_cast<std::uint32_t>(lo);
    }
    cut[c] = x;
  }
  __syncthreads();
  for (int b = tid; b < cells; b += kOneBlock) {
    int lo = 0, hi = kCoarse + 1;  // last c with cut[c] <= b
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (cut[mid] <= static_cast<std::uint32_t>(b))
        lo = mid + 1;
      else
        hi = mid;
    }
    s.coarse_of_bin[b] = static_cast<std::uint8_t>(lo - 1);
  }
  std::uint32_t tiles = 0;
  if (tid < kCoarse) {
    const std::uint32_t first = cum[cut[tid]], last = cum[cut[tid + 1]];
    tiles = (last - first + kFineTile - 1) / kFineTile;
    s.coarse_off[tid] = first;
    s.coarse_cursor[tid] = first;
  }
  std::uint32_t at = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(tiles, at, total);
  for (std::uint32_t t = 0; t < tiles; ++t) s.items[at + t] = make_uint2(static_cast<std::uint32_t>(tid), t);
  if (tid == 0) {
    s.coarse_off[kCoarse] = n;
    s.ctrl->fine_tiles = total;
  }
}

__global__ void __launch_bounds__(kOneBlock) refine_from_histogram_kernel(const std::uint32_t* __restrict__ hist,
                                                                          int bins, const Control* ctrl,
                                                                          std::uint32_t n, int L,
                                                                          std::uint32_t* pivots,
                                                                          std::uint32_t* table, CoarseSetup coarse,
                                                                          bool pivots_in_smem) {
  extern __shared__ std::uint32_t cum[];  // bins + 1, then (pivots_in_smem) L - 1 pivots
  block_cumulative_counts(hist, bins, cum);
  const Binning binning = make_binning(*ctrl, bins);
  interpolate_pivots(
      cum, binning.bins, n, L,
      [&binning](int i, std::uint32_t taken, std::uint32_t in_cell) {
        return binning.bin_start(i) + ((static_cast<unsigned long long>(taken) << binning.shift) / in_cell);
      },
      binning, pivots, table, pivots_in_smem ? cum + bins + 1 : nullptr);
  if (coarse.coarse_of_bin) cut_coarse_ranges(cum, binning.bins, n, coarse);
}

// Further refinements (option refinements > 1): the counts of a count pass with the current
// pivots play the histogram's part, each bucket assumed even inside (in the ordered key space).
__global__ void __launch_bounds__(kOneBlock) refine_from_counts_kernel(
    const std::uint32_t* __restrict__ counts, const std::uint32_t* __restrict__ old_pivots, std::uint32_t* cum,
    const Control* ctrl, int bins, std::uint32_t n, int L, std::uint32_t* pivots, std::uint32_t* table) {
  block_cumulative_counts(counts, L, cum);
  interpolate_pivots(
      cum, L, n, L,
      [old_pivots, L](int b, std::uint32_t taken, std::uint32_t in_cell) {
        const unsigned long long key_lo = b == 0 ? 0ull : old_pivots[b - 1];
        const unsigned long long key_hi = b == L - 1 ? 0x100000000ull : old_pivots[b];
        const double frac = static_cast<double>(taken) / static_cast<double>(in_cell);
        return key_lo + static_cast<unsigned long long>(frac * static_cast<double>(key_hi - key_lo));
      },
      make_binning(*ctrl, bins), pivots, table);
}

// ---------------------------------------------------------------------------------------------
// Warp-aggregated counter increment (for L beyond shared memory): lanes with the same bucket
// elect a leader (match_any) that adds the group's size; each lane gets its rank in the group.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ std::uint32_t warp_aggregated_add(std::uint32_t* counters, std::uint32_t bucket,
                                                             bool valid, bool need_result) {
  const std::uint32_t id = valid ? bucket : 0xFFFFFFFFu;
  const std::uint32_t peers = __match_any_sync(0xFFFFFFFFu, id);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(peers) - 1;
  const std::uint32_t rank = __popc(peers & ((1u << lane) - 1u));
  std::uint32_t base = 0;
  if (valid && lane == leader) base = atomicAdd(&counters[bucket], static_cast<std::uint32_t>(__popc(peers)));
  if (need_result) base = __shfl_sync(0xFFFFFFFFu, base, leader);
  return base + rank;
}

// ---------------------------------------------------------------------------------------------
// Step 4, counting elements per bucket (Fig. 4's pass), aggregated variant: block-local counters
// in shared memory (one global add per block and bucket), or warp-aggregated global adds for L
// beyond shared memory. Also the count pass of each pivot refinement and of the quicksort.
// ---------------------------------------------------------------------------------------------
template <bool kSmem, class Src, class Bucketer>
__global__ void __launch_bounds__(kPassThreads) count_kernel(Src src, std::uint32_t n, Bucketer bucketer,
                                                             int buckets, std::uint32_t* __restrict__ counts,
                                                             std::uint16_t* __restrict__ bucket_of_element = nullptr) {
  extern __shared__ std::uint32_t sh_count[];
  const auto bucket_of = bucketer.prepare();
  if constexpr (kSmem) {
    for (int i = threadIdx.x; i < buckets; i += kPassThreads) sh_count[i] = 0;
    __syncthreads();
  }
  constexpr std::uint32_t kTileSize = kPassThreads * kPassItems;
  for (std::uint32_t base = blockIdx.x * kTileSize; base < n; base += gridDim.x * kTileSize) {
    std::uint32_t key[kPassItems];
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      key[q] = i < n ? src.key(i) : 0u;
    }
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      const bool valid = i < n;
      const std::uint32_t b = valid ? bucket_of(i, key[q]) : 0u;
      if (bucket_of_element && valid) bucket_of_element[i] = static_cast<std::uint16_t>(b);
      if constexpr (kSmem) {
        if (valid) atomicAdd(&sh_count[b], 1u);
      } else {
        warp_aggregated_add(counts, b, valid, false);
      }
    }
  }
  if constexpr (kSmem) {
    __syncthreads();
    for (int i = threadIdx.x; i < buckets; i += kPassThreads)
      if (sh_count[i]) atomicAdd(&counts[i], sh_count[i]);
  }
}

// Step 4, Fig. 4 as printed: one thread per element, binary search over the pivots, atomicInc on
// the bucket's global counter; the old value is the element's index in its bucket.
__global__ void fig4_count_kernel(FloatPairs src, std::uint32_t n, const std::uint32_t* __restrict__ pivots,
                                  int L, std::uint32_t* __restrict__ counts, std::uint32_t* __restrict__ sublist,
                                  std::uint32_t* __restrict__ index) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t k = src.key(i);
  std::uint32_t lo = 0, hi = static_cast<std::uint32_t>(L - 1);
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (__ldg(pivots + mid) <= k)
      lo = mid + 1;
    else
      hi = mid;
  }
  sublist[i] = lo;
  index[i] = atomicInc(&counts[lo], 0xFFFFFFFFu);
}

// Step 6, Fig. 6 as printed: newpos = bucketoffsets[sublist] + index.
template <class Dst>
__global__ void fig6_reposition_kernel(FloatPairs src, std::uint32_t n, const std::uint32_t* __restrict__ sublist,
                                       const std::uint32_t* __restrict__ index,
                                       const std::uint32_t* __restrict__ bucket_base, Dst dst) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  dst.store(bucket_base[sublist[i]] + index[i], src.key(i), src.value(i));
}

// Step 6, aggregated variant: each tile ranks its keys per bucket in shared memory, one global
// atomicAdd per bucket and tile reserves the range, then every pair is written at its place.
template <bool kSmem, class Src, class Bucketer, class Dst>
__global__ void __launch_bounds__(kPassThreads) scatter_kernel(Src src, std::uint32_t n, Bucketer bucketer,
                                                               int buckets, std::uint32_t* __restrict__ cursor,
                                                               Dst dst) {
  extern __shared__ std::uint32_t sh_rank[];
  const auto bucket_of = bucketer.prepare();
  if constexpr (kSmem) {
    for (int i = threadIdx.x; i < buckets; i += kPassThreads) sh_rank[i] = 0;
    __syncthreads();
  }
  constexpr std::uint32_t kTileSize = kPassThreads * kPassItems;
  for (std::uint32_t base = blockIdx.x * kTileSize; base < n; base += gridDim.x * kTileSize) {
    std::uint32_t key[kPassItems], value[kPassItems], bucket[kPassItems], rank[kPassItems];
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      if constexpr (std::is_same_v<Src, PackedPairs>) {
        const uint2 p = i < n ? src.pair(i) : make_uint2(0u, 0u);
        key[q] = p.x;
        value[q] = p.y;
      } else {
        key[q] = i < n ? src.key(i) : 0u;
        value[q] = i < n ? src.value(i) : 0u;
      }
    }
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      const bool valid = i < n;
      bucket[q] = valid ? bucket_of(i, key[q]) : 0u;
      if constexpr (kSmem) {
        rank[q] = valid ? atomicAdd(&sh_rank[bucket[q]], 1u) : 0xFFFFFFFFu;
      } else {
        rank[q] = warp_aggregated_add(cursor, bucket[q], valid, true);
      }
    }
    if constexpr (kSmem) {
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPassItems; ++q)
        if (rank[q] == 0) sh_rank[bucket[q]] = atomicAdd(&cursor[bucket[q]], sh_rank[bucket[q]]);
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPassItems; ++q)
        if (rank[q] != 0xFFFFFFFFu) dst.store(sh_rank[bucket[q]] + rank[q], key[q], value[q]);
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPassItems; ++q)
        if (rank[q] == 0) sh_rank[bucket[q]] = 0;
      __syncthreads();
    } else {
#pragma unroll
      for (int q = 0; q < kPassItems; ++q) {
        const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
        if (i < n) dst.store(rank[q], key[q], value[q]);
      }
    }
  }
}

// Step 6 (default while L < 65536): two-level reposition. One scatter into L ~ 6000 buckets writes
// L interleaved streams of 8-byte pairs: on an H200 that cost 0.6-0.9 ms at 16M pairs, whether the
// slots came from global atomics or from a per-block count matrix (partial sectors thrash L2).
// Instead the pairs move twice, each time to fewer destinations: a tile of pairs is ordered by
// destination in shared memory, one global atomicAdd per destination reserves its slots, and the
// pairs leave in runs. The first level goes to at most kCoarse coarse ranges, the second from each
// tile of a coarse range to its buckets (digit = bucket - the tile's smallest bucket; a tile whose
// buckets span kFineDigits or more writes each pair through a warp-aggregated global atomic).
// Two ways to the coarse ranges:
//  - fused (while the counters, pivots and pivot table fit shared memory beside the tile with two
//    blocks per SM: L up to about 6800): the coarse ranges are runs of histogram bins, cut by refine
//    so that each holds about n / kCoarse keys (cut_coarse_ranges). Their sizes are sums of
//    histogram bins, known before any key moves, so one pass ("count+coarse") counts the keys per
//    bucket (the search of Fig. 4, block-local counters) and scatters every pair to its coarse
//    range with its bucket (16 bits): no count pass, no stored bucket ids to re-read.
//  - counted (larger L): a count pass keeps each element's bucket (count_search_smem_kernel), the
//    offsets give every bucket's place, and the coarse ranges are runs of L / kCoarse buckets.
template <int kThreads, int kDigits>
struct TileScatterSmem {
  std::uint32_t hist[kDigits];
  std::uint32_t offs[kDigits];
  std::uint32_t base[kDigits];
  std::uint32_t key[kThreads * kScatterItems];
  std::uint32_t value[kThreads * kScatterItems];
  std::uint32_t bd[kThreads * kScatterItems];  // bucket | digit << 16
};
using CoarseSmem = TileScatterSmem<kScatterThreads, kScatterThreads>;
using FineSmem = TileScatterSmem<kFineThreads, kFineDigits>;

// Orders one tile (item q of thread t is element q * kThreads + t; elements >= len absent) by
// digit (bd >> 16, < digits <= kDigits) in shared memory and writes it to cursor[digit] + rank,
// in runs; the bucket (bd & 0xFFFF) goes beside each pair when out_bucket is given.
template <int kThreads, int kDigits>
__device__ __forceinline__ void scatter_tile(TileScatterSmem<kThreads, kDigits>& sm,
                                             const std::uint32_t (&k)[kScatterItems],
                                             const std::uint32_t (&v)[kScatterItems],
                                             const std::uint32_t (&bd)[kScatterItems], std::uint32_t len,
                                             int digits, std::uint32_t* __restrict__ cursor,
                                             uint2* __restrict__ out_pairs, std::uint16_t* __restrict__ out_bucket) {
  static_assert(kDigits % kThreads == 0, "whole digits per thread");
  constexpr int kPer = kDigits / kThreads;
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int tid = threadIdx.x;
  for (int d = tid; d < digits; d += kThreads) sm.hist[d] = 0;
  __syncthreads();
  std::uint32_t rank[kScatterItems];
#pragma unroll
  for (int q = 0; q < kScatterItems; ++q) {
    const std::uint32_t i = q * kThreads + tid;
    rank[q] = i < len ? atomicAdd(&sm.hist[bd[q] >> 16], 1u) : 0u;
  }
  __syncthreads();
  // Digits in rounds of kThreads (one round while digits <= kThreads): each thread takes one digit
  // per round, so a thread waits on one global atomic per round, not on kPer in a row.
  std::uint32_t carry = 0;
  for (int r = 0; r < kPer && r * kThreads < digits; ++r) {
    if (r > 0) __syncthreads();  // scan_temp reused
    const int d = r * kThreads + tid;
    const std::uint32_t count = d < digits ? sm.hist[d] : 0u;
    std::uint32_t off = 0, total = 0;
    Scan(scan_temp).ExclusiveSum(count, off, total);
    if (d < digits) {
      sm.offs[d] = carry + off;
      if (count) sm.base[d] = atomicAdd(&cursor[d], count);
    }
    carry += total;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < kScatterItems; ++q) {
    const std::uint32_t i = q * kThreads + tid;
    if (i < len) {
      const std::uint32_t at = sm.offs[bd[q] >> 16] + rank[q];
      sm.key[at] = k[q];
      sm.value[at] = v[q];
      sm.bd[at] = bd[q];
    }
  }
  __syncthreads();
  for (std::uint32_t i = tid; i < len; i += kThreads) {
    const std::uint32_t x = sm.bd[i], d = x >> 16;
    const std::uint32_t pos = sm.base[d] + (i - sm.offs[d]);
    out_pairs[pos] = make_uint2(sm.key[i], sm.value[i]);
    if (out_bucket) out_bucket[pos] = static_cast<std::uint16_t>(x & 0xFFFFu);
  }
  __syncthreads();
}

__host__ __device__ constexpr std::size_t round16(std::size_t x) { return (x + 15) & ~static_cast<std::size_t>(15); }

// Shared memory of count_coarse_kernel: the tile, the coarse range of each bin (bytes), then
// counters (L), pivots (L - 1) and pivot table (bins + 1).
__host__ __device__ constexpr std::size_t count_coarse_smem(int L, int bins) {
  return sizeof(CoarseSmem) + round16(static_cast<std::size_t>(bins)) +
         (2 * static_cast<std::size_t>(L) + static_cast<std::size_t>(bins) + 1) * 4;
}

struct CountCoarseArgs {
  FloatPairs src;
  std::uint32_t n;
  BoundSearch bound;
  int L;
  const std::uint8_t* coarse_of_bin;
  std::uint32_t* coarse_cursor;
  std::uint32_t* counts;
  uint2* out_pairs;
  std::uint16_t* out_bucket;
};

// Fused path, level 1 with the count (a grid-stride loop over tiles of kScatterTile pairs).
__global__ void __launch_bounds__(kScatterThreads, 2) count_coarse_kernel(CountCoarseArgs a) {
  extern __shared__ __align__(16) unsigned char scatter_smem[];
  CoarseSmem& sm = *reinterpret_cast<CoarseSmem*>(scatter_smem);
  std::uint8_t* map = scatter_smem + sizeof(CoarseSmem);
  std::uint32_t* hist = reinterpret_cast<std::uint32_t*>(map + round16(a.bound.bins));
  std::uint32_t* pivots = hist + a.L;
  std::uint32_t* table = pivots + (a.L - 1);
  const int tid = threadIdx.x;
  const Binning binning = make_binning(*a.bound.ctrl, a.bound.bins);
  for (int i = tid; i < binning.bins; i += kScatterThreads) map[i] = a.coarse_of_bin[i];
  for (int i = tid; i < a.L; i += kScatterThreads) hist[i] = 0;
  for (int i = tid; i < a.L - 1; i += kScatterThreads) pivots[i] = a.bound.pivots[i];
  for (int i = tid; i <= binning.bins; i += kScatterThreads) table[i] = a.bound.table[i];
  __syncthreads();
  const PivotSearch<PlainLoad> search{pivots, table, binning};
  const std::uint32_t n = a.n;
  for (std::uint32_t base = blockIdx.x * kScatterTile; base < n; base += gridDim.x * kScatterTile) {
    const std::uint32_t len = min(static_cast<std::uint32_t>(kScatterTile), n - base);
    std::uint32_t k[kScatterItems], v[kScatterItems], bd[kScatterItems];
#pragma unroll
    for (int q = 0; q < kScatterItems; ++q) {
      const std::uint32_t i = q * kScatterThreads + tid;
      k[q] = i < len ? ordered_key(a.src.keys[base + i]) : 0u;
      v[q] = i < len ? a.src.values[base + i] : 0u;
    }
#pragma unroll
    for (int q = 0; q < kScatterItems; ++q) {
      const bool valid = q * kScatterThreads + tid < len;
      const std::uint32_t b = valid ? search(0, k[q]) : 0u;
      bd[q] = b | static_cast<std::uint32_t>(map[binning.bin(k[q])]) << 16;
      if (valid) atomicAdd(&hist[b], 1u);
    }
    scatter_tile(sm, k, v, bd, len, kCoarse, a.coarse_cursor, a.out_pairs, a.out_bucket);
  }
  __syncthreads();
  for (int i = tid; i < a.L; i += kScatterThreads)
    if (hist[i]) atomicAdd(&a.counts[i], hist[i]);
}

// Counted path: the count, with the pivots and the pivot table copied into shared memory (random
// lookups there cost a few bank conflicts instead of one L1 wavefront per distinct line), and
// each element's bucket kept (16 bits) for level 1.
__global__ void __launch_bounds__(kPassThreads) count_search_smem_kernel(FloatPairs src, std::uint32_t n,
                                                                         BoundSearch bound, int L,
                                                                         std::uint32_t* __restrict__ counts,
                                                                         std::uint16_t* __restrict__ bucket_of) {
  extern __shared__ std::uint32_t sh_search[];
  std::uint32_t* hist = sh_search;
  std::uint32_t* pivots = hist + L;
  std::uint32_t* table = pivots + (L - 1);
  const Binning binning = make_binning(*bound.ctrl, bound.bins);
  for (int i = threadIdx.x; i < L; i += kPassThreads) hist[i] = 0;
  for (int i = threadIdx.x; i < L - 1; i += kPassThreads) pivots[i] = bound.pivots[i];
  for (int i = threadIdx.x; i <= binning.bins; i += kPassThreads) table[i] = bound.table[i];
  __syncthreads();
  const PivotSearch<PlainLoad> search{pivots, table, binning};
  constexpr std::uint32_t kTileSize = kPassThreads * kPassItems;
  for (std::uint32_t base = blockIdx.x * kTileSize; base < n; base += gridDim.x * kTileSize) {
    std::uint32_t key[kPassItems];
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      key[q] = i < n ? src.key(i) : 0u;
    }
#pragma unroll
    for (int q = 0; q < kPassItems; ++q) {
      const std::uint32_t i = base + q * kPassThreads + threadIdx.x;
      if (i < n) {
        const std::uint32_t b = search(i, key[q]);
        bucket_of[i] = static_cast<std::uint16_t>(b);
        atomicAdd(&hist[b], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < L; i += kPassThreads)
    if (hist[i]) atomicAdd(&counts[i], hist[i]);
}

// Counted path, coarse ranges of `fine` buckets each: their cursors and first positions, and the
// list of second-level tiles (one block; at most kCoarse coarse ranges).
__global__ void __launch_bounds__(kCoarse) coarse_kernel(const std::uint32_t* __restrict__ offset, int L,
                                                         std::uint32_t fine, int coarse,
                                                         std::uint32_t* __restrict__ coarse_cursor,
                                                         std::uint32_t* __restrict__ coarse_off,
                                                         uint2* __restrict__ items, Control* ctrl) {
  using Scan = cub::BlockScan<std::uint32_t, kCoarse>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int c = threadIdx.x;
  std::uint32_t tiles = 0;
  if (c < coarse) {
    const std::uint32_t first = offset[c * fine];
    const std::uint32_t last = offset[min(static_cast<std::uint32_t>(L), (c + 1) * fine)];
    tiles = (last - first + kFineTile - 1) / kFineTile;
    coarse_cursor[c] = first;
    coarse_off[c] = first;
  }
  std::uint32_t at = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(tiles, at, total);
  for (std::uint32_t t = 0; t < tiles; ++t) items[at + t] = make_uint2(c, t);
  if (c == 0) {
    coarse_off[coarse] = offset[L];
    ctrl->fine_tiles = total;
  }
}

// Counted path, level 1: pairs to coarse ranges (bucket / fine), bucket ids carried along.
__global__ void __launch_bounds__(kScatterThreads, 2) scatter_coarse_kernel(FloatPairs src, std::uint32_t n,
                                                                         const std::uint16_t* __restrict__ bucket_of,
                                                                         std::uint32_t fine, int coarse,
                                                                         std::uint32_t* __restrict__ coarse_cursor,
                                                                         uint2* __restrict__ out_pairs,
                                                                         std::uint16_t* __restrict__ out_bucket) {
  extern __shared__ __align__(16) unsigned char scatter_smem[];
  CoarseSmem& sm = *reinterpret_cast<CoarseSmem*>(scatter_smem);
  const int tid = threadIdx.x;
  for (std::uint32_t base = blockIdx.x * kScatterTile; base < n; base += gridDim.x * kScatterTile) {
    const std::uint32_t len = min(static_cast<std::uint32_t>(kScatterTile), n - base);
    std::uint32_t k[kScatterItems], v[kScatterItems], bd[kScatterItems];
#pragma unroll
    for (int q = 0; q < kScatterItems; ++q) {
      const std::uint32_t i = q * kScatterThreads + tid;
      const bool valid = i < len;
      k[q] = valid ? src.key(base + i) : 0u;
      v[q] = valid ? src.value(base + i) : 0u;
      const std::uint32_t b = valid ? bucket_of[base + i] : 0u;
      bd[q] = b | (b / fine) << 16;
    }
    scatter_tile(sm, k, v, bd, len, coarse, coarse_cursor, out_pairs, out_bucket);
  }
}

// Level 2 (both paths): one block per tile of kFineTile pairs of a coarse range (the tiles listed
// by refine or coarse_kernel), into the buckets.
__global__ void __launch_bounds__(kFineThreads, 4) scatter_fine_kernel(const uint2* __restrict__ in_pairs,
                                                                    const std::uint16_t* __restrict__ in_bucket,
                                                                    const std::uint32_t* __restrict__ coarse_off,
                                                                    const uint2* __restrict__ items,
                                                                    const Control* ctrl,
                                                                    std::uint32_t* __restrict__ cursor,
                                                                    uint2* __restrict__ out_pairs) {
  extern __shared__ __align__(16) unsigned char scatter_smem[];
  FineSmem& sm = *reinterpret_cast<FineSmem*>(scatter_smem);
  __shared__ std::uint32_t s_lo, s_hi;
  if (blockIdx.x >= ctrl->fine_tiles) return;
  const int tid = threadIdx.x;
  const uint2 item = items[blockIdx.x];
  const std::uint32_t begin = coarse_off[item.x] + item.y * kFineTile;
  const std::uint32_t len = min(kFineTile, coarse_off[item.x + 1] - begin);
  if (tid == 0) {
    s_lo = 0xFFFFFFFFu;
    s_hi = 0;
  }
  std::uint32_t k[kScatterItems] = {}, v[kScatterItems] = {}, b[kScatterItems] = {};
#pragma unroll
  for (int q = 0; q < kScatterItems; ++q) {
    const std::uint32_t i = q * kFineThreads + tid;
    if (i < len) {
      const uint2 p = in_pairs[begin + i];
      k[q] = p.x;
      v[q] = p.y;
      b[q] = in_bucket[begin + i];
    }
  }
  std::uint32_t lo = 0xFFFFFFFFu, hi = 0;
#pragma unroll
  for (int q = 0; q < kScatterItems; ++q)
    if (q * kFineThreads + tid < len) {
      lo = min(lo, b[q]);
      hi = max(hi, b[q]);
    }
  lo = __reduce_min_sync(0xFFFFFFFFu, lo);
  hi = __reduce_max_sync(0xFFFFFFFFu, hi);
  __syncthreads();  // s_lo, s_hi initialised
  if ((tid & 31) == 0) {
    atomicMin(&s_lo, lo);
    atomicMax(&s_hi, hi);
  }
  __syncthreads();
  lo = s_lo;
  hi = s_hi;
  if (hi - lo < static_cast<std::uint32_t>(kFineDigits)) {
    std::uint32_t bd[kScatterItems];
#pragma unroll
    for (int q = 0; q < kScatterItems; ++q) bd[q] = (b[q] - lo) << 16;
    scatter_tile(sm, k, v, bd, len, static_cast<int>(hi - lo + 1), cursor + lo, out_pairs, nullptr);
  } else {  // buckets too spread for one tile's ordering: one warp-aggregated atomic per bucket and warp
#pragma unroll
    for (int q = 0; q < kScatterItems; ++q) {
      const bool valid = q * kFineThreads + tid < len;
      const std::uint32_t pos = warp_aggregated_add(cursor, valid ? b[q] : 0u, valid, true);
      if (valid) out_pairs[pos] = make_uint2(k[q], v[q]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Step 5: bucket offsets (one block). Unpadded offsets for the output, float4-aligned offsets for
// the paper's layout (with low sentinels in the padding slots, Section 6), the work items of the
// on-chip merge (one per bucket, or per kCap-pair chunk of a bucket larger than shared memory)
// and the list of such oversized buckets for the global merge that finishes them.
// ---------------------------------------------------------------------------------------------
struct OffsetTotals {
  std::uint32_t off, poff, items, ov, tiles;
  __device__ OffsetTotals operator+(const OffsetTotals& o) const {
    return {off + o.off, poff + o.poff, items + o.items, ov + o.ov, tiles + o.tiles};
  }
};
struct OffsetTotalsSum {
  __device__ OffsetTotals operator()(const OffsetTotals& a, const OffsetTotals& b) const { return a + b; }
};

struct OffsetsArgs {
  const std::uint32_t* counts;
  int L;
  int skip_lo, skip_hi;  // buckets that need no sorting (one key value by construction)
  bool padded;
  std::uint32_t* offset;  // L + 1
  std::uint32_t* base;    // where reposition puts a bucket's first element
  std::uint32_t* cursor;  // copy of base, advanced by the aggregated reposition
  std::uint32_t* poff;    // padded offsets (padded layout)
  std::uint32_t* pkeys;   // padded key buffer 0 (sentinels written here)
  std::uint32_t* pvalues;
  uint2* items;
  std::uint32_t* ov_bucket;
  std::uint32_t* ov_tile_start;  // num_oversized + 1
  Control* ctrl;
};

__device__ __forceinline__ OffsetTotals bucket_totals(std::uint32_t c, bool special) {
  const std::uint32_t chunks = (c + kCap - 1) / kCap;
  const bool ov = !special && chunks > 1;
  return {c, (c + 3u) & ~3u, chunks, ov ? 1u : 0u, ov ? chunks : 0u};
}

__global__ void __launch_bounds__(kOneBlock) offsets_kernel(OffsetsArgs a) {
  using Scan = cub::BlockScan<OffsetTotals, kOneBlock, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int per = (a.L + kOneBlock - 1) / kOneBlock;
  const int begin = min(a.L, static_cast<int>(threadIdx.x) * per), end = min(a.L, begin + per);
  OffsetTotals local{0, 0, 0, 0, 0};
  for (int b = begin; b < end; ++b)
    local = local + bucket_totals(a.counts[b], b == a.skip_lo || b == a.skip_hi);
  OffsetTotals acc, total;
  Scan(scan_temp).ExclusiveScan(local, acc, OffsetTotals{0, 0, 0, 0, 0}, OffsetTotalsSum(), total);
  std::uint32_t max_passes = 0;
  for (int b = begin; b < end; ++b) {
    const std::uint32_t c = a.counts[b];
    const bool special = b == a.skip_lo || b == a.skip_hi;
    const OffsetTotals t = bucket_totals(c, special);
    const std::uint32_t pad = t.poff - c;
    a.offset[b] = acc.off;
    const std::uint32_t first = a.padded ? acc.poff + pad : acc.off;
    a.base[b] = first;
    a.cursor[b] = first;
    if (a.padded) {
      a.poff[b] = acc.poff;
      for (std::uint32_t j = 0; j < pad; ++j) {
        a.pkeys[acc.poff + j] = kSentinelLow;
        a.pvalues[acc.poff + j] = 0;
      }
    }
    for (std::uint32_t chunk = 0; chunk < t.items; ++chunk) a.items[acc.items + chunk] = make_uint2(b, chunk);
    if (t.ov) {
      a.ov_bucket[acc.ov] = b;
      a.ov_tile_start[acc.ov] = acc.tiles;
      max_passes = max(max_passes, ceil_log2_u(t.items));
    }
    acc = acc + t;
  }
  if (max_passes) atomicMax(&a.ctrl->max_passes, max_passes);
  if (threadIdx.x == 0) {
    a.offset[a.L] = total.off;
    a.ov_tile_start[total.ov] = total.tiles;
    a.ctrl->num_items = total.items;
    a.ctrl->num_oversized = total.ov;
  }
}

// ---------------------------------------------------------------------------------------------
// Step 7, on chip (default): one block per bucket (or kCap chunk). The bucket is loaded into
// shared memory once; each thread sorts its 16 pairs in registers (sortElements on four vectors,
// then the first two merge passes of Fig. 3); then log2(P/16) merge passes run in shared memory,
// every thread producing 16 outputs of one merge with the Fig. 3 loop, its start found by merge
// path (co-rank), so all threads stay busy in the late passes where the paper's one-thread-per-
// pair loses its parallelism. The bucket is written once, keys transformed back to floats.
// ---------------------------------------------------------------------------------------------
struct SortStageArgs {
  const uint2* bucketed;
  const std::uint32_t* counts;
  const std::uint32_t* offset;
  const uint2* items;
  const Control* ctrl;
  int skip_lo, skip_hi;
  float* keys_out;
  std::uint32_t* values_out;
  uint2* tmp;       // oversized chunks whose global merge takes an odd number of passes go here
  uint2* chunk_mm;  // first and last key of each sorted chunk of an oversized bucket
  bool word_merge;  // sort (key - min, index) words where the chunk's key range allows
};

struct SmemLoader {
  const std::uint32_t* k;
  const std::uint32_t* v;
  __device__ __forceinline__ void operator()(std::uint32_t i, std::uint32_t& key, std::uint32_t& value) const {
    key = k[sw(i)];
    value = v[sw(i)];
  }
};

// Shared-memory layout of the on-chip pair path: (key, value) as one 8-byte word, element i at
// swp(i) = i ^ ((i/16) % 16): one 64-bit access per pair instead of two 32-bit ones, and the
// 16-pair (or 8-pair) tiles of a half-warp fall on 16 different bank pairs.
__device__ __forceinline__ std::uint32_t swp(std::uint32_t i) { return i ^ ((i >> 4) & 15u); }

// The word path of the on-chip merge. A chunk whose keys span less than 2^kWordKeyBits ordered
// keys (kmax - kmin) is sorted as single 32-bit words (key - kmin) << kWordIndexBits | index: the
// same networks (sortElements, Fig. 1, Fig. 3) on the bare keys the paper sorts, every word
// distinct, a compare-and-swap a min and a max; the values wait in shared memory and are fetched
// by index when the chunk is written. Other chunks (keys far apart: specials, the buckets next to
// zero) take the pair path, keys and values moved by the same selects.
inline constexpr int kWordIndexBits = 12;
inline constexpr std::uint32_t kWordKeyRange = 1u << (32 - kWordIndexBits);
static_assert(kCap <= (1 << kWordIndexBits), "a chunk index must fit the word's index bits");

// Sorts the first P (a multiple of kOut) elements of a chunk in shared memory: kOut elements per
// thread in registers (sort16 or sort8), then merge passes by merge path with the Fig. 3 loop.
// buf.load/store/key address element i of buffer 0 or 1; returns the buffer holding the result.
template <class V, int kOut, class Buffers>
__device__ __forceinline__ int onchip_mergesort(const Buffers& buf, std::uint32_t P, std::uint32_t* s_corank) {
  constexpr int kThreads = kCap / kOut;
  constexpr int kVec = kOut / 4;
  const int tid = threadIdx.x;
  const std::uint32_t tiles = P / kOut;
  const std::uint32_t o = static_cast<std::uint32_t>(tid) * kOut;
  int in = 0;
  if (static_cast<std::uint32_t>(tid) < tiles) {
    V q[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v)
#pragma unroll
      for (int j = 0; j < 4; ++j) buf.load_lane(in, o + 4 * v + j, q[v], j);
    if constexpr (kOut == 16)
      sort16(q[0], q[1], q[2], q[3]);
    else
      sort8(q[0], q[1]);
#pragma unroll
    for (int v = 0; v < kVec; ++v)
#pragma unroll
      for (int j = 0; j < 4; ++j) buf.store_lane(in, o + 4 * v + j, q[v], j);
  }
  __syncthreads();
  for (std::uint32_t R = kOut; R < P; R <<= 1) {
    std::uint32_t s = 0, na = 0, nb = 0, d = 0;
    if (static_cast<std::uint32_t>(tid) < tiles) {
      s = (o / (2 * R)) * (2 * R);
      na = min(R, P - s);
      nb = min(R, P - s - na);
      d = o - s;
      s_corank[tid] = co_rank(d, s, na, s + na, nb, [&buf, in](std::uint32_t i) { return buf.key(in, i); });
    }
    __syncthreads();
    if (static_cast<std::uint32_t>(tid) < tiles) {
      const std::uint32_t i0 = s_corank[tid];
      const std::uint32_t d1 = d + kOut;
      const std::uint32_t i1 = d1 >= na + nb ? na : s_corank[tid + 1];
      const std::uint32_t j0 = d - i0, j1 = d1 - i1;
      const int out = in ^ 1;
      merge_tile<V>(
          buf.loader(in),
          [&buf, out, o](int vi, const V& r) {
#pragma unroll
            for (int j = 0; j < 4; ++j) buf.store_lane(out, o + 4 * vi + j, r, j);
          },
          s + i0, s + i1, s + na + j0, s + na + j1, kVec);
    }
    __syncthreads();
    in ^= 1;
    static_cast<void>(kThreads);
  }
  return in;
}

// Pair path: (key, value) packed in one 8-byte shared word, element i of buffer b at swp(i).
struct PairBuffers {
  uint2* pairs;  // 2 * kCap
  __device__ __forceinline__ std::uint32_t key(int b, std::uint32_t i) const { return pairs[b * kCap + swp(i)].x; }
  __device__ __forceinline__ void load(int b, std::uint32_t i, std::uint32_t& k, std::uint32_t& v) const {
    const uint2 p = pairs[b * kCap + swp(i)];
    k = p.x;
    v = p.y;
  }
  __device__ __forceinline__ void store(int b, std::uint32_t i, std::uint32_t k, std::uint32_t v) const {
    pairs[b * kCap + swp(i)] = make_uint2(k, v);
  }
  __device__ __forceinline__ void load_lane(int b, std::uint32_t i, KV4& r, int j) const { load(b, i, r.k[j], r.v[j]); }
  __device__ __forceinline__ void store_lane(int b, std::uint32_t i, const KV4& r, int j) const {
    store(b, i, r.k[j], r.v[j]);
  }
  __device__ __forceinline__ auto loader(int b) const {
    const uint2* p = pairs + b * kCap;
    return [p](std::uint32_t i, std::uint32_t& k, std::uint32_t& v) {
      const uint2 x = p[swp(i)];
      k = x.x;
      v = x.y;
    };
  }
};

// Word path: words of buffer b, element i at sw(i).
struct WordBuffers {
  std::uint32_t* words;  // 2 * kCap
  __device__ __forceinline__ std::uint32_t key(int b, std::uint32_t i) const { return words[b * kCap + sw(i)]; }
  __device__ __forceinline__ void load_lane(int b, std::uint32_t i, K4& r, int j) const { r.k[j] = key(b, i); }
  __device__ __forceinline__ void store_lane(int b, std::uint32_t i, const K4& r, int j) const {
    words[b * kCap + sw(i)] = r.k[j];
  }
  __device__ __forceinline__ auto loader(int b) const {
    const std::uint32_t* p = words + b * kCap;
    return [p](std::uint32_t i, std::uint32_t& k) { k = p[sw(i)]; };
  }
};

// kOut elements per thread and merge pass (16: sort16 in registers, then passes from runs of 16;
// 8: sort8, passes from runs of 8), kCap / kOut threads per block. One block per chunk.
template <int kOut>
__global__ void __launch_bounds__(kCap / kOut) vector_merge_onchip_kernel(SortStageArgs a) {
  static_assert(kOut == 8 || kOut == 16, "8 or 16 elements per thread");
  constexpr int kThreads = kCap / kOut;
  static_assert(kThreads * kOut == kCap, "kCap must be a multiple of kOut");
  extern __shared__ __align__(16) std::uint32_t smem[];  // 4 * kCap words
  __shared__ std::uint32_t s_corank[kThreads + 1];
  __shared__ std::uint32_t s_min, s_max;
  const std::uint32_t item = blockIdx.x;
  if (item >= a.ctrl->num_items) return;
  const uint2 it = a.items[item];
  const std::uint32_t bucket = it.x;
  const std::uint32_t count = a.counts[bucket];
  const std::uint32_t first = it.y * kCap;
  const std::uint32_t len = min(static_cast<std::uint32_t>(kCap), count - first);
  const std::uint32_t start = a.offset[bucket] + first;
  const int tid = threadIdx.x;
  if (static_cast<int>(bucket) == a.skip_lo || static_cast<int>(bucket) == a.skip_hi) {
    for (std::uint32_t i = tid; i < len; i += kThreads) {  // one key value: nothing to merge
      const uint2 p = a.bucketed[start + i];
      a.keys_out[start + i] = key_from_ordered(p.x);
      a.values_out[start + i] = p.y;
    }
    return;
  }
  const std::uint32_t chunks = (count + kCap - 1) / kCap;
  const bool to_tmp = chunks > 1 && (ceil_log2_u(chunks) & 1u);
  const std::uint32_t P = (len + (kOut - 1)) & ~static_cast<std::uint32_t>(kOut - 1);
  // Load the chunk once, every thread's loads in flight together (len <= kOut * kThreads): keys
  // into raw = words [2 kCap, 3 kCap), values into vals = [3 kCap, 4 kCap); the smallest and
  // largest key of the chunk. The sort buffers are words [0, 2 kCap) (two word buffers, or one
  // buffer of packed pairs whose second buffer reuses raw and vals once they are read).
  std::uint32_t* raw = smem + 2 * kCap;
  std::uint32_t* vals = smem + 3 * kCap;
  if (tid == 0) {
    s_min = 0xFFFFFFFFu;
    s_max = 0;
  }
  std::uint32_t kmin = 0xFFFFFFFFu, kmax = 0;
  {
    uint2 p[kOut];
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      p[q] = i < len ? a.bucketed[start + i] : make_uint2(0xFFFFFFFFu, 0u);
    }
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < len) {
        raw[i] = p[q].x;
        vals[i] = p[q].y;
        kmin = min(kmin, p[q].x);
        kmax = max(kmax, p[q].x);
      }
    }
  }
  // kThreads need not be a multiple of 32: the last warp may be partial.
  const unsigned lanes = (tid & ~31) + 32 <= kThreads ? 0xFFFFFFFFu : (1u << (kThreads & 31)) - 1u;
  kmin = __reduce_min_sync(lanes, kmin);
  kmax = __reduce_max_sync(lanes, kmax);
  __syncthreads();  // s_min, s_max initialised
  if ((tid & 31) == 0) {
    atomicMin(&s_min, kmin);
    atomicMax(&s_max, kmax);
  }
  __syncthreads();
  kmin = s_min;
  kmax = s_max;
  if (a.word_merge && kmax - kmin < kWordKeyRange) {
    // Word path: buffer 0 = words [0, kCap), buffer 1 = [kCap, 2 kCap).
    const WordBuffers buf{smem};
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < P) smem[sw(i)] = i < len ? ((raw[i] - kmin) << kWordIndexBits) | i : kSentinelHigh;
    }
    __syncthreads();
    const int res = onchip_mergesort<K4, kOut>(buf, P, s_corank);
    const std::uint32_t* w = smem + res * kCap;
    constexpr std::uint32_t kIndexMask = (1u << kWordIndexBits) - 1u;
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < len) {
        const std::uint32_t x = w[sw(i)];
        const std::uint32_t k = (x >> kWordIndexBits) + kmin, v = vals[x & kIndexMask];
        if (to_tmp) {
          a.tmp[start + i] = make_uint2(k, v);
        } else {
          a.keys_out[start + i] = key_from_ordered(k);
          a.values_out[start + i] = v;
        }
      }
    }
  } else {
    // Pair path: buffer 0 of packed pairs = words [0, 2 kCap), built from raw and vals.
    const PairBuffers buf{reinterpret_cast<uint2*>(smem)};
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < P) {
        if (i < len)
          buf.store(0, i, raw[i], vals[i]);
        else
          buf.store(0, i, kSentinelHigh, 0u);
      }
    }
    __syncthreads();
    const int res = onchip_mergesort<KV4, kOut>(buf, P, s_corank);
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < len) {
        std::uint32_t k, v;
        buf.load(res, i, k, v);
        if (to_tmp) {
          a.tmp[start + i] = make_uint2(k, v);
        } else {
          a.keys_out[start + i] = key_from_ordered(k);
          a.values_out[start + i] = v;
        }
      }
    }
  }
  if (chunks > 1 && tid == 0) a.chunk_mm[item] = make_uint2(kmin, kmax);
}

// ---------------------------------------------------------------------------------------------
// Step 7, buckets larger than shared memory: their kCap chunks, sorted on chip above, are merged
// by global merge passes. Every pass first finds, for each kCap-output tile, where it starts in
// its two input runs (merge path, one thread per tile), then each block takes a tile, loads its
// two input ranges coalesced into shared memory, merges them there with the same per-thread
// Fig. 3 tiles as the on-chip sort, and writes the tile coalesced. A bucket whose chunks are
// already in order (all keys equal, say) is not merged at all. One cooperative launch runs every
// pass, with grid barriers between the phases; with no oversized bucket it returns at once.
// ---------------------------------------------------------------------------------------------
struct OversizedArgs {
  const Control* ctrl;
  const std::uint32_t* counts;
  const std::uint32_t* offset;
  const uint2* items;
  const uint2* chunk_mm;
  const std::uint32_t* ov_bucket;
  const std::uint32_t* ov_tile_start;
  std::uint32_t* unsorted;
  std::uint32_t* tile_start;  // co-rank of each tile's first output (one per chunk)
  int skip_lo, skip_hi;
  float* keys_out;
  std::uint32_t* values_out;
  uint2* tmp;
};

struct GlobalLoader {
  const float* keys;
  const std::uint32_t* values;
  const uint2* pairs;
  bool from_out;
  __device__ __forceinline__ void operator()(std::uint32_t i, std::uint32_t& key, std::uint32_t& value) const {
    if (from_out) {
      key = ordered_key(keys[i]);
      value = values[i];
    } else {
      const uint2 p = pairs[i];
      key = p.x;
      value = p.y;
    }
  }
};

struct OversizedTile {
  std::uint32_t bucket, cnt, base, passes, local, lend;
};

__device__ __forceinline__ OversizedTile locate_tile(const OversizedArgs& a, std::uint32_t nov, std::uint32_t g) {
  std::uint32_t lo = 0, hi = nov + 1;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (a.ov_tile_start[mid] <= g)
      lo = mid + 1;
    else
      hi = mid;
  }
  const std::uint32_t k = lo - 1;
  OversizedTile t;
  t.bucket = a.ov_bucket[k];
  t.cnt = a.counts[t.bucket];
  t.base = a.offset[t.bucket];
  t.passes = ceil_log2_u((t.cnt + kCap - 1) / kCap);
  t.local = (g - a.ov_tile_start[k]) * kCap;
  t.lend = min(t.local + kCap, t.cnt);
  return t;
}

__global__ void __launch_bounds__(kSortThreads) vector_merge_global_kernel(OversizedArgs a) {
  const std::uint32_t nov = a.ctrl->num_oversized;
  if (nov == 0) return;
  extern __shared__ std::uint32_t smem[];
  __shared__ std::uint32_t s_corank[kSortThreads + 1];
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const int tid = threadIdx.x;
  const std::uint32_t gtid = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t gstride = gridDim.x * blockDim.x;
  const std::uint32_t num_items = a.ctrl->num_items;
  for (std::uint32_t it = gtid; it < num_items; it += gstride) {
    const uint2 item = a.items[it];
    if (item.y == 0 || static_cast<int>(item.x) == a.skip_lo || static_cast<int>(item.x) == a.skip_hi) continue;
    if (a.chunk_mm[it - 1].y > a.chunk_mm[it].x) a.unsorted[item.x] = 1;
  }
  grid.sync();
  std::uint32_t* ik = smem;
  std::uint32_t* iv = smem + kCap;
  std::uint32_t* ok = smem + 2 * kCap;
  std::uint32_t* ov = smem + 3 * kCap;
  const std::uint32_t total_tiles = a.ov_tile_start[nov];
  const std::uint32_t max_passes = a.ctrl->max_passes;
  for (std::uint32_t pass = 0; pass < max_passes; ++pass) {
    const std::uint32_t R = static_cast<std::uint32_t>(kCap) << pass;
    // Phase A: where each tile starts in its merge (one thread per tile).
    for (std::uint32_t g = gtid; g < total_tiles; g += gstride) {
      const OversizedTile t = locate_tile(a, nov, g);
      if (!a.unsorted[t.bucket] || pass >= t.passes) continue;
      const bool src_out = ((t.passes - pass) & 1u) == 0;
      const std::uint32_t s = (t.local / (2 * R)) * (2 * R);
      const std::uint32_t na = min(R, t.cnt - s);
      const std::uint32_t nb = min(R, t.cnt - s - na);
      const GlobalLoader load{a.keys_out + t.base, a.values_out + t.base, a.tmp + t.base, src_out};
      a.tile_start[g] = co_rank(t.local - s, s, na, s + na, nb, [&load](std::uint32_t i) {
        std::uint32_t kk, vv;
        load(i, kk, vv);
        return kk;
      });
    }
    grid.sync();
    // Phase B: one block per tile.
    for (std::uint32_t g = blockIdx.x; g < total_tiles; g += gridDim.x) {
      const OversizedTile t = locate_tile(a, nov, g);
      const std::uint32_t len = t.lend - t.local;
      if (!a.unsorted[t.bucket]) {
        if (pass == 0 && (t.passes & 1u))  // chunks were left in tmp for an odd number of passes
          for (std::uint32_t i = tid; i < len; i += kSortThreads) {
            const uint2 p = a.tmp[t.base + t.local + i];
            a.keys_out[t.base + t.local + i] = key_from_ordered(p.x);
            a.values_out[t.base + t.local + i] = p.y;
          }
        continue;
      }
      if (pass >= t.passes) continue;
      const bool src_out = ((t.passes - pass) & 1u) == 0;
      const std::uint32_t s = (t.local / (2 * R)) * (2 * R);
      const std::uint32_t na = min(R, t.cnt - s);
      const std::uint32_t nb = min(R, t.cnt - s - na);
      const std::uint32_t d = t.local - s, d1 = t.lend - s;
      const std::uint32_t i0 = a.tile_start[g];
      const std::uint32_t i1 = d1 >= na + nb ? na : a.tile_start[g + 1];
      const std::uint32_t j0 = d - i0, j1 = d1 - i1;
      const std::uint32_t la = i1 - i0, lb = j1 - j0;
      const GlobalLoader load{a.keys_out + t.base, a.values_out + t.base, a.tmp + t.base, src_out};
      for (std::uint32_t i = tid; i < len; i += kSortThreads) {
        const std::uint32_t from = i < la ? s + i0 + i : s + na + j0 + (i - la);
        std::uint32_t kk, vv;
        load(from, kk, vv);
        ik[sw(i)] = kk;
        iv[sw(i)] = vv;
      }
      __syncthreads();
      const std::uint32_t o = static_cast<std::uint32_t>(tid) * 16u;
      if (o < len) {
        const std::uint32_t* keys = ik;
        s_corank[tid] = co_rank(o, 0, la, la, lb, [keys](std::uint32_t i) { return keys[sw(i)]; });
      }
      __syncthreads();
      if (o < len) {
        const std::uint32_t o1 = min(o + 16u, len);
        const std::uint32_t x0 = s_corank[tid];
        const std::uint32_t x1 = o1 >= len ? la : s_corank[tid + 1];
        std::uint32_t* dk = ok;
        std::uint32_t* dv = ov;
        merge_tile(
            SmemLoader{ik, iv},
            [dk, dv, o, o1](int vi, const KV4& r) {
#pragma unroll
              for (int j = 0; j < 4; ++j) {
                const std::uint32_t pos = o + 4 * vi + j;
                if (pos < o1) {
                  dk[sw(pos)] = r.k[j];
                  dv[sw(pos)] = r.v[j];
                }
              }
            },
            x0, x1, la + (o - x0), la + (o1 - x1), static_cast<int>((o1 - o + 3) / 4));
      }
      __syncthreads();
      for (std::uint32_t i = tid; i < len; i += kSortThreads) {
        const std::uint32_t pos = t.base + t.local + i;
        if (src_out) {
          a.tmp[pos] = make_uint2(ok[sw(i)], ov[sw(i)]);
        } else {
          a.keys_out[pos] = key_from_ordered(ok[sw(i)]);
          a.values_out[pos] = ov[sw(i)];
        }
      }
      __syncthreads();
    }
    grid.sync();
  }
}

// ---------------------------------------------------------------------------------------------
// Step 7 as in the paper (option global_merge): buckets at float4-aligned offsets with low
// sentinels in front (Section 6); a kernel sorts every vector internally (sortElements), then
// global merge passes where one thread merges one pair of lists (Fig. 3), grid y = bucket, x =
// part of the bucket; finally the sentinels are dropped while writing the output.
// ---------------------------------------------------------------------------------------------
struct PaddedArgs {
  const std::uint32_t* counts;
  const std::uint32_t* poff;
  const std::uint32_t* offset;
  int L;
  int skip_lo, skip_hi;
};

__device__ __forceinline__ std::uint32_t padded_passes(std::uint32_t count) {
  const std::uint32_t vectors = (count + 3u) / 4u;
  return ceil_log2_u(vectors);
}

__global__ void sort_elements_kernel(PaddedArgs a, uint4* __restrict__ keys, uint4* __restrict__ values) {
  for (int b = blockIdx.y; b < a.L; b += gridDim.y) {
    if (b == a.skip_lo || b == a.skip_hi) continue;
    const std::uint32_t vectors = (a.counts[b] + 3u) / 4u;
    const std::uint32_t first = a.poff[b] / 4u;
    for (std::uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
      const uint4 k = keys[first + v], val = values[first + v];
      KV4 r{{k.x, k.y, k.z, k.w}, {val.x, val.y, val.z, val.w}};
      sort_elements(r);
      keys[first + v] = make_uint4(r.k[0], r.k[1], r.k[2], r.k[3]);
      values[first + v] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
    }
  }
}

__device__ __forceinline__ KV4 load_kv4(const uint4* keys, const uint4* values, std::uint32_t v) {
  const uint4 k = keys[v], val = values[v];
  return KV4{{k.x, k.y, k.z, k.w}, {val.x, val.y, val.z, val.w}};
}
__device__ __forceinline__ void store_kv4(uint4* keys, uint4* values, std::uint32_t v, const KV4& r) {
  keys[v] = make_uint4(r.k[0], r.k[1], r.k[2], r.k[3]);
  values[v] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
}

// mergeSortPass of Fig. 3: one thread per pair of sorted lists of R pairs (R = 4 * 2^pass).
__global__ void fig3_merge_pass_kernel(PaddedArgs a, std::uint32_t pass, const uint4* __restrict__ ksrc,
                                       const uint4* __restrict__ vsrc, uint4* __restrict__ kdst,
                                       uint4* __restrict__ vdst) {
  const std::uint32_t Rv = 1u << pass;  // list length in vectors
  for (int b = blockIdx.y; b < a.L; b += gridDim.y) {
    if (b == a.skip_lo || b == a.skip_hi) continue;
    const std::uint32_t count = a.counts[b];
    if (pass >= padded_passes(count)) continue;
    const std::uint32_t vectors = (count + 3u) / 4u;
    const std::uint32_t first = a.poff[b] / 4u;
    const std::uint32_t pairs = (vectors + 2 * Rv - 1) / (2 * Rv);
    for (std::uint32_t m = blockIdx.x * blockDim.x + threadIdx.x; m < pairs; m += gridDim.x * blockDim.x) {
      const std::uint32_t startA = first + m * 2 * Rv;
      const std::uint32_t na = min(Rv, first + vectors - startA);
      const std::uint32_t nb = min(Rv, first + vectors - startA - na);
      const std::uint32_t startB = startA + na;
      if (nb == 0) {  // the odd list out: copied
        for (std::uint32_t v = 0; v < na; ++v) {
          kdst[startA + v] = ksrc[startA + v];
          vdst[startA + v] = vsrc[startA + v];
        }
        continue;
      }
      KV4 x = load_kv4(ksrc, vsrc, startA), y = load_kv4(ksrc, vsrc, startB);
      std::uint32_t aIdx = 1, bIdx = 1, outIdx = startA;
      const std::uint32_t total = na + nb;
      for (std::uint32_t o = 0; o < total; ++o) {
        merge_step(x, y);  // a = sortElem(getLowest(a,b)), b = sortElem(getHighest(a,b))
        store_kv4(kdst, vdst, outIdx++, x);
        if (o + 1 == total) break;
        x = y;
        const std::uint32_t nextA = aIdx < na ? ksrc[startA + aIdx].x : kSentinelHigh;
        const std::uint32_t nextB = bIdx < nb ? ksrc[startB + bIdx].x : kSentinelHigh;
        if (nextA < nextB) {
          y = load_kv4(ksrc, vsrc, startA + aIdx);
          ++aIdx;
        } else if (bIdx < nb) {
          y = load_kv4(ksrc, vsrc, startB + bIdx);
          ++bIdx;
        } else {
          y = KV4{{kSentinelHigh, kSentinelHigh, kSentinelHigh, kSentinelHigh}, {0, 0, 0, 0}};
        }
      }
    }
  }
}

// Drops each bucket's leading sentinels and writes the float keys and values.
__global__ void compact_kernel(PaddedArgs a, const std::uint32_t* __restrict__ keys0,
                               const std::uint32_t* __restrict__ values0, const std::uint32_t* __restrict__ keys1,
                               const std::uint32_t* __restrict__ values1, float* __restrict__ keys_out,
                               std::uint32_t* __restrict__ values_out) {
  for (int b = blockIdx.y; b < a.L; b += gridDim.y) {
    const std::uint32_t count = a.counts[b];
    const bool special = b == a.skip_lo || b == a.skip_hi;
    const bool in1 = !special && (padded_passes(count) & 1u);
    const std::uint32_t* ks = in1 ? keys1 : keys0;
    const std::uint32_t* vs = in1 ? values1 : values0;
    const std::uint32_t src = a.poff[b] + (((count + 3u) & ~3u) - count);
    const std::uint32_t dst = a.offset[b];
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
      keys_out[dst + i] = key_from_ordered(ks[src + i]);
      values_out[dst + i] = vs[src + i];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Section 5.2, partial quicksort: per pass, every sublist is split around the median of its
// first, middle and last keys (the histogram is not used, as in the paper). The keys equal to the
// largest possible key are set aside in a last sublist on the first pass (never merged).
// ---------------------------------------------------------------------------------------------
template <class Src>
__global__ void quick_pivot_kernel(Src src, const std::uint32_t* __restrict__ qoff, std::uint32_t K,
                                   std::uint32_t* __restrict__ pivot) {
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < K; s += gridDim.x * blockDim.x) {
    const std::uint32_t lo = qoff[s], hi = qoff[s + 1];
    std::uint32_t p = 0;
    if (hi > lo) {
      const std::uint32_t x = src.key(lo), y = src.key(lo + (hi - lo) / 2), z = src.key(hi - 1);
      p = max(min(x, y), min(max(x, y), z));
    }
    pivot[s] = p;
  }
}

__global__ void quick_init_kernel(std::uint32_t* qoff, std::uint32_t n) {
  qoff[0] = 0;
  qoff[1] = n;
  qoff[2] = n;
}

// Offsets of the 2K+1 new sublists (one block).
__global__ void __launch_bounds__(kOneBlock) quick_offsets_kernel(const std::uint32_t* __restrict__ counts,
                                                                  int buckets, std::uint32_t* qoff,
                                                                  std::uint32_t* cursor) {
  using Scan = cub::BlockScan<std::uint32_t, kOneBlock>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int per = (buckets + kOneBlock - 1) / kOneBlock;
  const int begin = min(buckets, static_cast<int>(threadIdx.x) * per), end = min(buckets, begin + per);
  std::uint32_t sum = 0;
  for (int i = begin; i < end; ++i) sum += counts[i];
  std::uint32_t prefix = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(sum, prefix, total);
  for (int i = begin; i < end; ++i) {
    qoff[i] = prefix;
    cursor[i] = prefix;
    prefix += counts[i];
  }
  if (threadIdx.x == 0) qoff[buckets] = total;
}

}  // namespace depthsort::hybrid
