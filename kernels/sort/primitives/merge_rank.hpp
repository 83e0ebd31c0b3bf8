// Merging two sorted runs by rank: each element finds its output place on its own, as its index
// in its run plus its rank in the other (the number of the other's keys below it, or up to it for
// the second run, so that ties keep the first run first). Used by bucket-sort's on-chip bucket
// sort (option onchip) and by satish-merge's split points; __host__ __device__ so that the CPU
// tests check what the kernels run.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::primitives {

// Binary search over the sorted range [lo, hi) read through key_at(i): lo plus the number of its
// keys below `key` (Inclusive: at or below it). The rank every merge by rank is built from; the
// tie rule (the first run's keys count the second's strictly below them, the second's those at or
// below) keeps the first run first among equal keys.
template <bool Inclusive, class KeyAt>
DEPTHSORT_HD std::uint32_t rank_in(const KeyAt& key_at, std::uint32_t lo, std::uint32_t hi, std::uint32_t key) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::uint32_t k = key_at(mid);
    if (Inclusive ? k <= key : k < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The number of keys of sorted[0, count) below key (Inclusive: up to and including key).
template <bool Inclusive>
DEPTHSORT_HD std::uint32_t rank_in(const std::uint32_t* sorted, std::uint32_t count, std::uint32_t key) {
  return rank_in<Inclusive>([sorted](std::uint32_t i) { return sorted[i]; }, 0, count, key);
}

// Output place of element i of the first run (key) and of element j of the second, the other
// run being `other` of `count` keys.
DEPTHSORT_HD std::uint32_t place_of_first(std::uint32_t i, std::uint32_t key, const std::uint32_t* other,
                                          std::uint32_t count) {
  return i + rank_in<false>(other, count, key);
}
DEPTHSORT_HD std::uint32_t place_of_second(std::uint32_t j, std::uint32_t key, const std::uint32_t* other,
                                           std::uint32_t count) {
  return j + rank_in<true>(other, count, key);
}

}  // namespace depthsort::primitives
