// patch-merge (docs/algorithms/patch-merge.md): the device steps. Keys travel as the ordered bits
// of keys.hpp, so every comparison is an unsigned one and the output keys come back bit for bit.
//
// The idea: sort fixed tiles on chip; a key is "in place" when no key before it is larger and no
// key after it smaller. Across tiles that is: key x of tile t with max(tiles < t) <= x <=
// min(tiles > t). Inside a sorted tile those keys form one contiguous range, and all in-place
// keys together are already globally sorted. The others (outliers: a prefix and a suffix of each
// tile) are extracted and sorted, and the two sorted sequences are merged by rank: each key's
// output position is its rank in its own sequence plus its rank in the other.
#pragma once

#include <cstdint>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

#include "depthsort/keys.hpp"

namespace depthsort::patch_merge {

inline constexpr int kThreads = 256;
inline constexpr int kItems = 8;
inline constexpr int kTile = kThreads * kItems;  // keys one block sorts on chip
inline constexpr std::uint32_t kProbePairs = 4096;

// Step `probe`: *inverted += pairs (p, p + gap) out of order, for `pairs` positions p spread over
// the input. Needs n > gap.
__global__ void __launch_bounds__(kThreads) probe_kernel(const float* __restrict__ keys, std::uint32_t n,
                                                         std::uint32_t gap, std::uint32_t pairs,
                                                         std::uint32_t* inverted) {
  using Reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  std::uint32_t count = 0;
  const std::uint32_t span = n - gap;
  for (std::uint32_t i = blockIdx.x * kThreads + threadIdx.x; i < pairs; i += gridDim.x * kThreads) {
    const std::uint32_t p = static_cast<std::uint32_t>(static_cast<unsigned long long>(i) * span / pairs);
    count += ordered_key(keys[p + gap]) < ordered_key(keys[p]);
  }
  const std::uint32_t total = Reduce(temp).Sum(count);
  if (threadIdx.x == 0 && total) atomicAdd(inverted, total);
}

// Step `tile-sort`: each block sorts one tile of kTile pairs (the last one shorter) on chip and
// writes it packed (ordered key, value), plus its smallest key (in reversed tile order, for the
// suffix minimum) and its largest.
__global__ void __launch_bounds__(kThreads) tile_sort_kernel(const float* __restrict__ keys,
                                                             const std::uint32_t* __restrict__ values,
                                                             std::uint32_t n, uint2* __restrict__ sorted,
                                                             std::uint32_t* __restrict__ tile_min_reversed,
                                                             std::uint32_t* __restrict__ tile_max) {
  using Sort = cub::BlockRadixSort<std::uint32_t, kThreads, kItems, std::uint32_t>;
  __shared__ typename Sort::TempStorage temp;
  const std::uint32_t tiles = gridDim.x;
  const std::uint32_t tile = blockIdx.x;
  const std::uint32_t base = tile * static_cast<std::uint32_t>(kTile);
  const std::uint32_t valid = min(static_cast<std::uint32_t>(kTile), n - base);
  std::uint32_t k[kItems], v[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t r = threadIdx.x * kItems + j;  // blocked: input order kept for the stable sort
    // Padding sorts last (largest key; the sort is stable and it comes after every real key).
    k[j] = r < valid ? ordered_key(keys[base + r]) : 0xFFFFFFFFu;
    v[j] = r < valid ? values[base + r] : 0u;
  }
  Sort(temp).SortBlockedToStriped(k, v);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t r = j * kThreads + threadIdx.x;  // striped: rank r, coalesced stores
    if (r < valid) sorted[base + r] = make_uint2(k[j], v[j]);
    if (r == 0) tile_min_reversed[tiles - 1 - tile] = k[j];
    if (r == valid - 1) tile_max[tile] = k[j];
  }
}

// First index in sorted[lo, hi) whose key is >= x (Less: > x for upper bound).
template <bool kUpper>
__device__ __forceinline__ std::uint32_t bound(const uint2* sorted, std::uint32_t lo, std::uint32_t hi,
                                               std::uint32_t x) {
  while (lo < hi) {
    const std::uint32_t mid = lo + ((hi - lo) >> 1);
    const std::uint32_t k = sorted[mid].x;
    if (kUpper ? k <= x : k < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Step `bounds`: tile t's in-place range [begin, begin + good) from the prefix maximum of the tiles
// before it and the suffix minimum of those after it (inclusive scans done before); the counts
// go to good_count and outlier_count (one entry per tile, scanned next).
__global__ void classify_kernel(const uint2* __restrict__ sorted, std::uint32_t n, std::uint32_t tiles,
                                const std::uint32_t* __restrict__ prefix_max,
                                const std::uint32_t* __restrict__ suffix_min_reversed,
                                std::uint32_t* __restrict__ good_begin, std::uint32_t* __restrict__ good_count,
                                std::uint32_t* __restrict__ outlier_count) {
  for (std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < tiles; t += gridDim.x * blockDim.x) {
    const std::uint32_t base = t * static_cast<std::uint32_t>(kTile);
    const std::uint32_t end = base + min(static_cast<std::uint32_t>(kTile), n - base);
    const std::uint32_t floor_key = t > 0 ? prefix_max[t - 1] : 0u;
    const std::uint32_t ceiling_key = t + 1 < tiles ? suffix_min_reversed[tiles - 2 - t] : 0xFFFFFFFFu;
    const std::uint32_t lo = bound<false>(sorted, base, end, floor_key);
    const std::uint32_t hi = bound<true>(sorted, base, end, ceiling_key);
    const std::uint32_t good = hi > lo ? hi - lo : 0u;
    good_begin[t] = lo;
    good_count[t] = good;
    outlier_count[t] = (end - base) - good;
  }
}

// Step `extract`: each block copies its tile's outliers (the keys before the in-place range and
// after it) to outlier_keys / outlier_values at the tile's scanned offset.
__global__ void __launch_bounds__(kThreads) extract_kernel(const uint2* __restrict__ sorted, std::uint32_t n,
                                                           const std::uint32_t* __restrict__ good_begin,
                                                           const std::uint32_t* __restrict__ good_count,
                                                           const std::uint32_t* __restrict__ outlier_offset,
                                                           std::uint32_t* __restrict__ outlier_keys,
                                                           std::uint32_t* __restrict__ outlier_values) {
  const std::uint32_t t = blockIdx.x;
  const std::uint32_t base = t * static_cast<std::uint32_t>(kTile);
  const std::uint32_t valid = min(static_cast<std::uint32_t>(kTile), n - base);
  const std::uint32_t before = good_begin[t] - base;
  const std::uint32_t good = good_count[t];
  const std::uint32_t out = outlier_offset[t];
  for (std::uint32_t r = threadIdx.x; r < valid; r += kThreads) {
    if (r >= before && r < before + good) continue;
    const std::uint32_t slot = out + (r < before ? r : r - good);
    const uint2 pair = sorted[base + r];
    outlier_keys[slot] = pair.x;
    outlier_values[slot] = pair.y;
  }
}

// Step `merge`, in-place keys: output position = rank among the in-place keys + outliers below it
// (ties: in-place keys first).
__global__ void __launch_bounds__(kThreads) merge_good_kernel(const uint2* __restrict__ sorted, std::uint32_t n,
                                                              const std::uint32_t* __restrict__ good_begin,
                                                              const std::uint32_t* __restrict__ good_count,
                                                              const std::uint32_t* __restrict__ good_offset,
                                                              const std::uint32_t* __restrict__ outlier_keys,
                                                              std::uint32_t outliers, float* __restrict__ keys_out,
                                                              std::uint32_t* __restrict__ values_out) {
  const std::uint32_t t = blockIdx.x;
  const std::uint32_t begin = good_begin[t];
  const std::uint32_t good = good_count[t];
  const std::uint32_t rank0 = good_offset[t];
  for (std::uint32_t r = threadIdx.x; r < good; r += kThreads) {
    const uint2 pair = sorted[begin + r];
    std::uint32_t lo = 0, hi = outliers;  // outliers with key < pair.x
    while (lo < hi) {
      const std::uint32_t mid = lo + ((hi - lo) >> 1);
      if (outlier_keys[mid] < pair.x)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::uint32_t at = rank0 + r + lo;
    if (at < n) {
      keys_out[at] = key_from_ordered(pair.x);
      values_out[at] = pair.y;
    }
  }
}

// Step `merge`, outliers: output position = rank among the outliers + in-place keys <= it. The
// in-place keys are found by rank: tile by the scanned good offsets, then inside the tile.
__global__ void __launch_bounds__(kThreads) merge_outliers_kernel(
    const uint2* __restrict__ sorted, std::uint32_t n, std::uint32_t tiles, const std::uint32_t* __restrict__ good_begin,
    const std::uint32_t* __restrict__ good_offset, std::uint32_t good_total, const std::uint32_t* __restrict__ outlier_keys,
    const std::uint32_t* __restrict__ outlier_values, std::uint32_t outliers, float* __restrict__ keys_out,
    std::uint32_t* __restrict__ values_out) {
  for (std::uint32_t j = blockIdx.x * kThreads + threadIdx.x; j < outliers; j += gridDim.x * kThreads) {
    const std::uint32_t y = outlier_keys[j];
    // In-place keys <= y: the first good rank whose key is > y.
    std::uint32_t lo = 0, hi = good_total;
    while (lo < hi) {
      const std::uint32_t mid = lo + ((hi - lo) >> 1);
      // The tile holding good rank mid: last t with good_offset[t] <= mid.
      std::uint32_t a = 0, b = tiles;
      while (b - a > 1) {
        const std::uint32_t m = (a + b) >> 1;
        if (good_offset[m] <= mid)
          a = m;
        else
          b = m;
      }
      const std::uint32_t key = sorted[good_begin[a] + (mid - good_offset[a])].x;
      if (key <= y)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::uint32_t at = j + lo;
    if (at < n) {
      keys_out[at] = key_from_ordered(y);
      values_out[at] = outlier_values[j];
    }
  }
}

}  // namespace depthsort::patch_merge
