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
//    paper) or one merge-path tile of a long merge (many threads per pair, co_rank below).
//
// Keys are the ordered uint32 form of keys.hpp (the one deviation from the paper's float4: the
// project's key order puts -0 before +0 and NaNs at the ends, which float compares cannot give).
// Values travel with their keys: every compare-and-swap moves key and value on ONE predicate. The
// paper's notation evaluates two predicates per pair ("a < b ? a : b" and "b >= a ? b : a"); with
// equal keys both pick the same element, which is harmless for bare floats but duplicates a value
// and drops another for pairs (the CPU test shows that version failing).
#pragma once

#include <cstdint>

#include "depthsort/keys.hpp"

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

// sortElements of Section 4: r = (r.xyzw > r.yxwz) ? r.yyww : r.xxzz; then .zwxy; then .xzyw.
DEPTHSORT_HD void sort_elements(KV4& r) {
  cas(r.k[0], r.v[0], r.k[1], r.v[1]);
  cas(r.k[2], r.v[2], r.k[3], r.v[3]);
  cas(r.k[0], r.v[0], r.k[2], r.v[2]);
  cas(r.k[1], r.v[1], r.k[3], r.v[3]);
  cas(r.k[1], r.v[1], r.k[2], r.v[2]);
}

// Fig. 1: a, b sorted -> a = lowest four (sorted), b = highest four (sorted).
DEPTHSORT_HD void merge_step(KV4& a, KV4& b) {
  cas(a.k[0], a.v[0], b.k[3], b.v[3]);
  cas(a.k[1], a.v[1], b.k[2], b.v[2]);
  cas(a.k[2], a.v[2], b.k[1], b.v[1]);
  cas(a.k[3], a.v[3], b.k[0], b.v[0]);
  sort_elements(a);
  sort_elements(b);
}

// Merge path: how many of the first d outputs of merge(A, B) come from A (ties: A first).
// key(i) reads the key at absolute index i; A = [a0, a0+na), B = [b0, b0+nb).
template <class KeyAt>
DEPTHSORT_HD std::uint32_t co_rank(std::uint32_t d, std::uint32_t a0, std::uint32_t na, std::uint32_t b0,
                                   std::uint32_t nb, const KeyAt& key) {
  std::uint32_t lo = d > nb ? d - nb : 0;
  std::uint32_t hi = d < na ? d : na;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (key(a0 + mid) <= key(b0 + d - mid - 1))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Four consecutive pairs from [pos, end) of a buffer; positions at or past end read as sentinels.
template <class Loader>
DEPTHSORT_HD KV4 load_vector(const Loader& load, std::uint32_t pos, std::uint32_t end) {
  KV4 r;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < 4; ++j) {
    if (pos + j < end) {
      load(pos + j, r.k[j], r.v[j]);
    } else {
      r.k[j] = kSentinelHigh;
      r.v[j] = 0;
    }
  }
  return r;
}

// Fig. 3 for one thread: merges the sorted ranges [a_pos, a_end) and [b_pos, b_end) and hands
// out_vectors sorted vectors to store(o, vector). The ranges must hold exactly 4*out_vectors pairs
// (a last partial vector is padded with sentinels, which the caller does not store), and every
// key in them must be below kSentinelHigh.
template <class Loader, class Store>
DEPTHSORT_HD void merge_tile(const Loader& load, const Store& store, std::uint32_t a_pos, std::uint32_t a_end,
                             std::uint32_t b_pos, std::uint32_t b_end, int out_vectors) {
  KV4 a = load_vector(load, a_pos, a_end);
  KV4 b = load_vector(load, b_pos, b_end);
  a_pos += 4;
  b_pos += 4;
  for (int o = 0; o < out_vectors; ++o) {
    merge_step(a, b);
    store(o, a);
    if (o + 1 == out_vectors) break;
    a = b;
    // The next vector comes from the input whose head is lower (nextA.x < nextB.x in Fig. 3).
    std::uint32_t head_a = kSentinelHigh, head_b = kSentinelHigh, scratch = 0;
    if (a_pos < a_end) load(a_pos, head_a, scratch);
    if (b_pos < b_end) load(b_pos, head_b, scratch);
    const bool take_a = head_a < head_b;
    const std::uint32_t pos = take_a ? a_pos : b_pos;
    const std::uint32_t end = take_a ? a_end : b_end;
    b = load_vector(load, pos, end);
    if (take_a)
      a_pos += 4;
    else
      b_pos += 4;
  }
}

// The first two merge passes of one thread's 16 pairs, in registers: sortElements on each of the
// four vectors, merge them two and two (runs of 8), then merge the two runs of 8 (Fig. 3 with two
// vectors per input, the fetch decided by comparing heads as in the paper).
DEPTHSORT_HD void sort16(KV4& v0, KV4& v1, KV4& v2, KV4& v3) {
  sort_elements(v0);
  sort_elements(v1);
  sort_elements(v2);
  sort_elements(v3);
  merge_step(v0, v1);  // run A = v0 v1
  merge_step(v2, v3);  // run B = v2 v3
  KV4 a = v0, b = v2;
  merge_step(a, b);
  const KV4 out0 = a;
  a = b;
  const bool take_a = v1.k[0] < v3.k[0];
  KV4 next = take_a ? v1 : v3;
  const KV4 last = take_a ? v3 : v1;
  merge_step(a, next);
  const KV4 out1 = a;
  a = next;
  KV4 tail = last;
  merge_step(a, tail);
  v0 = out0;
  v1 = out1;
  v2 = a;
  v3 = tail;
}

}  // namespace depthsort::hybrid
