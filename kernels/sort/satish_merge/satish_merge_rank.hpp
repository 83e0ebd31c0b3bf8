// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS
// 2009), Section IV-A "Parallel Merging": the ranks the merge of two sorted runs A and B is built
// from, as __host__ __device__ functions over a key accessor, so the kernels and the CPU tests
// (tests/cpu/test_satish_merge_split.cpp) run the same code.
//
// Ties (primitives::rank_in): an element of A goes before equal elements of B (A's elements count
// the B keys strictly below them, B's the A keys at or below them). That makes the merge a
// well-defined permutation: every output position is taken exactly once, and the split points
// below are points of that one merge, so their order in S is their order along the output.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/merge_rank.hpp"

namespace depthsort::satish_merge {

// A point of the merge: the first a elements of A and the first b of B come before it.
struct SplitPoint {
  std::uint32_t a;
  std::uint32_t b;
};

// The split point of splitter i of one run (its element i*t), and its position in the merged
// splitter set S = merge(SA, SB).
//  - rank in the other splitter set: binary search over the other run's every t-th key (the
//    nested merge of SA and SB, by the same rank rule as the tiles; rank(s, S) = i + that rank);
//  - rank in the other run: binary search inside the t-element window those splitters bracket.
// own(i) / other(i) read the keys of the splitter's run and of the other run; other_len may be 0.
template <bool from_b, class OwnKeyAt, class OtherKeyAt>
DEPTHSORT_HD SplitPoint splitter_point(const OwnKeyAt& own, const OtherKeyAt& other, std::uint32_t other_len,
                                       std::uint32_t t, std::uint32_t i, std::uint32_t* slot_in_s) {
  const std::uint32_t key = own(i * t);
  const std::uint32_t other_splitters = (other_len + t - 1) / t;
  const std::uint32_t r =
      primitives::rank_in<from_b>([&](std::uint32_t j) { return other(j * t); }, 0, other_splitters, key);
  *slot_in_s = i + r;
  // Splitters r-1 and r of the other run bracket the key: its rank there is in ((r-1)t, rt].
  const std::uint32_t lo = r == 0 ? 0 : (r - 1) * t + 1;
  const std::uint32_t hi = r * t < other_len ? r * t : other_len;
  const std::uint32_t rank = primitives::rank_in<from_b>(other, lo, hi, key);
  return from_b ? SplitPoint{rank, i * t} : SplitPoint{i * t, rank};
}

}  // namespace depthsort::satish_merge
