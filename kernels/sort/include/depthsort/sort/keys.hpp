// The one key order of depthsort, shared by every sorter, the CPU path and the tests.
//
// Keys are 32-bit floats ordered by the order-preserving unsigned transform of their bits
// (sign bit flipped for non-negative floats, all bits flipped for negative ones), which is the
// order CUB uses for float keys and a total order:
//   -NaN < -inf < ... < -denormal < -0.0 < +0.0 < +denormal < ... < +inf < +NaN
#pragma once

#include <bit>
#include <cstdint>

#if defined(__CUDACC__)
#define DEPTHSORT_HD __host__ __device__ __forceinline__
#else
#define DEPTHSORT_HD inline
#endif

namespace depthsort {

// float bits -> unsigned integer whose unsigned order is the key order.
DEPTHSORT_HD std::uint32_t ordered_bits_from_float_bits(std::uint32_t bits) {
  const std::uint32_t mask = (bits & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
  return bits ^ mask;
}

// Inverse of ordered_bits_from_float_bits.
DEPTHSORT_HD std::uint32_t float_bits_from_ordered_bits(std::uint32_t ordered) {
  const std::uint32_t mask = (ordered & 0x80000000u) ? 0x80000000u : 0xFFFFFFFFu;
  return ordered ^ mask;
}

#if defined(__CUDA_ARCH__)
__device__ __forceinline__ std::uint32_t ordered_key(float key) {
  return ordered_bits_from_float_bits(__float_as_uint(key));
}
__device__ __forceinline__ float key_from_ordered(std::uint32_t ordered) {
  return __uint_as_float(float_bits_from_ordered_bits(ordered));
}
#else
inline std::uint32_t ordered_key(float key) { return ordered_bits_from_float_bits(std::bit_cast<std::uint32_t>(key)); }
inline float key_from_ordered(std::uint32_t ordered) {
  return std::bit_cast<float>(float_bits_from_ordered_bits(ordered));
}
#endif

// The ordered bits of the two zeros: -0.0 comes just before +0.0.
inline constexpr std::uint32_t kOrderedMinusZero = 0x7FFFFFFFu;
inline constexpr std::uint32_t kOrderedPlusZero = 0x80000000u;

// Strict "a before b" in the key order.
DEPTHSORT_HD bool key_less(float a, float b) { return ordered_key(a) < ordered_key(b); }

}  // namespace depthsort
