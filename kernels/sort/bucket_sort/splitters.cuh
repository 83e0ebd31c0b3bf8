// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1 steps 5-8: global sampling, sample indexing, the buckets' places (prefix sum) and
// relocation.
// The host side is bucket_sort_sorter.cu; what every kernel shares, bucket_sort_kernels.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/bucket_sort/bucket_sort_kernels.cuh"

namespace depthsort::bucket_sort {

// Step 5: s - 1 equidistant global samples (splitters) of the s*m sorted samples: the last sample
// of every m, so that exactly m samples fall in each bucket (the bound of [15]).
__global__ void global_sampling_kernel(const std::uint64_t* __restrict__ sorted_samples, std::uint32_t m,
                                       std::uint32_t s, std::uint64_t* __restrict__ splitters) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j + 1 < s) splitters[j] = sorted_samples[(j + 1) * m - 1];
}

// Step 6: sublist i in shared memory; the position of every splitter in it by the paper's parallel
// binary search: round t runs 2^t searches, each for the middle splitter between two already
// placed, inside the range they bound (log2 s rounds). Writes the boundaries (row-major, m x s) and
// the bucket sizes a_ij column-major (j*m + i), the order of the prefix sum of Fig. 1. With
// bounds_by_bucket (onchip's gather) the boundaries are column-major too: bucket j reads its m
// piece starts contiguously.
__global__ void __launch_bounds__(kIndexThreads)
    sample_indexing_kernel(const std::uint64_t* __restrict__ sorted, std::uint32_t n, std::uint32_t L, std::uint32_t s,
                           std::uint32_t m, const std::uint64_t* __restrict__ splitters, bool bounds_by_bucket,
                           std::uint32_t* __restrict__ bounds, std::uint32_t* __restrict__ sizes) {
  extern __shared__ std::uint32_t keys_smem[];  // L keys, then s - 1 splitters (as 2 words), s + 1 positions
  std::uint64_t* split = reinterpret_cast<std::uint64_t*>(keys_smem + L);
  std::uint32_t* pos = reinterpret_cast<std::uint32_t*>(split + s);
  const std::uint32_t i = blockIdx.x;
  const std::uint32_t base = i * L;
  const std::uint32_t count = min(L, n - base);
  for (std::uint32_t r = threadIdx.x; r < L; r += blockDim.x)
    keys_smem[r] = r < count ? key_of(sorted[base + r]) : 0xFFFFFFFFu;
  for (std::uint32_t j = threadIdx.x; j + 1 < s; j += blockDim.x) split[j] = splitters[j];
  if (threadIdx.x == 0) {
    pos[0] = 0;
    pos[s] = L;
  }
  __syncthreads();
  for (std::uint32_t half = s / 2; half >= 1; half /= 2) {
    const std::uint32_t searches = s / (2 * half);
    for (std::uint32_t t = threadIdx.x; t < searches; t += blockDim.x) {
      const std::uint32_t idx = half * (2 * t + 1);  // boundary idx: pairs <= splitter idx - 1
      const std::uint64_t g = split[idx - 1];
      std::uint32_t lo = pos[idx - half], hi = pos[idx + half];
      while (lo < hi) {  // first r with (key_r, base + r) > g
        const std::uint32_t mid = (lo + hi) / 2;
        if (pack(keys_smem[mid], base + mid) <= g)
          lo = mid + 1;
        else
          hi = mid;
      }
      pos[idx] = lo;
    }
    __syncthreads();
  }
  for (std::uint32_t j = threadIdx.x; j < s; j += blockDim.x) {
    const std::uint32_t b0 = min(pos[j], count), b1 = min(pos[j + 1], count);
    bounds[bounds_by_bucket ? j * m + i : i * s + j] = b0;
    sizes[j * m + i] = b1 - b0;
  }
}

// Step 7's last part: bucket j starts at the prefix sum of column j's first entry.
__global__ void bucket_begin_kernel(const std::uint32_t* __restrict__ offsets, std::uint32_t m, std::uint32_t s,
                                    std::uint32_t n, std::uint32_t* __restrict__ begin) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < s) begin[j] = offsets[j * m];
  if (j == s) begin[s] = n;
}

// The last i < count with starts[i] <= r, for starts ascending with starts[0] <= r: the piece that
// holds pair r (relocation: of a sublist; the gather: of a bucket).
__device__ __forceinline__ std::uint32_t piece_of(const std::uint32_t* starts, std::uint32_t count, std::uint32_t r) {
  std::uint32_t lo = 0, hi = count - 1;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) / 2;
    if (starts[mid] <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Step 8: every piece A_ij of sublist i to its place l_ij (coalesced read of the sublist, writes
// contiguous within each piece).
__global__ void __launch_bounds__(kMoveThreads)
    relocation_kernel(const std::uint64_t* __restrict__ sorted, std::uint32_t n, std::uint32_t L, std::uint32_t s,
                      std::uint32_t m, const std::uint32_t* __restrict__ bounds,
                      const std::uint32_t* __restrict__ offsets, std::uint64_t* __restrict__ buckets) {
  extern __shared__ std::uint32_t move_smem[];  // s boundaries, s destinations
  std::uint32_t* b = move_smem;
  std::uint32_t* dest = move_smem + s;
  const std::uint32_t i = blockIdx.x;
  const std::uint32_t base = i * L;
  const std::uint32_t count = min(L, n - base);
  for (std::uint32_t j = threadIdx.x; j < s; j += blockDim.x) {
    b[j] = bounds[i * s + j];
    dest[j] = offsets[j * m + i];
  }
  __syncthreads();
  for (std::uint32_t r = threadIdx.x; r < count; r += blockDim.x) {
    const std::uint32_t j = piece_of(b, s, r);  // b[0] = 0
    buckets[dest[j] + (r - b[j])] = sorted[base + r];
  }
}

}  // namespace depthsort::bucket_sort
