// The splitter kernels (Sintorn & Assarsson, JPDC 2008, Sections 5.1 and 6.1 on N GPUs): sample, cut pass, levels.
// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the histogram pass of Section 5.1 (here
// one of three radix levels that refine the pivots), the choice of each level's bins on the device,
// and the one pass over the keys that brackets the pivots (depthsort's own: the levels then read
// only the keys inside the brackets). Warp-aggregated atomics where keys may be equal: all-equal
// keys send every lane of a warp to one counter, which must cost one atomic per warp, not 32.
#include "sort/multi_gpu/multi_gpu_kernels.hpp"

#include <cub/device/device_radix_sort.cuh>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/multi_gpu/kernel_occupancy.cuh"
#include "sort/primitives/launch.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::multi_gpu {
namespace {

constexpr int kHistogramThreads = 256;
constexpr int kSelectThreads = 1024;
// The cut pass: 2048 keys a tile (8 loads in flight per thread), counted below each cut by each
// lane and summed over the warp (no atomics per key), the bracketed keys appended to the block's
// own candidate slots.
constexpr int kCutThreads = 256;
constexpr int kCutItems = 8;
// Blocks a multiprocessor must hold (the register cap that follows: 40 each for the cut pass and
// the scatter, 1536 threads). Turing holds 1024 threads a multiprocessor: four and two blocks there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kCutBlocksPerSm = 4;
#else
constexpr int kCutBlocksPerSm = 6;
#endif
constexpr int kCutTile = kCutThreads * kCutItems;
static_assert(kMaxCuts <= 96, "the cut pass keeps three counters a lane");
using SelectScan = cub::BlockScan<std::uint32_t, kSelectThreads>;

__device__ __forceinline__ std::uint32_t ordered_at(const float* keys, std::size_t i) {
  return ordered_bits_from_float_bits(reinterpret_cast<const std::uint32_t*>(keys)[i]);
}

__global__ void init_kernel(SplitState* state, SplitSetup setup) { init_state(*state, setup); }

__global__ void sample_kernel(const float* keys, std::size_t n, std::uint32_t count, std::uint32_t stride,
                              std::uint32_t* sample) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= stride) return;
  sample[i] = i < count ? ordered_at(keys, sample_position(i, count, n)) : 0xFFFFFFFFu;
}

__global__ void cuts_kernel(SplitState* state, const std::uint32_t* sorted, std::uint32_t valid) {
  make_cuts(*state, sorted, valid);
}

// The sum of x over the warp, in every lane.
__device__ __forceinline__ unsigned warp_sum(unsigned x) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xFFFFFFFFu, x);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xFFFFFFFFu, x, offset);
  return x;
#endif
}

// This warp's keys of a tile below each cut, added by lane c % 32 to its counter of cut c: each
// lane counts its own keys (a 32-bit compare and an add a key), one warp reduction a cut. A cut
// past every 32-bit key (a bracket's end above 0xFFFFFFFF) counts every key. kFull: every item is
// a key (all tiles but a block's last).
template <bool kFull>
__device__ __forceinline__ void count_below(const unsigned long long* cut, int cuts,
                                            const std::uint32_t (&key)[kCutItems], const bool (&valid)[kCutItems],
                                            int lane, unsigned& below0, unsigned& below1, unsigned& below2) {
  for (int c = 0; c < cuts; ++c) {
    const unsigned long long value = cut[c];
    const bool all = value > 0xFFFFFFFFull;
    const auto bound = static_cast<std::uint32_t>(value);
    unsigned mine = 0;
#pragma unroll
    for (int k = 0; k < kCutItems; ++k) mine += ((kFull || valid[k]) && (all || key[k] < bound)) ? 1u : 0u;
    const unsigned total = warp_sum(mine);
    if (lane == (c & 31)) {
      if (c < 32)
        below0 += total;
      else if (c < 64)
        below1 += total;
      else
        below2 += total;
    }
  }
}

__global__ void __launch_bounds__(kCutThreads, kCutBlocksPerSm)
    cut_kernel(const float* keys, std::size_t n, const SplitState* state, unsigned long long* counts,
               unsigned int* extremes, unsigned int* segment_counts, std::uint32_t* candidates) {
  __shared__ unsigned long long cut[kMaxCuts];
  __shared__ std::uint32_t lo[kMaxSplitters], hi[kMaxSplitters];
  __shared__ unsigned int block_counts[kMaxCuts];
  __shared__ unsigned int found;  // candidates of this block so far (written while they fit)
  const int cuts = state->cuts, brackets = state->brackets;
  const std::uint64_t segment = state->setup.segment;
  for (int c = threadIdx.x; c < cuts; c += blockDim.x) {
    cut[c] = state->cut[c];
    block_counts[c] = 0;
  }
  for (int m = threadIdx.x; m < brackets; m += blockDim.x) {
    lo[m] = state->bracket_lo[m];
    hi[m] = state->bracket_hi[m];
  }
  if (threadIdx.x == 0) found = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  std::uint32_t* mine = candidates + blockIdx.x * segment;
  // Lane c % 32 of every warp counts the keys below cut c (three counters: up to 96 cuts).
  unsigned below0 = 0, below1 = 0, below2 = 0;
  std::uint32_t key_min = 0xFFFFFFFFu, key_max = 0;
  const std::size_t tiles = (n + kCutTile - 1) / kCutTile;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // the same trip count for the block
    std::uint32_t key[kCutItems];
    bool valid[kCutItems];
#pragma unroll
    for (int k = 0; k < kCutItems; ++k) {
      const std::size_t i = tile * kCutTile + k * kCutThreads + threadIdx.x;
      valid[k] = i < n;
      key[k] = valid[k] ? ordered_at(keys, i) : 0u;
    }
#pragma unroll
    for (int k = 0; k < kCutItems; ++k)
      if (valid[k]) {
        key_min = min(key_min, key[k]);
        key_max = max(key_max, key[k]);
      }
    if ((tile + 1) * kCutTile <= n)
      count_below<true>(cut, cuts, key, valid, lane, below0, below1, below2);
    else
      count_below<false>(cut, cuts, key, valid, lane, below0, below1, below2);
    if (brackets == 0) continue;
    bool inside[kCutItems];
    unsigned warp_count = 0;
#pragma unroll
    for (int k = 0; k < kCutItems; ++k) {
      inside[k] = valid[k] && in_bracket(lo, hi, brackets, key[k]);
      warp_count += __popc(__ballot_sync(0xFFFFFFFFu, inside[k]));
    }
    // Every tile of uniform keys holds a few candidates (about 1.2% of the keys a splitter): each
    // warp that has some appends them to the block's own slots, one shared atomic a warp and no
    // block barrier (no global counter that every tile of the grid would contend for).
    if (warp_count == 0) continue;
    unsigned at = 0;
    if (lane == 0) at = atomicAdd(&found, warp_count);
    at = __shfl_sync(0xFFFFFFFFu, at, 0);
#pragma unroll
    for (int k = 0; k < kCutItems; ++k) {
      const unsigned ballot = __ballot_sync(0xFFFFFFFFu, inside[k]);
      const unsigned place = at + __popc(ballot & primitives::lanes_below());
      if (inside[k] && place < segment) mine[place] = key[k];
      at += __popc(ballot);
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    key_min = min(key_min, __shfl_xor_sync(0xFFFFFFFFu, key_min, offset));
    key_max = max(key_max, __shfl_xor_sync(0xFFFFFFFFu, key_max, offset));
  }
  if (lane == 0 && key_min <= key_max) {  // the smallest key as the largest complement
    atomicMax(&extremes[0], ~key_min);
    atomicMax(&extremes[1], key_max);
  }
  if (lane < cuts) atomicAdd(&block_counts[lane], below0);
  if (lane + 32 < cuts) atomicAdd(&block_counts[lane + 32], below1);
  if (lane + 64 < cuts) atomicAdd(&block_counts[lane + 64], below2);
  __syncthreads();
  for (int c = threadIdx.x; c < cuts; c += blockDim.x)
    if (block_counts[c]) atomicAdd(&counts[c], static_cast<unsigned long long>(block_counts[c]));
  if (threadIdx.x == 0) {
    segment_counts[blockIdx.x] = found;
    if (brackets > 0 && found > segment) atomicMax(&counts[kOverflowWord], 1ull);
  }
}

__global__ void apply_cuts_kernel(SplitState* state, const unsigned long long* global, const unsigned long long* local,
                                  const unsigned int* extremes) {
  apply_cuts(*state, reinterpret_cast<const std::uint64_t*>(global), reinterpret_cast<const std::uint64_t*>(local),
             ~extremes[0], extremes[1]);
}

// One level's histogram over the keys the cut pass bracketed (block b reads the candidates block b
// of the cut pass wrote: the same grid) or over every key, as the state says.
__global__ void __launch_bounds__(kHistogramThreads)
    histogram_kernel(const float* keys, std::size_t n, const std::uint32_t* candidates,
                     const unsigned int* segment_counts, const SplitState* state, unsigned long long* histogram) {
  __shared__ unsigned int local[kHistogramWords];
  // Every thread reads the pass's parameters (a few dozen bytes, the same for all: served by L1).
  const LevelParams p = state->params;
  const int bins = static_cast<int>(p.bin_mask) + 1;
  const int words = bin_words(p);
  const bool from_candidates = state->from_candidates != 0;
  for (int w = threadIdx.x; w < words; w += blockDim.x) local[w] = 0;
  __syncthreads();
  // Block b's candidates, or a grid-stride share of every key.
  std::size_t begin = std::size_t{blockIdx.x} * blockDim.x, end = n, stride = std::size_t{gridDim.x} * blockDim.x;
  if (from_candidates) {
    const std::uint64_t segment = state->setup.segment;
    begin = blockIdx.x * segment;
    end = begin + min(static_cast<std::uint64_t>(segment_counts[blockIdx.x]), segment);
    stride = blockDim.x;
  }
  // Every lane runs every round (the warp-aggregated add needs the whole warp): the bounds are the
  // block's, the same for all its threads.
  for (std::size_t base = begin; base < end; base += stride) {
    const std::size_t at = base + threadIdx.x;
    const bool valid = at < end;
    std::uint32_t key = 0;
    if (valid) key = from_candidates ? candidates[at] : ordered_at(keys, at);
    const int slot = valid ? level_slot(p, key) : -1;
    const int word = slot >= 0 ? slot * bins + level_bin(p, key) : 0;
    primitives::warp_aggregated_add(local, static_cast<std::uint32_t>(word), slot >= 0, false);
  }
  __syncthreads();
  for (int w = threadIdx.x; w < words; w += blockDim.x)
    if (local[w]) atomicAdd(&histogram[w], static_cast<unsigned long long>(local[w]));
}

// Inclusive cumulative counts of in[0, words) into cum (one block; counts fit 32 bits: n < 2^31).
__device__ void block_cumulative(const unsigned long long* in, int words, std::uint32_t* cum,
                                 SelectScan::TempStorage& temp) {
  const int per = (words + kSelectThreads - 1) / kSelectThreads;
  const int begin = min(words, static_cast<int>(threadIdx.x) * per), end = min(words, begin + per);
  std::uint32_t sum = 0;
  for (int i = begin; i < end; ++i) sum += static_cast<std::uint32_t>(in[i]);
  std::uint32_t prefix = 0;
  SelectScan(temp).ExclusiveSum(sum, prefix);
  for (int i = begin; i < end; ++i) {
    prefix += static_cast<std::uint32_t>(in[i]);
    cum[i] = prefix;
  }
}

__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(SplitState* state, const unsigned long long* global, const unsigned long long* local, int level) {
  __shared__ std::uint32_t cum[kHistogramWords];
  __shared__ SelectScan::TempStorage temp;
  // Read by every thread before thread 0 changes the state (after the barriers below).
  const int words = bin_words(state->params);
  block_cumulative(global, words, cum, temp);
  __syncthreads();
  if (threadIdx.x == 0) find_bins(*state, cum);
  __syncthreads();
  block_cumulative(local, words, cum, temp);
  __syncthreads();
  if (threadIdx.x == 0) {
    local_belows(*state, cum);
    advance_level(*state, level);
  }
}

__global__ void finish_kernel(SplitState* state, const unsigned long long* equal_all,
                              const unsigned int* segment_counts, std::uint32_t blocks) {
  finish_counts(*state, reinterpret_cast<const std::uint64_t*>(equal_all));
  std::uint64_t candidates = 0;  // for the reports: how many keys the brackets held
  for (std::uint32_t b = 0; segment_counts != nullptr && b < blocks; ++b) candidates += segment_counts[b];
  state->out.candidates = static_cast<std::uint32_t>(candidates);
}
}  // namespace

KernelShape kernel_shape() {
  const int sms = primitives::multiprocessor_count();
  KernelShape shape;
  shape.histogram_grid = sms * blocks_per_sm(histogram_kernel, kHistogramThreads);
  shape.cut_grid = sms * blocks_per_sm(cut_kernel, kCutThreads);
  shape.scatter_grid = sms * scatter_blocks_per_sm();
  return shape;
}

std::uint32_t cut_blocks(std::size_t n, const KernelShape& shape) {
  return primitives::grid_for(n, kCutTile, static_cast<unsigned>(shape.cut_grid));
}

void launch_init(SplitState* state, const SplitSetup& setup, cudaStream_t stream) {
  init_kernel<<<1, 1, 0, stream>>>(state, setup);
  DEPTHSORT_CUDA_CHECK_LAUNCH(init_kernel);
}

void launch_sample(const float* keys, std::size_t n, std::uint32_t count, std::uint32_t stride, std::uint32_t* sample,
                   cudaStream_t stream) {
  if (stride == 0) return;
  sample_kernel<<<primitives::grid_for(stride, 256), 256, 0, stream>>>(keys, n, count, stride, sample);
  DEPTHSORT_CUDA_CHECK_LAUNCH(sample_kernel);
}

cudaError_t sort_sample(void* temp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out, int count,
                        cudaStream_t stream) {
  return cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, count, 0, 32, stream);
}

void launch_cuts(SplitState* state, const std::uint32_t* sorted, std::uint32_t valid, cudaStream_t stream) {
  cuts_kernel<<<1, 1, 0, stream>>>(state, sorted, valid);
  DEPTHSORT_CUDA_CHECK_LAUNCH(cuts_kernel);
}

void launch_cut_pass(const float* keys, std::size_t n, const SplitState* state, unsigned long long* counts,
                     unsigned int* extremes, unsigned int* segment_counts, std::uint32_t* candidates,
                     std::uint32_t blocks, cudaStream_t stream) {
  if (n == 0) return;
  cut_kernel<<<blocks, kCutThreads, 0, stream>>>(keys, n, state, counts, extremes, segment_counts, candidates);
  DEPTHSORT_CUDA_CHECK_LAUNCH(cut_kernel);
}

void launch_apply_cuts(SplitState* state, const unsigned long long* global, const unsigned long long* local,
                       const unsigned int* extremes, cudaStream_t stream) {
  apply_cuts_kernel<<<1, 1, 0, stream>>>(state, global, local, extremes);
  DEPTHSORT_CUDA_CHECK_LAUNCH(apply_cuts_kernel);
}

void launch_histogram(const float* keys, std::size_t n, const std::uint32_t* candidates,
                      const unsigned int* segment_counts, const SplitState* state, unsigned long long* histogram,
                      std::uint32_t blocks, cudaStream_t stream) {
  if (n == 0) return;
  histogram_kernel<<<blocks, kHistogramThreads, 0, stream>>>(keys, n, candidates, segment_counts, state, histogram);
  DEPTHSORT_CUDA_CHECK_LAUNCH(histogram_kernel);
}

void launch_select(SplitState* state, const unsigned long long* global, const unsigned long long* local, int level,
                   cudaStream_t stream) {
  select_kernel<<<1, kSelectThreads, 0, stream>>>(state, global, local, level);
  DEPTHSORT_CUDA_CHECK_LAUNCH(select_kernel);
}

void launch_finish(SplitState* state, const unsigned long long* equal_all, const unsigned int* segment_counts,
                   std::uint32_t blocks, cudaStream_t stream) {
  finish_kernel<<<1, 1, 0, stream>>>(state, equal_all, segment_counts, blocks);
  DEPTHSORT_CUDA_CHECK_LAUNCH(finish_kernel);
}

}  // namespace depthsort::multi_gpu
