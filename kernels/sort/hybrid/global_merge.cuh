// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Sections 4 and 6 as the paper executes them (option global_merge=1): a sortElements kernel, one
// launch per Fig. 3 merge pass over every bucket in global memory, then step `compact`.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::hybrid {

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
