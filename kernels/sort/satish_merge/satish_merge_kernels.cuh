// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS
// 2009), Section IV: the three kernels of their merge sort.
//  - tile_sort_kernel      step (2): one block sorts one tile of t pairs in shared memory with
//                          Batcher's odd-even merge sort (kernels/sort/primitives/odd_even_merge_sort.cuh);
//  - splitter_kernel       step (3), per merge level: every t-th key of each run is a splitter; each
//                          finds its place in S = merge(SA, SB) and its rank in the other run
//                          (Section IV-A; satish_merge_rank.hpp);
//  - merge_tiles_kernel    step (3), per merge level: one block merges each pair of sub-tiles
//                          (at most t keys of A, t of B) the split points cut; each element's
//                          output rank is its own index plus its rank in the other sub-tile.
// Keys travel as ordered uint32 (keys.hpp): transformed on the first load, back on the last store.
#pragma once

#include <cstdint>

#include "sort/primitives/odd_even_merge_sort.cuh"
#include "depthsort/sort/keys.hpp"
#include "sort/satish_merge/satish_merge_rank.hpp"

namespace depthsort::satish_merge {

// The geometry of one merge level: runs of w = t * tiles_per_run pairs, merged two by two.
struct Level {
  std::uint32_t n;
  std::uint32_t t;
  std::uint32_t w;
  std::uint32_t tiles_per_run;  // R: a pair of runs has at most 2R splitters, 2R + 1 sub-tile pairs
};

struct PairOfRuns {
  std::uint32_t start;  // first element of A; B starts at start + w
  std::uint32_t la;
  std::uint32_t lb;
};

__device__ __forceinline__ PairOfRuns pair_of_runs(const Level& lv, std::uint32_t pair) {
  const std::uint64_t start = std::uint64_t{pair} * 2 * lv.w;
  const std::uint64_t left = lv.n - start;
  const std::uint32_t la = static_cast<std::uint32_t>(left < lv.w ? left : lv.w);
  const std::uint64_t rest = left - la;
  return {static_cast<std::uint32_t>(start), la, static_cast<std::uint32_t>(rest < lv.w ? rest : lv.w)};
}

// Pairs per thread in a merge block at most: t <= 2048 over 256 threads (the sorter's limits).
inline constexpr int kMaxPerThread = 8;

// The last store writes float bits; earlier ones keep the ordered key.
__device__ __forceinline__ std::uint32_t stored_key(std::uint32_t ordered, bool to_float) {
  return to_float ? float_bits_from_ordered_bits(ordered) : ordered;
}

// Step (2). Grid: one block per tile; dynamic shared memory 2t words. keys_in holds float bits.
__global__ void __launch_bounds__(256)
    tile_sort_kernel(const std::uint32_t* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                     std::uint32_t* __restrict__ keys_out, std::uint32_t* __restrict__ values_out, std::uint32_t n,
                     std::uint32_t t, bool to_float) {
  extern __shared__ std::uint32_t smem[];
  std::uint32_t* sk = smem;
  std::uint32_t* sv = smem + t;
  const std::uint32_t base = blockIdx.x * t;
  const int len = static_cast<int>(n - base < t ? n - base : t);
  for (int x = threadIdx.x; x < len; x += blockDim.x) {
    sk[x] = ordered_bits_from_float_bits(keys_in[base + x]);
    sv[x] = values_in[base + x];
  }
  __syncthreads();
  int m = 1;
  while (m < len) m <<= 1;  // a partial tile needs only the network of the next power of two
  for (int p = 1; p < m; p <<= 1)
    for (int k = p; k >= 1; k >>= 1) {
      for (int c = threadIdx.x; c < m / 2; c += blockDim.x) {
        const int x = primitives::odd_even::lower_of(c, p, k);
        const int y = x + k;
        if (y >= len || (x ^ y) >= 2 * p) continue;  // no comparator, or its upper end is missing
        const std::uint32_t kx = sk[x], ky = sk[y];
        if (ky < kx) {
          sk[x] = ky;
          sk[y] = kx;
          const std::uint32_t vx = sv[x];
          sv[x] = sv[y];
          sv[y] = vx;
        }
      }
      __syncthreads();
    }
  for (int x = threadIdx.x; x < len; x += blockDim.x) {
    keys_out[base + x] = stored_key(sk[x], to_float);
    values_out[base + x] = sv[x];
  }
}

// Step (3a). One thread per splitter, i.e. per t-th element of the whole array (runs are whole
// tiles, so the splitters of every run are exactly the elements g*t). Writes the split point into
// slot 1 + rank(s, S) of its pair's 2R + 1 slots (slot 0 is the implicit point (0, 0)).
__global__ void splitter_kernel(const std::uint32_t* __restrict__ keys, Level lv, std::uint32_t splitters,
                                SplitPoint* __restrict__ points) {
  const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= splitters) return;
  const std::uint32_t run = g / lv.tiles_per_run;
  const std::uint32_t i = g % lv.tiles_per_run;
  const PairOfRuns pr = pair_of_runs(lv, run / 2);
  const std::uint32_t* a = keys + pr.start;
  const std::uint32_t* b = a + lv.w;
  auto key_a = [a](std::uint32_t j) { return a[j]; };
  auto key_b = [b](std::uint32_t j) { return b[j]; };
  std::uint32_t slot = 0;
  const SplitPoint point = (run & 1) ? splitter_point<true>(key_b, key_a, pr.la, lv.t, i, &slot)
                                     : splitter_point<false>(key_a, key_b, pr.lb, lv.t, i, &slot);
  points[std::size_t{run / 2} * (2 * lv.tiles_per_run + 1) + 1 + slot] = point;
}

// Step (3b). kPer = t / blockDim.x pairs a thread (1 in the paper's configuration; a template
// argument so the registers hold no more than a configuration needs). One block per pair of sub-tiles: blockIdx.x =
// pair * (2R + 1) + s merges the elements between split points s and s + 1. Dynamic shared memory: 2t words, plus 4t
// more when `staged`.
//  - faithful (!staged): each thread writes its elements straight to their output places, as
//    the paper describes;
//  - staged: the block first places them in shared memory, then writes its output range in
//    order, so the global stores are whole coalesced lines.
template <int kPer>
__global__ void __launch_bounds__(256)
    merge_tiles_kernel(const std::uint32_t* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                       std::uint32_t* __restrict__ keys_out, std::uint32_t* __restrict__ values_out, Level lv,
                       const SplitPoint* __restrict__ points, bool staged, bool to_float) {
  extern __shared__ std::uint32_t smem[];
  const std::uint32_t slots = 2 * lv.tiles_per_run + 1;
  const std::uint32_t pair = blockIdx.x / slots;
  const std::uint32_t s = blockIdx.x % slots;
  const PairOfRuns pr = pair_of_runs(lv, pair);
  const std::uint32_t cut_count = (pr.la + lv.t - 1) / lv.t + (pr.lb + lv.t - 1) / lv.t;
  if (s > cut_count) return;
  const SplitPoint* pp = points + std::size_t{pair} * slots;
  const SplitPoint lo = s == 0 ? SplitPoint{0, 0} : pp[s];
  const SplitPoint hi = s == cut_count ? SplitPoint{pr.la, pr.lb} : pp[s + 1];
  const std::uint32_t na = hi.a - lo.a, nb = hi.b - lo.b;
  const std::uint32_t a0 = pr.start + lo.a, b0 = pr.start + lv.w + lo.b;
  std::uint32_t* sa = smem;
  std::uint32_t* sb = smem + na;
  // Every load of the block is issued before the barrier (keys and values together), so a block
  // waits for memory once, not once for the keys and again for the values.
  std::uint32_t ka[kPer], va[kPer], kb[kPer], vb[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const std::uint32_t x = threadIdx.x + j * blockDim.x;
    if (x < na) {
      ka[j] = keys_in[a0 + x];
      va[j] = values_in[a0 + x];
      sa[x] = ka[j];
    }
    if (x < nb) {
      kb[j] = keys_in[b0 + x];
      vb[j] = values_in[b0 + x];
      sb[x] = kb[j];
    }
  }
  __syncthreads();
  auto key_a = [sa](std::uint32_t j) { return sa[j]; };
  auto key_b = [sb](std::uint32_t j) { return sb[j]; };
  const std::uint32_t out0 = pr.start + lo.a + lo.b;
  std::uint32_t* stage_k = smem + 2 * lv.t;
  std::uint32_t* stage_v = stage_k + 2 * lv.t;
  auto place = [&](std::uint32_t rank, std::uint32_t key, std::uint32_t value) {
    if (staged) {
      stage_k[rank] = key;
      stage_v[rank] = value;
    } else {
      keys_out[out0 + rank] = stored_key(key, to_float);
      values_out[out0 + rank] = value;
    }
  };
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const std::uint32_t x = threadIdx.x + j * blockDim.x;
    if (x < na) place(x + primitives::rank_in<false>(key_b, 0, nb, ka[j]), ka[j], va[j]);
    if (x < nb) place(x + primitives::rank_in<true>(key_a, 0, na, kb[j]), kb[j], vb[j]);
  }
  if (!staged) return;
  __syncthreads();
  for (std::uint32_t x = threadIdx.x; x < na + nb; x += blockDim.x) {
    keys_out[out0 + x] = stored_key(stage_k[x], to_float);
    values_out[out0 + x] = stage_v[x];
  }
}

}  // namespace depthsort::satish_merge
