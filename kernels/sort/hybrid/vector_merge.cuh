// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Sections 4 and 6, the vector-mergesort of every bucket on chip: step `vector-merge` (sortElements
// and the merge passes of Fig. 3 per block, split by merge path). Buckets larger than shared memory
// are merged on by vector_merge_global.cuh; the paper's own execution (option global_merge=1) is
// global_merge.cuh. The per-thread networks are hybrid_networks.hpp.
#pragma once

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
static_assert(Policy::kCap <= (1 << kWordIndexBits), "a chunk index must fit the word's index bits");

// Sorts the first P (a multiple of kOut) elements of a chunk in shared memory: kOut elements per
// thread in registers (sort16 or sort8), then merge passes by merge path with the Fig. 3 loop.
// buf.load/store/key address element i of buffer 0 or 1; returns the buffer holding the result.
template <class V, int kOut, class Buffers>
__device__ __forceinline__ int onchip_mergesort(const Buffers& buf, std::uint32_t P, std::uint32_t* s_corank) {
  constexpr int kThreads = Policy::kCap / kOut;
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
  __device__ __forceinline__ std::uint32_t key(int b, std::uint32_t i) const {
    return pairs[b * Policy::kCap + swp(i)].x;
  }
  __device__ __forceinline__ void load(int b, std::uint32_t i, std::uint32_t& k, std::uint32_t& v) const {
    const uint2 p = pairs[b * Policy::kCap + swp(i)];
    k = p.x;
    v = p.y;
  }
  __device__ __forceinline__ void store(int b, std::uint32_t i, std::uint32_t k, std::uint32_t v) const {
    pairs[b * Policy::kCap + swp(i)] = make_uint2(k, v);
  }
  __device__ __forceinline__ void load_lane(int b, std::uint32_t i, KV4& r, int j) const { load(b, i, r.k[j], r.v[j]); }
  __device__ __forceinline__ void store_lane(int b, std::uint32_t i, const KV4& r, int j) const {
    store(b, i, r.k[j], r.v[j]);
  }
  __device__ __forceinline__ auto loader(int b) const {
    const uint2* p = pairs + b * Policy::kCap;
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
  __device__ __forceinline__ std::uint32_t key(int b, std::uint32_t i) const { return words[b * Policy::kCap + sw(i)]; }
  __device__ __forceinline__ void load_lane(int b, std::uint32_t i, K4& r, int j) const { r.k[j] = key(b, i); }
  __device__ __forceinline__ void store_lane(int b, std::uint32_t i, const K4& r, int j) const {
    words[b * Policy::kCap + sw(i)] = r.k[j];
  }
  __device__ __forceinline__ auto loader(int b) const {
    const std::uint32_t* p = words + b * Policy::kCap;
    return [p](std::uint32_t i, std::uint32_t& k) { k = p[sw(i)]; };
  }
};

// kOut elements per thread and merge pass (16: sort16 in registers, then passes from runs of 16;
// 8: sort8, passes from runs of 8), kCap / kOut threads per block. One block per chunk.
template <int kOut>
__global__ void __launch_bounds__(Policy::kCap / kOut) vector_merge_onchip_kernel(SortStageArgs a) {
  static_assert(kOut == 8 || kOut == 16, "8 or 16 elements per thread");
  constexpr int kThreads = Policy::kCap / kOut;
  static_assert(kThreads * kOut == Policy::kCap, "Policy::kCap must be a multiple of kOut");
  extern __shared__ __align__(16) std::uint32_t smem[];  // 4 * kCap words
  __shared__ std::uint32_t s_corank[kThreads + 1];
  __shared__ std::uint32_t s_min, s_max;
  const std::uint32_t item = blockIdx.x;
  if (item >= a.ctrl->num_items) return;
  const uint2 it = a.items[item];
  const std::uint32_t bucket = it.x;
  const std::uint32_t count = a.counts[bucket];
  const std::uint32_t first = it.y * Policy::kCap;
  const std::uint32_t len = min(static_cast<std::uint32_t>(Policy::kCap), count - first);
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
  const std::uint32_t chunks = (count + Policy::kCap - 1) / Policy::kCap;
  const bool to_tmp = chunks > 1 && (primitives::ceil_log2_u(chunks) & 1u);
  const std::uint32_t P = (len + (kOut - 1)) & ~static_cast<std::uint32_t>(kOut - 1);
  // Load the chunk once, every thread's loads in flight together (len <= kOut * kThreads): keys
  // into raw = words [2 kCap, 3 kCap), values into vals = [3 kCap, 4 kCap); the smallest and
  // largest key of the chunk. The sort buffers are words [0, 2 kCap) (two word buffers, or one
  // buffer of packed pairs whose second buffer reuses raw and vals once they are read).
  std::uint32_t* raw = smem + 2 * Policy::kCap;
  std::uint32_t* vals = smem + 3 * Policy::kCap;
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
    const std::uint32_t* w = smem + res * Policy::kCap;
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

}  // namespace depthsort::hybrid
