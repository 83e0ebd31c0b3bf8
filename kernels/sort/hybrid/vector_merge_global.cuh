// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Sections 4 and 6, the vector-mergesort of buckets larger than shared memory: step
// `vector-merge-global`, which merges the chunks vector_merge.cuh sorted on chip.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"
#include "sort/hybrid/vector_merge.cuh"
#include "sort/primitives/merge_path.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::hybrid {

// ---------------------------------------------------------------------------------------------
// Step 7, buckets larger than shared memory: their kCap chunks, sorted on chip (vector_merge.cuh), are merged
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
  t.passes = primitives::ceil_log2_u((t.cnt + Policy::kCap - 1) / Policy::kCap);
  t.local = (g - a.ov_tile_start[k]) * Policy::kCap;
  t.lend = min(t.local + Policy::kCap, t.cnt);
  return t;
}

__global__ void __launch_bounds__(Policy::kSortThreads) vector_merge_global_kernel(OversizedArgs a) {
  const std::uint32_t nov = a.ctrl->num_oversized;
  if (nov == 0) return;
  extern __shared__ std::uint32_t smem[];
  __shared__ std::uint32_t s_corank[Policy::kSortThreads + 1];
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
  std::uint32_t* iv = smem + Policy::kCap;
  std::uint32_t* ok = smem + 2 * Policy::kCap;
  std::uint32_t* ov = smem + 3 * Policy::kCap;
  const std::uint32_t total_tiles = a.ov_tile_start[nov];
  const std::uint32_t max_passes = a.ctrl->max_passes;
  for (std::uint32_t pass = 0; pass < max_passes; ++pass) {
    const std::uint32_t R = static_cast<std::uint32_t>(Policy::kCap) << pass;
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
          for (std::uint32_t i = tid; i < len; i += Policy::kSortThreads) {
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
      for (std::uint32_t i = tid; i < len; i += Policy::kSortThreads) {
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
      for (std::uint32_t i = tid; i < len; i += Policy::kSortThreads) {
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

}  // namespace depthsort::hybrid
