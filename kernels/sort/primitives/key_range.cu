// The key range and the range-reduced radix sort (key_range.hpp).
#include "sort/primitives/key_range.hpp"

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/primitives/cub_radix_pairs.cuh"
#include "sort/primitives/launch.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::primitives {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill an H100/H200 several times over; each block loops over its share.
constexpr unsigned kMaxBlocks = 1024;

__global__ void key_range_kernel(const float* __restrict__ keys, std::size_t n, RangeUse use, KeyRangeState* state,
                                 KeyRange* device_range, Posted<KeyRange>* posted, std::uint32_t sequence) {
  std::uint32_t lo_complement = 0, hi = 0;
  // float4 loads where the pointer allows it: the reduction runs at copy speed.
  const bool aligned = (reinterpret_cast<std::uintptr_t>(keys) & 15) == 0;
  const std::size_t vectors = aligned ? n / 4 : 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // Whether this thread's keys alone are already wider than the caller uses: then it says so and
  // stops reading. Each thread looks at its own keys only (a look at the others' word costs a
  // trip to L2 on every look); where the keys are wide, nearly every thread sees it at once.
  const auto past_use = [&] {
    if (use.most_bits >= 32) return false;
    const KeyRange mine{lo_complement, hi};
    const int width = use.width == RangeUse::Width::SpanBits ? mine.span_bits() : mine.cub_differing_bits();
    if (width <= use.most_bits) return false;
    atomicOr(&state->beyond_use, 1u);
    return true;
  };
  // Four loads in flight before each look at the width: a look after every load would leave one
  // load in flight per thread, and the reduction latency-bound.
  constexpr int kLoadsPerLook = 4;
  const auto* vectors_in = reinterpret_cast<const float4*>(keys);
  for (std::size_t v = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; v < vectors;
       v += kLoadsPerLook * stride) {
    float4 loaded[kLoadsPerLook];
#pragma unroll
    for (int j = 0; j < kLoadsPerLook; ++j) {
      const std::size_t at = v + j * stride;
      loaded[j] = vectors_in[at < vectors ? at : v];  // a key read twice leaves the range as it is
    }
#pragma unroll
    for (int j = 0; j < kLoadsPerLook; ++j) {
      for (const float key : {loaded[j].x, loaded[j].y, loaded[j].z, loaded[j].w}) {
        const std::uint32_t ordered = ordered_key(key);
        lo_complement = max(lo_complement, ~ordered);
        hi = max(hi, ordered);
      }
    }
    if (past_use()) break;
  }
  for (std::size_t i = vectors * 4 + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const std::uint32_t ordered = ordered_key(keys[i]);
    lo_complement = max(lo_complement, ~ordered);
    hi = max(hi, ordered);
  }
  // One atomic per block and end: atomics of every warp on the same two words serialise in L2.
  lo_complement = warp_reduce_max(0xFFFFFFFFu, lo_complement);
  hi = warp_reduce_max(0xFFFFFFFFu, hi);
  __shared__ std::uint32_t warp_lo_complement[32], warp_hi[32];
  const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if ((threadIdx.x & 31) == 0) {
    warp_lo_complement[warp] = lo_complement;
    warp_hi[warp] = hi;
  }
  __syncthreads();
  if (threadIdx.x >= 32) return;
  lo_complement = threadIdx.x < warps ? warp_lo_complement[threadIdx.x] : 0u;
  hi = threadIdx.x < warps ? warp_hi[threadIdx.x] : 0u;
  lo_complement = warp_reduce_max(0xFFFFFFFFu, lo_complement);
  hi = warp_reduce_max(0xFFFFFFFFu, hi);
  if (threadIdx.x != 0) return;
  atomicMax(&state->lo_complement, lo_complement);
  atomicMax(&state->hi, hi);
  __threadfence();
  if (atomicAdd(&state->blocks_done, 1u) != gridDim.x - 1) return;
  // The last block: every other block's atomics are in. It takes the range, zeroes the state for
  // the next reduction, and posts the range to the host.
  KeyRange range{atomicExch(&state->lo_complement, 0u), atomicExch(&state->hi, 0u)};
  if (atomicExch(&state->beyond_use, 0u) != 0) range = KeyRange{0xFFFFFFFFu, 0xFFFFFFFFu};  // all ordered keys
  state->blocks_done = 0;
  *device_range = range;
  post_to_host(posted, range, sequence);
}

__global__ void reduce_keys_kernel(const float* __restrict__ keys, std::size_t n, const KeyRange* range,
                                   std::uint32_t* __restrict__ reduced) {
  const std::uint32_t lo = range->lo();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    reduced[i] = ordered_key(keys[i]) - lo;
}

__global__ void expand_keys_kernel(std::uint32_t* keys, std::size_t n, const KeyRange* range) {
  const std::uint32_t lo = range->lo();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    keys[i] = float_bits_from_ordered_bits(keys[i] + lo);
}

}  // namespace

KeyRangeReader::KeyRangeReader(const std::string& owner)
    : state_(1, owner), device_range_(1, owner), mailbox_("key range") {
  DEPTHSORT_CUDA_CHECK(cudaMemset(state_.data(), 0, sizeof(KeyRangeState)));
}

KeyRange KeyRangeReader::read(const float* keys, std::size_t n, cudaStream_t stream, RangeUse use) {
  key_range_kernel<<<grid_for(n / 4 + 1, kThreads * 4, kMaxBlocks), kThreads, 0, stream>>>(
      keys, n, use, state_.data(), device_range_.data(), mailbox_.slot(), mailbox_.next_sequence());
  DEPTHSORT_CUDA_CHECK_LAUNCH("key_range_kernel");
  return mailbox_.wait(stream);
}

void launch_reduce_keys(const float* keys, std::size_t n, const KeyRange* range, std::uint32_t* reduced,
                        cudaStream_t stream) {
  reduce_keys_kernel<<<grid_for(n, kThreads * 4, kMaxBlocks), kThreads, 0, stream>>>(keys, n, range, reduced);
  DEPTHSORT_CUDA_CHECK_LAUNCH("reduce_keys_kernel");
}

void launch_expand_keys(std::uint32_t* keys_in_place, std::size_t n, const KeyRange* range, cudaStream_t stream) {
  expand_keys_kernel<<<grid_for(n, kThreads * 4, kMaxBlocks), kThreads, 0, stream>>>(keys_in_place, n, range);
  DEPTHSORT_CUDA_CHECK_LAUNCH("expand_keys_kernel");
}

void copy_pairs_in_order(const SortBuffers& b, cudaStream_t stream) {
  DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(b.keys_out, b.keys_in, b.n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  DEPTHSORT_CUDA_CHECK(
      cudaMemcpyAsync(b.values_out, b.values_in, b.n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
}

RangeRadix::RangeRadix(std::size_t max_n, const std::string& owner) {
  std::size_t bytes = 0;
  DEPTHSORT_CUDA_CHECK(
      cub_radix_sort_pairs<std::uint32_t>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, max_n, 32, nullptr));
  temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), owner);
  reduced_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(max_n, 1), owner);
}

void RangeRadix::sort(const SortBuffers& b, const KeyRange* range, const KeyRange& host_range, cudaStream_t stream,
                      StepTimer& timer, StepStart first) {
  if (b.n == 0) return;
  const int bits = host_range.span_bits();
  if (bits == 0) {
    StepScope step(timer, "copy (one key value)", first);
    copy_pairs_in_order(b, stream);
    return;
  }
  auto* keys_out = reinterpret_cast<std::uint32_t*>(b.keys_out);
  {
    StepScope step(timer, "reduce keys", first);
    launch_reduce_keys(b.keys_in, b.n, range, reduced_.data(), stream);
  }
  {
    StepScope step(timer, "radix sort (span bits)", StepStart::AtLastStepEnd);
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub_radix_sort_pairs(temp_.data(), bytes, reduced_.data(), keys_out, b.values_in, b.values_out,
                                              b.n, bits, stream));
  }
  StepScope step(timer, "expand keys", StepStart::AtLastStepEnd);
  launch_expand_keys(keys_out, b.n, range, stream);
}

}  // namespace depthsort::primitives
