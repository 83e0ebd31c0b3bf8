// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 5.1, the pivots of the bucketsort: steps `min/max` (a reduction), `histogram`
// (Section 5.1 "Optimizations") and `refine` (Fig. 5), plus the pivot search of Fig. 4 that the
// count step runs with those pivots (narrowed by the pivot table that `refine` builds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include "sort/primitives/tile_io.cuh"
#include "sort/primitives/warp_block.cuh"
#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/binning_index.hpp"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {

// The bins (struct Binning) are in binning_index.hpp, shared with the CPU tests.
__device__ __forceinline__ Binning make_binning(const Control& c, int max_bins) {
  return make_binning_of_range(~c.omin_c, c.omax, max_bins);
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
    std::uint32_t g = lo + static_cast<std::uint32_t>(
                               min((off * (hi - lo)) >> binning.shift, static_cast<unsigned long long>(hi - lo)));
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
  __device__ __forceinline__ PivotSearch<> prepare() const {
    return PivotSearch<>{pivots, table, make_binning(*ctrl, bins)};
  }
};

// min/max and histogram: every key, as ordered bits.
template <int kThreads, class Visit>
__device__ __forceinline__ void for_each_ordered_key(const float* __restrict__ keys, std::size_t n, Visit&& visit) {
  primitives::for_each_tile_key<kThreads, 8>(
      n, [&](std::size_t i) { return keys[i]; },
      [&](std::size_t, float key, bool valid) {
        if (valid) visit(ordered_key(key));
      });
}

// ---------------------------------------------------------------------------------------------
// Step 1, Section 5.1: min and max of all keys (as ordered bits) by a reduction.
// ---------------------------------------------------------------------------------------------
template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    minmax_kernel(const float* __restrict__ keys, std::size_t n, Control* ctrl) {
  std::uint32_t omin = 0xFFFFFFFFu, omax = 0;
  for_each_ordered_key<kThreads>(keys, n, [&](std::uint32_t o) {
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
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const float* __restrict__ keys, std::size_t n, const Control* ctrl, int bins,
                     std::uint32_t* __restrict__ hist) {
  extern __shared__ std::uint32_t sh_hist[];
  for (int i = threadIdx.x; i < bins; i += kThreads) sh_hist[i] = 0;
  const Binning binning = make_binning(*ctrl, bins);
  __syncthreads();
  for_each_ordered_key<kThreads>(keys, n, [&](std::uint32_t o) { atomicAdd(&sh_hist[binning.bin(o)], 1u); });
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
                                         std::uint32_t* table) {
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

// The L - 1 pivots of one block, each thread its share: pivot 0 is 1 and pivot L-2 the largest
// key (the reserved buckets of both splitters), the real ones from interior(j), 0 < j < L - 2.
template <class Interior>
__device__ __forceinline__ void write_pivots(int L, std::uint32_t* pivots, const Interior& interior) {
  for (int j = threadIdx.x; j < L - 1; j += Policy::kOneBlock)
    pivots[j] = j == 0 ? 1u : j == L - 2 ? kSentinelHigh : interior(j);
}

// Fig. 5: pivot j of L-1 sits at rank j*N/(L-2) of the cumulative counts cum[0, cells] (cells of
// keys: histogram bins or the buckets of the previous pivots); inside its cell the keys are
// assumed evenly spread, so the pivot is the cell's first key plus the fraction of the cell taken,
// inside(cell, taken, cell count). Pivot 0 is 1 and pivot L-2 is the largest key (reserved
// buckets). One thread per pivot, then the pivot table.
template <class Inside>
__device__ inline void interpolate_pivots(const std::uint32_t* cum, int cells, std::uint32_t n, int L,
                                          const Inside& inside, const Binning& binning, std::uint32_t* pivots,
                                          std::uint32_t* table) {
  const std::uint32_t real_buckets = static_cast<std::uint32_t>(L - 2);
  write_pivots(L, pivots, [&](int j) {
    const std::uint32_t target =
        static_cast<std::uint32_t>(static_cast<unsigned long long>(j) * n / real_buckets);  // < n
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
    return static_cast<std::uint32_t>(q);
  });
  __syncthreads();
  build_pivot_table(pivots, L, binning, table);
}

__global__ void __launch_bounds__(Policy::kOneBlock)
    refine_from_histogram_kernel(const std::uint32_t* __restrict__ hist, int bins, const Control* ctrl, std::uint32_t n,
                                 int L, std::uint32_t* pivots, std::uint32_t* table) {
  extern __shared__ std::uint32_t cum[];  // bins + 1
  primitives::block_cumulative_counts<Policy::kOneBlock>(hist, bins, cum);
  const Binning binning = make_binning(*ctrl, bins);
  interpolate_pivots(
      cum, binning.bins, n, L,
      [&binning](int i, std::uint32_t taken, std::uint32_t in_cell) {
        return binning.bin_start(i) + ((static_cast<unsigned long long>(taken) << binning.shift) / in_cell);
      },
      binning, pivots, table);
}

// Further refinements (option refinements > 1): the counts of a count pass with the current
// pivots play the histogram's part, each bucket assumed even inside (in the ordered key space).
__global__ void __launch_bounds__(Policy::kOneBlock)
    refine_from_counts_kernel(const std::uint32_t* __restrict__ counts, const std::uint32_t* __restrict__ old_pivots,
                              std::uint32_t* cum, const Control* ctrl, int bins, std::uint32_t n, int L,
                              std::uint32_t* pivots, std::uint32_t* table) {
  primitives::block_cumulative_counts<Policy::kOneBlock>(counts, L, cum);
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

}  // namespace depthsort::hybrid
