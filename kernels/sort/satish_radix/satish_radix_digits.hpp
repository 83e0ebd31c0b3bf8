// Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs" (IPDPS 2009),
// Section III: the per-thread arithmetic of the radix sort, kept __host__ __device__ so the CPU tests
// check the very code the kernels run (digit extraction, the pass plan, the rank of a 1-bit split).
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"

namespace depthsort::satish_radix {

inline constexpr int kKeyBits = 32;

// Passes of b-bit digits over a 32-bit key: the last takes what is left (b = 5: 6 x 5 bits + 2).
DEPTHSORT_HD int pass_count(int digit_bits) { return (kKeyBits + digit_bits - 1) / digit_bits; }
DEPTHSORT_HD int pass_shift(int pass, int digit_bits) { return pass * digit_bits; }
DEPTHSORT_HD int pass_bits(int pass, int digit_bits) {
  const int left = kKeyBits - pass * digit_bits;
  return left < digit_bits ? left : digit_bits;
}

// The radix-2^bits digit of an ordered key starting at bit `shift` (bits in 1..31).
DEPTHSORT_HD std::uint32_t digit_of(std::uint32_t key, int shift, int bits) {
  return (key >> shift) & ((1u << bits) - 1u);
}

// Where an item lands in a stable 1-bit split of a tile (Blelloch's "split"): items whose bit is 0
// first, in their order, then items whose bit is 1, in theirs. `zeros_before` counts the 0-bit items
// at positions before `pos` (the exclusive scan of the 0-flags), `total_zeros` those of the tile.
DEPTHSORT_HD std::uint32_t split_rank(std::uint32_t bit, std::uint32_t pos, std::uint32_t zeros_before,
                                      std::uint32_t total_zeros) {
  return bit ? total_zeros + (pos - zeros_before) : zeros_before;
}

// The tile position of item i (of `items`) of a thread of a 256-thread block during the splits.
// Blocked: a thread's items consecutive, the order CUB's BlockScan ranks them in. Warp-striped:
// item i of the 32 lanes of a warp side by side, so a warp's writes of one split land close.
DEPTHSORT_HD std::uint32_t blocked_position(std::uint32_t thread, int i, int items) {
  return thread * items + static_cast<std::uint32_t>(i);
}
DEPTHSORT_HD std::uint32_t striped_position(std::uint32_t thread, int i, int items) {
  return (thread / 32u) * (32u * items) + static_cast<std::uint32_t>(i) * 32u + thread % 32u;
}

}  // namespace depthsort::satish_radix
