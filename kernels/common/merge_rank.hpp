// Merging two sorted runs by rank: each element finds its output place on its own, as its index
// in its run plus its rank in the other (the number of the other's keys below it, or up to it for
// the second run, so that ties keep the first run first). The one-block merge of bucket-sort's
// on-chip bucket sort (kernels/sort/bucket_sort/, option onchip); __host__ __device__ so that the
// CPU tests check what the kernel runs.
#pragma once

#include <cstdint>

#include "depthsort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::merge_rank {

// The number of keys of sorted[0, count) below key (Inclusive: up to and including key).
template <bool Inclusive>
DEPTHSORT_HD std::uint32_t rank_in(const std::uint32_t* sorted, std::uint32_t count, std::uint32_t key) {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (Inclusive ? sorted[mid] <= key : sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
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

}  // namespace depthsort::merge_rank
