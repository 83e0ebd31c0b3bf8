// Where run-bucket's sample takes its keys (docs/algorithms/run-bucket.md): one key from each of m
// equal strides of the input, at a place in its stride drawn by a hash of the stride's index. A
// fixed place would see only one phase of a periodic input (a mesh's rings of 32 vertices, with
// strides a multiple of 32 long). Shared by the sample kernel and the tests that build inputs the
// sample misjudges.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"

namespace depthsort::run_bucket {

// The input position of sample j of m, for n >= m inputs.
DEPTHSORT_HD std::uint64_t sample_position(std::uint32_t j, std::uint32_t n, std::uint32_t m) {
  const std::uint64_t first = static_cast<std::uint64_t>(j) * n / m;
  const std::uint64_t length = static_cast<std::uint64_t>(j + 1) * n / m - first;  // >= 1: m <= n
  std::uint32_t h = j * 0x9E3779B9u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return first + h % length;
}

}  // namespace depthsort::run_bucket
