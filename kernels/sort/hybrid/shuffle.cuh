// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 5.1 "Random shuffling" (step `shuffle`, option shuffle=1): the input is shuffled before
// bucketing so that sorted or clustered inputs spread over the buckets; here by a Feistel
// permutation instead of the paper's atomic exchanges (docs/algorithms/hybrid.md, deviation 11).
#pragma once

#include <cstdint>

namespace depthsort::hybrid {

// ---------------------------------------------------------------------------------------------
// Step 8, Section 5.1 "Random shuffling": a gather through a 4-round Feistel permutation of
// [0, 2^(2h)) restricted to [0, n) by cycle walking: a bijection, O(n), no atomics needed.
// ---------------------------------------------------------------------------------------------
struct Feistel {
  std::uint32_t half_bits, mask, n, seed;
  __device__ __forceinline__ static std::uint32_t mix(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
  }
  __device__ __forceinline__ std::uint32_t permute(std::uint32_t x) const {
    std::uint32_t l = x >> half_bits, r = x & mask;
#pragma unroll
    for (std::uint32_t round = 0; round < 4; ++round) {
      const std::uint32_t f = mix(r ^ (seed + round * 0x9E3779B9u)) & mask;
      const std::uint32_t nl = r;
      r = l ^ f;
      l = nl;
    }
    return (l << half_bits) | r;
  }
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t i) const {
    std::uint32_t x = permute(i);
    while (x >= n) x = permute(x);
    return x;
  }
};

__global__ void shuffle_kernel(const float* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                               float* __restrict__ keys_out, std::uint32_t* __restrict__ values_out, std::uint32_t n,
                               Feistel perm) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const std::uint32_t from = perm(i);
    keys_out[i] = keys_in[from];
    values_out[i] = values_in[from];
  }
}

}  // namespace depthsort::hybrid
