// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the histogram pass of Section 5.1 (here
// one of three radix levels that refine the pivots) and the split of each GPU's pairs into one run
// per destination GPU. Warp-aggregated atomics throughout: all-equal keys send every lane of a warp
// to one counter, which must cost one atomic per warp, not 32.
#include "sort/multi_gpu/multi_gpu_kernels.hpp"

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::multi_gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8;  // scatter: pairs per thread and tile
constexpr int kTile = kThreads * kItems;

__device__ __forceinline__ std::uint32_t ordered_at(const float* keys, std::size_t i) {
  return ordered_bits_from_float_bits(reinterpret_cast<const std::uint32_t*>(keys)[i]);
}

__global__ void __launch_bounds__(kThreads) histogram_kernel(const float* keys, std::size_t n, LevelParams p,
                                                             unsigned long long* histogram) {
  __shared__ unsigned int local[kHistogramWords];
  const int bins = static_cast<int>(p.bin_mask) + 1;
  const int words = (p.slots == 0 ? 1 : p.slots) * bins;
  for (int w = threadIdx.x; w < words; w += blockDim.x) local[w] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t key = ordered_at(keys, i);
    const int slot = level_slot(p, key);
    if (slot >= 0) atomicAdd(&local[slot * bins + level_bin(p, key)], 1u);
  }
  __syncthreads();
  for (int w = threadIdx.x; w < words; w += blockDim.x)
    if (local[w]) atomicAdd(&histogram[w], static_cast<unsigned long long>(local[w]));
}

__global__ void __launch_bounds__(kThreads) assign_kernel(const float* keys, std::size_t n, Splitters s,
                                                          TieBases bases, unsigned long long* tie_counters,
                                                          std::uint8_t* range_ids, unsigned long long* counts,
                                                          int gpus) {
  __shared__ unsigned int block_counts[kMaxGpus];
  if (threadIdx.x < kMaxGpus) block_counts[threadIdx.x] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  // The loop condition is the same for every lane of a warp (stride is a multiple of 32), so the
  // warp stays whole for __match_any_sync.
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i - lane < n; i += stride) {
    const bool valid = i < n;
    const std::uint32_t key = valid ? ordered_at(keys, i) : 0u;
    const int group = valid ? tie_group(s, key) : -1;
    const unsigned long long tie_place =
        primitives::warp_aggregated_add(tie_counters, static_cast<std::uint32_t>(group), group >= 0, true);
    const std::uint64_t tie_rank = group >= 0 ? bases.base[group] + tie_place : 0;
    const int range = valid ? range_of(s, key, tie_rank) : -1;
    if (valid) range_ids[i] = static_cast<std::uint8_t>(range);
    primitives::warp_aggregated_add(block_counts, static_cast<std::uint32_t>(range), valid, false);
  }
  __syncthreads();
  if (threadIdx.x < gpus && block_counts[threadIdx.x])
    atomicAdd(&counts[threadIdx.x], static_cast<unsigned long long>(block_counts[threadIdx.x]));
}

__global__ void __launch_bounds__(kThreads) scatter_kernel(const std::uint32_t* keys, const std::uint32_t* values,
                                                           std::size_t n, const std::uint8_t* range_ids,
                                                           RunOffsets offsets, unsigned long long* cursors,
                                                           std::uint32_t* keys_out, std::uint32_t* values_out,
                                                           int gpus) {
  __shared__ unsigned int tile_counts[kMaxGpus];
  __shared__ unsigned long long tile_base[kMaxGpus];
  const std::size_t tiles = (n + kTile - 1) / kTile;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    if (threadIdx.x < kMaxGpus) tile_counts[threadIdx.x] = 0;
    __syncthreads();
    int range[kItems];
    unsigned place[kItems];
    const std::size_t start = tile * kTile;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = start + k * kThreads + threadIdx.x;
      range[k] = i < n ? static_cast<int>(range_ids[i]) : -1;
      place[k] = primitives::warp_aggregated_add(tile_counts, static_cast<std::uint32_t>(range[k]), range[k] >= 0,
                                                 true);
    }
    __syncthreads();
    if (threadIdx.x < gpus) tile_base[threadIdx.x] = atomicAdd(&cursors[threadIdx.x], tile_counts[threadIdx.x]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (range[k] < 0) continue;
      const std::size_t i = start + k * kThreads + threadIdx.x;
      const std::size_t to = offsets.offset[range[k]] + tile_base[range[k]] + place[k];
      keys_out[to] = keys[i];
      values_out[to] = values[i];
    }
    __syncthreads();  // tile_counts and tile_base are reused by the next tile
  }
}

}  // namespace

void launch_histogram(const float* keys, std::size_t n, const LevelParams& params, unsigned long long* histogram,
                      int grid, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, grid));
  histogram_kernel<<<blocks, kThreads, 0, stream>>>(keys, n, params, histogram);
  DEPTHSORT_CUDA_CHECK_LAUNCH(histogram_kernel);
}

void launch_assign(const float* keys, std::size_t n, const Splitters& splitters, const TieBases& bases,
                   unsigned long long* tie_counters, std::uint8_t* range_ids, unsigned long long* counts, int gpus,
                   int grid, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, grid));
  assign_kernel<<<blocks, kThreads, 0, stream>>>(keys, n, splitters, bases, tie_counters, range_ids, counts, gpus);
  DEPTHSORT_CUDA_CHECK_LAUNCH(assign_kernel);
}

void launch_scatter(const float* keys, const std::uint32_t* values, std::size_t n, const std::uint8_t* range_ids,
                    const RunOffsets& offsets, unsigned long long* cursors, float* keys_out,
                    std::uint32_t* values_out, int gpus, int grid, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<int>(std::min<std::size_t>((n + kTile - 1) / kTile, grid));
  // Keys move as bits: NaN payloads and -0 must arrive unchanged.
  scatter_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(keys), values, n,
                                                  range_ids, offsets, cursors,
                                                  reinterpret_cast<std::uint32_t*>(keys_out), values_out, gpus);
  DEPTHSORT_CUDA_CHECK_LAUNCH(scatter_kernel);
}

}  // namespace depthsort::multi_gpu
