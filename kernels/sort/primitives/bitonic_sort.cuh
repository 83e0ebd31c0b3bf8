// Batcher's bitonic sort (AFIPS 1968) as the block-level building block of the sample sorts:
// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (2010), Section 4, sort every sublist
// and every bucket with it in shared memory. Generic: any paper that sorts a tile of (key, value)
// pairs in depthsort's key order can take it.
//
// A pair travels as one 64-bit word: the ordered-uint32 key (keys.hpp) in the high half, the value
// (or a tie-breaking index) in the low half, so one unsigned compare orders by key and breaks ties
// by the low half, and a compare-exchange moves key and value together.
//
// The network is the standard one: stage k = 2, 4, ..., P; inside it steps j = k/2, ..., 1 pair
// index i (bit j clear) with i + j, ascending where bit k of i is clear. Three consecutive steps
// of a stage touch only the 8 indices that differ in three consecutive bits, so one thread loads
// those 8 words into registers, runs the three steps there and stores them back: one shared-memory
// round trip per three steps instead of per step. The per-group network is __host__ __device__, so
// the CPU tests run exactly what the kernels run.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define DEPTHSORT_BITONIC_HD __host__ __device__ __forceinline__
#else
#define DEPTHSORT_BITONIC_HD inline
#endif

namespace depthsort::primitives::bitonic {

// Key (ordered uint32) in the high half, value in the low half.
DEPTHSORT_BITONIC_HD std::uint64_t pack(std::uint32_t ordered_key, std::uint32_t value) {
  return (static_cast<std::uint64_t>(ordered_key) << 32) | value;
}
DEPTHSORT_BITONIC_HD std::uint32_t key_of(std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); }
DEPTHSORT_BITONIC_HD std::uint32_t value_of(std::uint64_t word) { return static_cast<std::uint32_t>(word); }

// "a before b": by the whole word (key, then the low half), or by the key alone (KeyOnly: the
// bucket sort of step 9, where ties may end in any order and a chunk sorted by key alone joins in).
template <bool KeyOnly = false>
DEPTHSORT_BITONIC_HD bool word_less(std::uint64_t a, std::uint64_t b) {
  return KeyOnly ? key_of(a) < key_of(b) : a < b;
}

// The one comparator: after it, a <= b when ascending, a >= b otherwise; equal words stay put.
template <bool KeyOnly = false>
DEPTHSORT_BITONIC_HD void compare_exchange(std::uint64_t& a, std::uint64_t& b, bool ascending) {
  const bool swap = ascending ? word_less<KeyOnly>(b, a) : word_less<KeyOnly>(a, b);
  const std::uint64_t first = swap ? b : a;
  const std::uint64_t second = swap ? a : b;
  a = first;
  b = second;
}

// The first index of group g when groups are the 2^bits indices differing in bits [low, low + bits).
DEPTHSORT_BITONIC_HD std::uint32_t group_base(std::uint32_t g, int low, int bits) {
  const std::uint32_t below = g & ((1u << low) - 1u);
  return ((g >> low) << (low + bits)) | below;
}

// Shared-memory index of element i: one word of padding every 16 words, so the strided groups of
// the low bits spread over the banks (64-bit words take two banks each).
DEPTHSORT_BITONIC_HD std::uint32_t padded(std::uint32_t i) { return i + (i >> 4); }
DEPTHSORT_BITONIC_HD std::uint32_t padded_size(std::uint32_t n) { return n + (n >> 4) + 1; }

// Steps j = 2^(low+BITS-1), ..., 2^low of stage k on one group of 2^BITS words in registers.
template <int BITS, bool KeyOnly = false>
DEPTHSORT_BITONIC_HD void group_steps(std::uint64_t (&v)[1 << BITS], bool ascending) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int t = BITS - 1; t >= 0; --t) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int e = 0; e < (1 << BITS); ++e)
      if ((e & (1 << t)) == 0) compare_exchange<KeyOnly>(v[e], v[e | (1 << t)], ascending);
  }
}

// Loads group g of data (addressed through Index), runs the steps of bits [low, low + BITS) of
// stage k, stores it back. Index maps a logical index to a storage index (padded or identity).
template <int BITS, bool KeyOnly = false, class Index>
DEPTHSORT_BITONIC_HD void group_round(std::uint64_t* data, std::uint32_t g, int low, std::uint32_t k, Index index) {
  const std::uint32_t base = group_base(g, low, BITS);
  std::uint64_t v[1 << BITS];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int e = 0; e < (1 << BITS); ++e) v[e] = data[index(base | (static_cast<std::uint32_t>(e) << low))];
  group_steps<BITS, KeyOnly>(v, (base & k) == 0);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int e = 0; e < (1 << BITS); ++e) data[index(base | (static_cast<std::uint32_t>(e) << low))] = v[e];
}

// The rounds of a whole bitonic sort of P = 2^logP words, as (k, low, bits) triples in order:
// calls round(k, low, bits) for each. Steps from `first_k` on (the chunk sort starts at 2; the
// merge of a bitonic-split chunk runs only its last stage's low steps: see below).
template <class Round>
DEPTHSORT_BITONIC_HD void for_each_round(std::uint32_t P, Round round) {
  for (std::uint32_t k = 2; k <= P; k <<= 1) {
    int high = 0;  // log2(k / 2): the highest bit of this stage's steps
    while ((2u << high) < k) ++high;
    for (int top = high; top >= 0; top -= 3) {
      const int bits = top + 1 < 3 ? top + 1 : 3;
      round(k, top - bits + 1, bits);
    }
  }
}

// Half-cleaner steps j = 2^high, ..., 1 of one ascending stage (a bitonic merge): the rounds of
// the chunk merge in the global path, where the larger steps ran in global memory.
template <class Round>
DEPTHSORT_BITONIC_HD void for_each_merge_round(int high, Round round) {
  for (int top = high; top >= 0; top -= 3) {
    const int bits = top + 1 < 3 ? top + 1 : 3;
    round(top - bits + 1, bits);
  }
}

struct PaddedIndex {
  DEPTHSORT_BITONIC_HD std::uint32_t operator()(std::uint32_t i) const { return padded(i); }
};
struct IdentityIndex {
  DEPTHSORT_BITONIC_HD std::uint32_t operator()(std::uint32_t i) const { return i; }
};

// One round on every group, by whoever runs it (a block's threads, or a CPU loop).
template <bool KeyOnly = false, class Index>
DEPTHSORT_BITONIC_HD void run_round(std::uint64_t* data, std::uint32_t g, int low, int bits, std::uint32_t k,
                                    Index index) {
  if (bits == 3)
    group_round<3, KeyOnly>(data, g, low, k, index);
  else if (bits == 2)
    group_round<2, KeyOnly>(data, g, low, k, index);
  else
    group_round<1, KeyOnly>(data, g, low, k, index);
}

#if defined(__CUDACC__)
// Sorts smem[0, P) ascending (stored through padded()), P a power of two >= 8, by the whole block.
// Ends with a __syncthreads.
template <bool KeyOnly = false>
__device__ __forceinline__ void block_sort(std::uint64_t* smem, std::uint32_t P) {
  for_each_round(P, [&](std::uint32_t k, int low, int bits) {
    const std::uint32_t groups = P >> bits;
    for (std::uint32_t g = threadIdx.x; g < groups; g += blockDim.x)
      run_round<KeyOnly>(smem, g, low, bits, k, PaddedIndex{});
    __syncthreads();
  });
}

// The ascending half-cleaners j = 2^high, ..., 1 over smem[0, P): merges a chunk whose larger
// steps ran elsewhere. Ends with a __syncthreads.
template <bool KeyOnly = false>
__device__ __forceinline__ void block_merge(std::uint64_t* smem, std::uint32_t P, int high) {
  for_each_merge_round(high, [&](int low, int bits) {
    const std::uint32_t groups = P >> bits;
    // k = 2P: every index of the chunk has that bit clear, so every group ascends.
    for (std::uint32_t g = threadIdx.x; g < groups; g += blockDim.x)
      run_round<KeyOnly>(smem, g, low, bits, 2 * P, PaddedIndex{});
    __syncthreads();
  });
}
#endif

}  // namespace depthsort::primitives::bitonic
