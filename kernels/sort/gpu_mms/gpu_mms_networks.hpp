// Karsin, Weichert, Casanova, Iacono, Sitchinava, "Analysis-driven Engineering of Comparison-based
// Sorting Algorithms on GPUs" (ICS 2018), Section 5.1: the per-lane pieces of GPU-MMS, as
// __host__ __device__ functions so that tests/cpu/test_gpu_mms_networks.cpp checks on the CPU exactly
// what the kernels (gpu_mms_kernels.cuh) run per lane.
//
//  - compare_exchange: one comparator of the bitonic network of the base case (w^2 = 1024 elements
//    per warp, Section 5.1 "Increased base case"), ascending or descending.
//  - split_low_high + half_cleaner_keep: "merging in registers": two sorted w-lists a, b, lane i
//    holding a[i] and b[w-1-i], are merged by a min/max network across lanes (the paper's __shfl(),
//    min(), max()): lane i keeps min and max of (a[i], b[w-1-i]) -- the w smallest and the w
//    largest, each a bitonic sequence across lanes -- then log w half-cleaner steps sort each.
//  - tile_slot: the XOR swizzle of the base case's 32x32 transposes (bank-conflict free).
//  - count_before / kway_partition: the K binary searches that split K sorted lists at an output
//    rank (Section 4.2 and 5, after Hayashi et al.), in a total order that breaks ties by list.
//
// Every selection moves a whole element on ONE predicate, so elements that compare equal but differ
// in bits (pairs with equal keys) are never duplicated or lost.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::gpu_mms {

// A comparator that declares `using total_order = void;` promises that elements
// comparing equal are bitwise equal (the packed float pairs): then which of two equal elements a
// lane keeps cannot matter, and each comparator needs one predicate and no tie care.
template <class Less>
inline constexpr bool kTotal = requires {
  typename Less::total_order;
};

inline constexpr int kW = 32;              // w: one warp, one heap node, one leaf block
inline constexpr int kBaseCase = kW * kW;  // w^2 elements sorted per warp by the base case

// Comparator of a bitonic network: afterwards a <= b when ascending, b <= a otherwise.
template <class T, class Less>
DEPTHSORT_HD void compare_exchange(T& a, T& b, bool ascending, Less less) {
  bool swap;
  if constexpr (kTotal<Less>)
    swap = less(b, a) == ascending;
  else
    swap = ascending ? less(b, a) : less(a, b);
  const T first = swap ? b : a;
  const T second = swap ? a : b;
  a = first;
  b = second;
}

// Direction of the comparator of element index e in bitonic stage k (k = 2, 4, ..., w^2).
DEPTHSORT_HD bool bitonic_ascending(std::uint32_t e, std::uint32_t k) { return (e & k) == 0; }

// First step of merging sorted a and b across the lanes: lane i holds a[i] and b[w-1-i]; low gets
// the smaller, high the larger (low over all lanes = the w smallest of a and b, bitonic; high = the
// w largest, bitonic).
template <class T, class Less>
DEPTHSORT_HD void split_low_high(T a, T b_reversed, T& low, T& high, Less less) {
  const bool swap = less(b_reversed, a);
  low = swap ? b_reversed : a;
  high = swap ? a : b_reversed;
}

// One half-cleaner step at distance d across lanes: the lane whose bit d is clear keeps the min of
// its and its partner's element, the other the max. Both lanes evaluate the same predicate on the
// same (lower-lane, upper-lane) pair, so the two decisions always agree.
template <class T, class Less>
DEPTHSORT_HD T half_cleaner_keep(T own, T partner, bool upper_lane, Less less) {
  if constexpr (kTotal<Less>) return less(partner, own) != upper_lane ? partner : own;
  const T lower = upper_lane ? partner : own;
  const T higher = upper_lane ? own : partner;
  const bool swap = less(higher, lower);
  if (upper_lane) return swap ? lower : higher;
  return swap ? higher : lower;
}

// The slot of element (row, col) of a 32x32 tile in shared memory: XOR-swizzled so that a warp
// writing or reading one row (lane = col) or one column (lane = row) touches 32 distinct slots
// that spread evenly over the banks (for 4- and 8-byte elements).
DEPTHSORT_HD std::uint32_t tile_slot(std::uint32_t row, std::uint32_t col) { return row * kW + (col ^ row); }

// Number of elements of sorted list[lo, hi) that come before x in the total order (element, list):
// x is from another list; inclusive (x's list is later than this one) counts elements equal to x too.
template <class T, class Get, class Less>
DEPTHSORT_HD std::uint32_t count_before(Get get, std::uint32_t lo, std::uint32_t hi, const T& x, bool inclusive,
                                        Less less) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const T y = get(mid);
    const bool before = inclusive ? !less(x, y) : less(y, x);
    if (before)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Window update of the partition search after counting the elements before pivot x (list j, index
// m): if fewer than p elements come before x, x is among the p smallest and every list's boundary
// lies at or after its count (after x itself in list j); otherwise at or before it.
DEPTHSORT_HD void narrow_window(std::uint32_t& lo, std::uint32_t& hi, std::uint32_t count, bool pivot_list,
                                std::uint32_t m, bool below_p) {
  if (below_p)
    lo = pivot_list ? m + 1 : count;
  else
    hi = pivot_list ? m : count;
}

// Serial form of the partition kernel (one lane per list there): boundaries s[0..k) with
// sum s = p such that list i's first s[i] elements are exactly its share of the p smallest of all
// k lists. get(i, j) reads element j of list i, len[i] its length. The pivot is the middle element
// of the widest window, so a window shrinks every step and the loop ends.
template <class T, class Get, class Less>
void kway_partition(Get get, const std::uint32_t* len, int k, std::uint32_t p, std::uint32_t* s, Less less) {
  std::uint32_t lo[32], hi[32], total = 0;
  for (int i = 0; i < k; ++i) total += len[i];
  for (int i = 0; i < k; ++i) {
    lo[i] = p > total - len[i] ? p - (total - len[i]) : 0;
    hi[i] = len[i] < p ? len[i] : p;
  }
  for (;;) {
    int j = 0;
    for (int i = 1; i < k; ++i)
      if (hi[i] - lo[i] > hi[j] - lo[j]) j = i;
    if (hi[j] == lo[j]) break;
    const std::uint32_t m = lo[j] + (hi[j] - lo[j]) / 2;
    const T x = get(j, m);
    std::uint32_t count[32], sum = 0;
    for (int i = 0; i < k; ++i) {
      count[i] = i == j ? m : count_before<T>([&](std::uint32_t q) { return get(i, q); }, lo[i], hi[i], x, i < j, less);
      sum += count[i];
    }
    for (int i = 0; i < k; ++i) narrow_window(lo[i], hi[i], count[i], i == j, m, sum < p);
  }
  for (int i = 0; i < k; ++i) s[i] = lo[i];
}

}  // namespace depthsort::gpu_mms
