// Batcher, "Sorting networks and their applications" (AFIPS 1968): the odd-even merge sort
// network, as a compare-exchange schedule that a thread (or a CPU test) walks one stage at a time.
// Satish, Harris & Garland (IPDPS 2009), Section IV, sort each t-element tile with it in shared
// memory (they found it 5-10% faster than bitonic sort); kernels/sort/satish_merge uses it so.
//
// The network on m = 2^q inputs has q(q+1)/2 stages (p, k): p = 1, 2, 4, ..., m/2 and, for each,
// k = p, p/2, ..., 1. In stage (p, k) element x is compared with x + k (the smaller key goes to x)
// when x is the lower end of a comparator: x >= k mod p, (x - k mod p) mod 2k < k, and x and x + k
// lie in the same block of 2p elements. Every stage's comparators are disjoint, so all of them
// run in parallel between two barriers.
//
// Fewer than m keys (a last, partial tile): treat the missing ones as +infinity at the end. A
// comparator whose upper end is missing never swaps, so skipping every comparator with x + k >= len
// sorts the first len keys (the CPU test checks this for every len on every 0/1 input).
#pragma once

#if defined(__CUDACC__)
#define DEPTHSORT_OEMS_HD __host__ __device__ __forceinline__
#else
#define DEPTHSORT_OEMS_HD inline
#endif

namespace depthsort::primitives::odd_even {

// The upper end of x's comparator in stage (p, k), or -1 if x is not the lower end of one.
DEPTHSORT_OEMS_HD int partner(int x, int p, int k) {
  const int offset = k & (p - 1);  // k mod p; p is a power of two
  if (x < offset || ((x - offset) & (2 * k - 1)) >= k) return -1;
  const int y = x + k;
  return (x ^ y) < 2 * p ? y : -1;  // same block of 2p: equal above bit log2(2p), no division
}

// The lower end of comparator candidate c (c = 0 .. m/2 - 1) of stage (p, k): the c-th x with
// (x - k mod p) mod 2k < k, counted from k mod p. Its comparator exists when partner(x, p, k) >= 0,
// i.e. x + k < m and x, x + k share their block of 2p; so a thread walks m/2 candidates a stage
// instead of m elements, half of which have nothing to do.
DEPTHSORT_OEMS_HD int lower_of(int c, int p, int k) { return (k & (p - 1)) + ((c & ~(k - 1)) << 1) + (c & (k - 1)); }

// Number of stages of the network on m = 2^q keys: q(q+1)/2.
DEPTHSORT_OEMS_HD int stage_count(int m) {
  int q = 0;
  while ((1 << q) < m) ++q;
  return q * (q + 1) / 2;
}

}  // namespace depthsort::primitives::odd_even
