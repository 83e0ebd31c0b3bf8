// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 4 "Vector-Mergesort": the per-thread networks, as __host__ __device__ functions so that
// the CPU tests (tests/cpu/test_hybrid_networks.cpp) check exactly the code the kernels run.
//
//  - sort_elements: the three-step network of Section 4 that sorts one four-key vector
//    (comparators (x,y)(z,w), then (x,z)(y,w), then (y,z)).
//  - merge_step: Fig. 1(a)+(b): a gets the lowest four keys of a and b, b the highest four, by
//    compare-and-swap of a[i] with b[3-i], then both are re-sorted with sort_elements.
//  - merge_tile: the loop of Fig. 3 for one thread: emit a, keep b as the remainder, fetch the next
//    vector from whichever input has the lower head. Here the two inputs are given as index ranges
//    [a_pos, a_end), [b_pos, b_end) of one buffer, and positions past a range read as sentinels
//    above every key, so the same loop merges whole lists (one thread per pair of lists, as in the
//    paper) or one merge-path tile of a long merge (many threads per pair, primitives::co_rank).
//
// Keys are the ordered uint32 form of keys.hpp (the one deviation from the paper's float4: the
// project's key order puts -0 before +0 and NaNs at the ends, which float compares cannot give).
// Values travel with their keys: every compare-and-swap moves key and value on ONE predicate. The
// paper's notation evaluates two predicates per pair ("a < b ? a : b" and "b >= a ? b : a"); with
// equal keys both pick the same element, which is harmless for bare floats but duplicates a value
// and drops another for pairs (the CPU test shows that version failing).
#pragma once

#include <cstdint>

#include "sort/primitives/merge_path.hpp"
#include "depthsort/sort/keys.hpp"

namespace depthsort::hybrid {

inline constexpr std::uint32_t kSentinelHigh = 0xFFFFFFFFu;  // above every key that is ever merged
inline constexpr std::uint32_t kSentinelLow = 0u;            // below every key that is ever merged

// Four (ordered key, value) pairs: the float4 of the paper plus the uint4 of values beside it.
struct KV4 {
  std::uint32_t k[4];
  std::uint32_t v[4];
};

// Compare-and-swap: afterwards key ka <= key kb; the values move with their keys.
DEPTHSORT_HD void cas(std::uint32_t& ka, std::uint32_t& va, std::uint32_t& kb, std::uint32_t& vb) {
  const bool swap = kb < ka;
  const std::uint32_t lk = swap ? kb : ka;
  const std::uint32_t lv = swap ? vb : va;
  kb = swap ? ka : kb;
  vb = swap ? va : vb;
  ka = lk;
  va = lv;
}

// Four single 32-bit words (the paper's float4 of bare keys): the on-chip merge sorts words made
// of a bucket-relative key and the pair's index when the bucket's key range allows (kernels), and
// the value is fetched by that index at the end.
struct K4 {
  std::uint32_t k[4];
};

// Compare-and-swap of lane i of a with lane j of b (a and b may be the same vector).
DEPTHSORT_HD void cas_lane(KV4& a, int i, KV4& b, int j) { cas(a.k[i], a.v[i], b.k[j], b.v[j]); }
DEPTHSORT_HD void cas_lane(K4& a, int i, K4& b, int j) {
  const std::uint32_t x = a.k[i], y = b.k[j];
  a.k[i] = x < y ? x : y;
  b.k[j] = x < y ? y : x;
}

// sortElements of Section 4: r = (r.xyzw > r.yxwz) ? r.yyww : r.xxzz; then .zwxy; then .xzyw.
template <class V>
DEPTHSORT_HD void sort_elements(V& r) {
  cas_lane(r, 0, r, 1);
  cas_lane(r, 2, r, 3);
  cas_lane(r, 0, r, 2);
  cas_lane(r, 1, r, 3);
  cas_lane(r, 1, r, 2);
}

// Fig. 1: a, b sorted -> a = lowest four (sorted), b = highest four (sorted).
template <class V>
DEPTHSORT_HD void merge_step(V& a, V& b) {
  cas_lane(a, 0, b, 3);
  cas_lane(a, 1, b, 2);
  cas_lane(a, 2, b, 1);
  cas_lane(a, 3, b, 0);
  sort_elements(a);
  sort_elements(b);
}

// Merge path (co-rank) of kernels/sort/primitives/merge_path.hpp: where a merge-path tile starts.
using primitives::co_rank;

// Lane j of a vector from the buffer position i: load(i, key, value) for pairs, load(i, key) for
// single words; and the high sentinel.
template <class Loader>
DEPTHSORT_HD void load_lane(const Loader& load, std::uint32_t i, KV4& r, int j) {
  load(i, r.k[j], r.v[j]);
}
template <class Loader>
DEPTHSORT_HD void load_lane(const Loader& load, std::uint32_t i, K4& r, int j) {
  load(i, r.k[j]);
}
DEPTHSORT_HD void set_sentinel(KV4& r, int j) {
  r.k[j] = kSentinelHigh;
  r.v[j] = 0;
}
DEPTHSORT_HD void set_sentinel(K4& r, int j) { r.k[j] = kSentinelHigh; }

// Four consecutive elements from [pos, end) of a buffer; positions at or past end read as sentinels.
template <class V, class Loader>
DEPTHSORT_HD V load_vector(const Loader& load, std::uint32_t pos, std::uint32_t end) {
  V r;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < 4; ++j) {
    if (pos + j < end)
      load_lane(load, pos + j, r, j);
    else
      set_sentinel(r, j);
  }
  return r;
}

// Fig. 3 for one thread: merges the sorted ranges [a_pos, a_end) and [b_pos, b_end) and hands
// out_vectors sorted vectors to store(o, vector). The ranges must hold exactly 4*out_vectors pairs
// (a last partial vector is padded with sentinels, which the caller does not store), and every
// key in them must be below kSentinelHigh.
template <class V = KV4, class Loader, class Store>
DEPTHSORT_HD void merge_tile(const Loader& load, const Store& store, std::uint32_t a_pos, std::uint32_t a_end,
                             std::uint32_t b_pos, std::uint32_t b_end, int out_vectors) {
  V a = load_vector<V>(load, a_pos, a_end);
  V b = load_vector<V>(load, b_pos, b_end);
  a_pos += 4;
  b_pos += 4;
  // The heads of the two inputs (nextA.x, nextB.x of Fig. 3) are kept in registers: one shared
  // read per fetched vector instead of two.
  auto head = [&load](std::uint32_t pos, std::uint32_t end) {
    V h;
    h.k[0] = kSentinelHigh;
    if (pos < end) load_lane(load, pos, h, 0);
    return h.k[0];
  };
  std::uint32_t head_a = head(a_pos, a_end), head_b = head(b_pos, b_end);
  for (int o = 0; o < out_vectors; ++o) {
    merge_step(a, b);
    store(o, a);
    if (o + 1 == out_vectors) break;
    a = b;
    // The next vector comes from the input whose head is lower (nextA.x < nextB.x in Fig. 3).
    const bool take_a = head_a < head_b;
    const std::uint32_t pos = take_a ? a_pos : b_pos;
    const std::uint32_t end = take_a ? a_end : b_end;
    b = load_vector<V>(load, pos, end);
    const std::uint32_t next = head(pos + 4, end);
    if (take_a) {
      a_pos += 4;
      head_a = next;
    } else {
      b_pos += 4;
      head_b = next;
    }
  }
}

// The first merge pass of one thread's 8 pairs, in registers: sortElements on each of the two
// vectors, then the two-vector merge of Fig. 1 (a run of 8).
template <class V>
DEPTHSORT_HD void sort8(V& v0, V& v1) {
  sort_elements(v0);
  sort_elements(v1);
  merge_step(v0, v1);
}

// The first two merge passes of one thread's 16 pairs, in registers: sortElements on each of the
// four vectors, merge them two and two (runs of 8), then merge the two runs of 8 (Fig. 3 with two
// vectors per input, the fetch decided by comparing heads as in the paper).
template <class V>
DEPTHSORT_HD void sort16(V& v0, V& v1, V& v2, V& v3) {
  sort_elements(v0);
  sort_elements(v1);
  sort_elements(v2);
  sort_elements(v3);
  merge_step(v0, v1);  // run A = v0 v1
  merge_step(v2, v3);  // run B = v2 v3
  V a = v0, b = v2;
  merge_step(a, b);
  const V out0 = a;
  a = b;
  const bool take_a = v1.k[0] < v3.k[0];
  V next = take_a ? v1 : v3;
  const V last = take_a ? v3 : v1;
  merge_step(a, next);
  const V out1 = a;
  a = next;
  V tail = last;
  merge_step(a, tail);
  v0 = out0;
  v1 = out1;
  v2 = a;
  v3 = tail;
}

}  // namespace depthsort::hybrid
