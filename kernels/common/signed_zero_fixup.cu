#include "common/signed_zero_fixup.hpp"

#include <cuda_runtime.h>

#include "depthsort/errors.hpp"
#include "depthsort/keys.hpp"

namespace depthsort {
namespace {

constexpr int kSearchThreads = 256;
constexpr std::uint32_t kOrderedMinusZero = 0x7FFFFFFFu;
constexpr std::uint32_t kOrderedPlusZero = 0x80000000u;

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

__global__ void find_zero_run(const float* keys, std::uint32_t n, std::uint32_t* run) {
  __shared__ std::uint32_t bound;
  const std::uint32_t begin = lower_bound_block(keys, n, kOrderedMinusZero, &bound);
  const std::uint32_t end = lower_bound_block(keys, n, kOrderedPlusZero + 1, &bound);
  if (threadIdx.x == 0) {
    run[0] = begin;
    run[1] = end;
    run[2] = 0;
    run[3] = 0;
  }
}

// -0.0 values fill the scratch from the front, +0.0 values from the back.
__global__ void split_zero_run(const float* keys, const std::uint32_t* values, std::uint32_t* run,
                               std::uint32_t* scratch) {
  const std::uint32_t begin = run[0], end = run[1];
  for (std::uint32_t i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += gridDim.x * blockDim.x) {
    if (__float_as_uint(keys[i]) == 0x80000000u)
      scratch[atomicAdd(&run[2], 1u)] = values[i];
    else
      scratch[end - begin - 1 - atomicAdd(&run[3], 1u)] = values[i];
  }
}

__global__ void write_zero_run(float* keys, std::uint32_t* values, const std::uint32_t* run,
                               const std::uint32_t* scratch) {
  const std::uint32_t begin = run[0], end = run[1], minus_zeros = run[2];
  for (std::uint32_t i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += gridDim.x * blockDim.x) {
    keys[i] = i - begin < minus_zeros ? -0.0f : 0.0f;
    values[i] = scratch[i - begin];
  }
}

}  // namespace

void fix_signed_zeros(float* keys, std::uint32_t* values, std::size_t n, SignedZeroScratch scratch,
                      cudaStream_t stream) {
  if (n < 2) return;
  const auto count = static_cast<std::uint32_t>(n);
  find_zero_run<<<1, kSearchThreads, 0, stream>>>(keys, count, scratch.run_bounds);
  DEPTHSORT_CUDA_CHECK_LAUNCH(find_zero_run);
  // A fixed grid: the run's length is known only on the device, and most frames have no zeros.
  constexpr int kBlocks = 264, kThreads = 256;
  split_zero_run<<<kBlocks, kThreads, 0, stream>>>(keys, values, scratch.run_bounds, scratch.values);
  DEPTHSORT_CUDA_CHECK_LAUNCH(split_zero_run);
  write_zero_run<<<kBlocks, kThreads, 0, stream>>>(keys, values, scratch.run_bounds, scratch.values);
  DEPTHSORT_CUDA_CHECK_LAUNCH(write_zero_run);
}

}  // namespace depthsort
