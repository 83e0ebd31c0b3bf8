// Merge path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple",
// IPDPSW 2012; the co-rank formulation): where output position d of merge(A, B) splits A and B, so
// that many threads (or blocks) can each merge one slice of a long merge independently. Shared by
// the sorters' merge steps (first user: the hybrid sort's vector-mergesort, kernels/sort/hybrid/).
// __host__ __device__ so that CPU tests check the code the kernels run.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::primitives {

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

}  // namespace depthsort::primitives
