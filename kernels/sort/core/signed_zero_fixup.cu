#include "sort/core/signed_zero_fixup.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort {
namespace {

constexpr int kSearchThreads = 256;

// First index in sorted `keys` whose ordered bits are >= threshold, by a 256-ary search: each round
// narrows the range 256-fold, so 16M keys need three rounds of one coalesced load per thread.
__device__ std::uint32_t lower_bound_block(const float* keys, std::uint32_t n, std::uint32_t threshold,
                                           std::uint32_t* shared_bounds) {
  std::uint32_t lo = 0, hi = n;  // answer in [lo, hi]
  while (hi - lo > 0) {
    const std::uint32_t span = hi - lo;
    const std::uint32_t step = (span + kSearchThreads - 1) / kSearchThreads;
    const std::uint32_t probe = lo + threadIdx.x * step;
    const bool below = probe < hi && ordered_key(keys[probe]) < threshold;
    // The last probe below the threshold bounds the answer from the left.
    const unsigned ballots = __syncthreads_count(below);
    __syncthreads();
    if (step == 1) {
      lo += ballots;
      break;
    }
    const std::uint32_t new_lo = ballots == 0 ? lo : lo + (ballots - 1) * step + 1;
    hi = min(hi, lo + ballots * step);
    lo = new_lo;
  }
  if (threadIdx.x == 0) shared_bounds[0] = lo;
  __syncthreads();
  return shared_bounds[0];
}

// One cooperative launch: every block finds the zero run itself (three rounds of loads), so a
// frame without zeros costs one small kernel; with zeros, -0.0 values fill the scratch from the
// front and +0.0 values from the back, then the run is written back in the key order.
__global__ void fix_zero_run(float* keys, std::uint32_t* values, std::uint32_t n, std::uint32_t* counters,
                             std::uint32_t* scratch, std::uint32_t* ends) {
  __shared__ std::uint32_t bound;
  const std::uint32_t begin = lower_bound_block(keys, n, kOrderedMinusZero, &bound);
  const std::uint32_t end = lower_bound_block(keys, n, kOrderedPlusZero + 1, &bound);
  if (end - begin < 2) {  // the same answer in every block: all leave together
    if (ends != nullptr && blockIdx.x == 0 && threadIdx.x == 0) {
      ends[0] = ordered_key(keys[0]);
      ends[1] = ordered_key(keys[n - 1]);
    }
    return;
  }
  const auto grid = cooperative_groups::this_grid();
  if (grid.thread_rank() == 0) counters[0] = counters[1] = 0;
  grid.sync();
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint32_t i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
    if (__float_as_uint(keys[i]) == 0x80000000u)  // -0.0
      scratch[atomicAdd(&counters[0], 1u)] = values[i];
    else
      scratch[end - begin - 1 - atomicAdd(&counters[1], 1u)] = values[i];
  }
  grid.sync();
  const std::uint32_t minus_zeros = counters[0];
  for (std::uint32_t i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
    keys[i] = i - begin < minus_zeros ? -0.0f : 0.0f;
    values[i] = scratch[i - begin];
  }
  // An end inside the run is the zero the run puts there; one outside it is untouched.
  if (ends != nullptr && grid.thread_rank() == 0) {
    ends[0] = begin > 0 ? ordered_key(keys[0]) : minus_zeros > 0 ? kOrderedMinusZero : kOrderedPlusZero;
    ends[1] = end < n ? ordered_key(keys[n - 1]) : minus_zeros == end - begin ? kOrderedMinusZero : kOrderedPlusZero;
  }
}

}  // namespace

SignedZeroFixup::SignedZeroFixup(std::size_t max_n, const std::string& owner)
    : counters_(2, owner), values_(max_n, owner) {
  int blocks_per_sm = 0;
  DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fix_zero_run, kSearchThreads, 0));
  // Every block of a cooperative launch must be resident at once.
  blocks_ = primitives::multiprocessor_count() * std::max(1, std::min(blocks_per_sm, 2));
}

void SignedZeroFixup::run(float* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream, std::uint32_t* ends) {
  if (n < 2) return;
  if (n > values_.size())
    throw CapacityError("signed-zero fixup: " + std::to_string(n) + " pairs but scratch for " +
                        std::to_string(values_.size()));
  auto count = static_cast<std::uint32_t>(n);
  std::uint32_t* counters = counters_.data();
  std::uint32_t* scratch = values_.data();
  void* arguments[] = {&keys, &values, &count, &counters, &scratch, &ends};
  DEPTHSORT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(fix_zero_run), dim3(blocks_),
                                                   dim3(kSearchThreads), arguments, 0, stream));
}

}  // namespace depthsort
