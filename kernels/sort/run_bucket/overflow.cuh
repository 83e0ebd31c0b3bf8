// run-bucket's overflowed buckets (docs/algorithms/run-bucket.md; depthsort's own design). Splitters
// from the last frame can leave a bucket with many times its share (a fly-through's frames put
// 30 times 2048 pairs into one or two of 7680 buckets): such a bucket keeps kBucketCapacity pairs
// in its region and the scatter puts the rest in the spill area. After the other buckets are
// sorted, the overflowed buckets' pairs (their regions and the spill area) are gathered, sorted
// together by CUB's radix sort, and written at the overflowed buckets' places in the output: the
// buckets partition the key order, so the sorted set is their concatenation in bucket order.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/run_bucket/run_bucket_kernels.cuh"

namespace depthsort::run_bucket {

// The overflowed buckets' pairs in one place: listed buckets' regions (full: kBucketCapacity
// pairs each), then the spill area's `spilled` pairs. One thread a pair.
__global__ void gather_overflowed_kernel(const std::uint32_t* __restrict__ list, std::uint32_t listed,
                                         const std::uint32_t* __restrict__ bucketed_keys,
                                         const std::uint32_t* __restrict__ bucketed_values,
                                         const std::uint32_t* __restrict__ spill_keys,
                                         const std::uint32_t* __restrict__ spill_values, std::uint32_t spilled,
                                         std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ values) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t in_regions = listed * Policy::kBucketCapacity;
  if (i < in_regions) {
    const std::size_t from =
        std::size_t{list[i / Policy::kBucketCapacity]} * Policy::kBucketCapacity + i % Policy::kBucketCapacity;
    keys[i] = bucketed_keys[from];
    values[i] = bucketed_values[from];
  } else if (i < in_regions + spilled) {
    keys[i] = spill_keys[i - in_regions];
    values[i] = spill_values[i - in_regions];
  }
}

// The sorted set's pair i at its place: the listed buckets in bucket order, each at its start in
// the output (starts: buckets + 1 entries), take the sorted set's pairs one after the other. Each
// block orders the list (at most kMostOverflowedBuckets buckets) in shared memory first.
__global__ void __launch_bounds__(256)
    place_overflowed_kernel(const std::uint32_t* __restrict__ sorted_keys,
                            const std::uint32_t* __restrict__ sorted_values, std::uint32_t pairs,
                            const std::uint32_t* __restrict__ list, std::uint32_t listed,
                            const std::uint32_t* __restrict__ starts, float* __restrict__ keys_out,
                            std::uint32_t* __restrict__ values_out) {
  static_assert(Policy::kMostOverflowedBuckets <= 256);
  __shared__ std::uint32_t ordered[Policy::kMostOverflowedBuckets];  // the listed buckets in bucket order
  __shared__ std::uint32_t first[Policy::kMostOverflowedBuckets];    // each one's first pair in the sorted set
  if (threadIdx.x < listed) {
    const std::uint32_t b = list[threadIdx.x];
    std::uint32_t rank = 0;
    for (std::uint32_t u = 0; u < listed; ++u) rank += list[u] < b;
    ordered[rank] = b;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t sum = 0;
    for (std::uint32_t r = 0; r < listed; ++r) {
      first[r] = sum;
      sum += starts[ordered[r] + 1] - starts[ordered[r]];  // the bucket counts are zeroed by now
    }
  }
  __syncthreads();
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  std::uint32_t r = 0;
  while (r + 1 < listed && first[r + 1] <= i) ++r;
  const std::uint32_t to = starts[ordered[r]] + (i - first[r]);
  keys_out[to] = key_from_ordered(sorted_keys[i]);
  values_out[to] = sorted_values[i];
}

}  // namespace depthsort::run_bucket
