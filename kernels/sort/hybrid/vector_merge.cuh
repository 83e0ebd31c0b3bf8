// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Sections 4 and 6, the vector-mergesort of every bucket: step `vector-merge` (on chip: sortElements
// and the merge passes of Fig. 3 per block, split by merge path; or, option global_merge=1, the
// paper's execution: a sortElements kernel, one launch per Fig. 3 merge pass, then `compact`) and
// step `vector-merge-global` (buckets larger than shared memory). The per-thread networks are
// hybrid_networks.hpp.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "sort/primitives/merge_path.hpp"
#include "sort/primitives/warp_block.cuh"
#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {


// Shared-memory swizzle: element i of a bucket lives at i ^ ((i / 32) % 32), so that the 16-pair
// tiles of one warp (stride 16 words) fall on different banks.
__device__ __forceinline__ std::uint32_t sw(std::uint32_t i) { return i ^ ((i >> 5) & 31u); }

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
  const bool to_tmp = chunks > 1 && (primitives::ceil_log2_u(chunks) & 1u);
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
  kmin = primitives::warp_reduce_min(lanes, kmin);
  kmax = primitives::warp_reduce_max(lanes, kmax);
  __syncthreads();  // s_min, s_max initialised
  if ((tid & 31) == 0) {
    atomicMin(&s_min, kmin);
    atomicMax(&s_max, kmax);
  }
  __syncthreads();
  kmin = s_min;
  kmax = s_max;
  if (kmin == kmax) {
    // One key value (all keys equal, or the bucket [v, v + 1) the sample splitter gives a key
    // that fills several buckets' share): already in order, copied as loaded.
#pragma unroll
    for (int q = 0; q < kOut; ++q) {
      const std::uint32_t i = q * kThreads + tid;
      if (i < len) {
        if (to_tmp) {
          a.tmp[start + i] = make_uint2(kmin, vals[i]);
        } else {
          a.keys_out[start + i] = key_from_ordered(kmin);
          a.values_out[start + i] = vals[i];
        }
      }
    }
  } else if (a.word_merge && kmax - kmin < kWordKeyRange) {
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
  t.passes = primitives::ceil_log2_u((t.cnt + kCap - 1) / kCap);
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
  return primitives::ceil_log2_u(vectors);
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
__global__ void merge_list_pairs_kernel(PaddedArgs a, std::uint32_t pass, const uint4* __restrict__ ksrc,
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

}  // namespace depthsort::hybrid
