// The kernels that move pairs: the partition's one-pass scatter into runs, CUB's sort of a sub-range's pairs.
// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the split of each GPU's pairs into one
// run per range in a single pass (warp-aggregated atomics where keys may be equal: all-equal keys
// send every lane of a warp to one counter, which must cost one atomic per warp, not 32). A pair's
// range comes from the ranges' steps; tie ranks are counted only in the tiles that hold a tie key.
#include "sort/multi_gpu/multi_gpu_kernels.hpp"

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/multi_gpu/kernel_occupancy.cuh"
#include "sort/primitives/cub_radix_pairs.cuh"
#include "sort/primitives/launch.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::multi_gpu {
namespace {

// Blocks a multiprocessor must hold (the register cap that follows: 40 each for the cut pass and
// the scatter, 1536 threads). Turing holds 1024 threads a multiprocessor: four and two blocks there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kScatterBlocksPerSm = 2;
#else
constexpr int kScatterBlocksPerSm = 3;
#endif
// The scatter: 4096 pairs a tile, staged in shared memory sorted by range, so that each range's
// part of the tile goes out in consecutive addresses (coalesced), as a copy would.
constexpr int kScatterThreads = 512;
constexpr int kScatterItems = 8;
constexpr int kScatterTile = kScatterThreads * kScatterItems;
static_assert(kMaxRanges <= 64, "the scatter's range scan covers 64 ranges with one warp");
static_assert(kMaxRanges <= 255 && kScatterTile <= (1 << 23),
              "range ids are bytes, a pair's place in the tile the other 24 bits");

// Shared-memory copies of the parts of SplitState the scatter reads for every pair. Raw words:
// __shared__ variables take no constructors, and these structs are trivially copyable.
template <class T>
__device__ void copy_words(T* to, const T* from) {
  static_assert(sizeof(T) % 4 == 0);
  auto* d = reinterpret_cast<std::uint32_t*>(to);
  const auto* s = reinterpret_cast<const std::uint32_t*>(from);
  for (int w = threadIdx.x; w < static_cast<int>(sizeof(T) / 4); w += blockDim.x) d[w] = s[w];
}

struct ScatterArgs {
  const std::uint32_t* keys;
  const std::uint32_t* values;
  std::size_t n;
  const SplitState* state;
  unsigned long long* tie_counters;
  unsigned long long* cursors;
  std::uint32_t* send_keys;
  std::uint32_t* send_values;
  std::uint32_t* stage_keys;
  std::uint32_t* stage_values;
};

// One tile's pairs into registers (the next tile's loads are issued while the last tile is still
// being written out, so that the block never waits for a whole round trip to memory).
__device__ __forceinline__ void load_tile(const ScatterArgs& a, std::size_t tile, std::uint32_t (&key)[kScatterItems],
                                          std::uint32_t (&value)[kScatterItems]) {
  const std::size_t first = tile * kScatterTile;
#pragma unroll
  for (int k = 0; k < kScatterItems; ++k) {
    const std::size_t i = first + k * kScatterThreads + threadIdx.x;
    key[k] = i < a.n ? a.keys[i] : 0u;
    value[k] = i < a.n ? a.values[i] : 0u;
  }
}

// kTies: the variant for splitters whose equal keys are split by tie rank. The host launches both
// variants; the one that does not match the state's splitters returns at once. The common one
// (no tie key) keeps no tie ranks in registers.
template <bool kTies>
__global__ void __launch_bounds__(kScatterThreads, kScatterBlocksPerSm) scatter_kernel(ScatterArgs a) {
  __shared__ std::uint32_t tile_keys[kScatterTile], tile_values[kScatterTile];
  __shared__ std::uint8_t tile_range[kScatterTile];
  __shared__ unsigned int range_count[kMaxRanges];
  __shared__ unsigned int range_start[kMaxRanges];  // in the tile, after the tile is sorted by range
  // Each range's run (this GPU's own ranges in the stage buffer, the others in the send buffer), and
  // per tile the place in it of the tile's pair 0 if that pair were of the range: a pair's place
  // is then one add, with no division by the sub-ranges to tell its buffer.
  __shared__ std::uint32_t* key_run[kMaxRanges];
  __shared__ std::uint32_t* value_run[kMaxRanges];
  __shared__ long long tile_shift[kMaxRanges];
  __shared__ unsigned int tie_count[kMaxSplitters];
  __shared__ unsigned long long tie_base[kMaxSplitters];
  __shared__ std::uint32_t boundary[kMaxBoundaries];
  __shared__ std::uint32_t step[kMaxRanges];  // the ranges' steps (range_step), padded with 0xFFFFFFFF
  __shared__ alignas(8) std::uint32_t splitters_raw[sizeof(Splitters) / 4];
  __shared__ alignas(8) std::uint32_t bases_raw[sizeof(TieBases) / 4];
  if ((a.state->splitters.ties > 0) != kTies) return;  // the other variant sorts this input
  const Splitters& split = *reinterpret_cast<const Splitters*>(splitters_raw);
  const TieBases& bases = *reinterpret_cast<const TieBases*>(bases_raw);

  const SplitSetup& setup = a.state->setup;
  const int rank = setup.rank, chunks = setup.chunks, ranges = setup.gpus * setup.chunks;
  const int boundaries = setup.boundaries;
  copy_words(reinterpret_cast<Splitters*>(splitters_raw), &a.state->splitters);
  copy_words(reinterpret_cast<TieBases*>(bases_raw), &a.state->bases);
  for (int i = threadIdx.x; i < boundaries; i += blockDim.x) boundary[i] = a.state->boundary[i];
  for (int i = threadIdx.x; i < ranges; i += blockDim.x) {
    const bool own = i / chunks == rank;
    key_run[i] = (own ? a.stage_keys : a.send_keys) + a.state->offset[i];
    value_run[i] = (own ? a.stage_values : a.send_values) + a.state->offset[i];
  }
  if (threadIdx.x < kMaxRanges) range_count[threadIdx.x] = 0;
  if (threadIdx.x < kMaxSplitters) tie_count[threadIdx.x] = 0;
  __syncthreads();
  const int ties = split.ties;
  // The ranges' steps: thread t finds step t + 1 (a search of the 32-bit keys, once per block).
  // They give every key but a tie key its range; the steps below kNoStep come first. A pair's
  // range is then a search of at most 6 words, where range_index searched the boundaries and
  // compared the key with every splitter.
  int steps = 0, top = 0;
  {
    const int t = threadIdx.x;
    const std::uint64_t at = t + 1 < ranges ? range_step(split, boundary, boundaries, chunks, t + 1) : kNoStep;
    if (t < kMaxRanges) step[t] = at < kNoStep ? static_cast<std::uint32_t>(at) : 0xFFFFFFFFu;
    steps = __syncthreads_count(at < kNoStep);
    top = power_of_two_floor(steps);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  const std::size_t tiles = (a.n + kScatterTile - 1) / kScatterTile;
  std::uint32_t key[kScatterItems], value[kScatterItems];
  if (blockIdx.x < tiles) load_tile(a, blockIdx.x, key, value);
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::size_t first = tile * kScatterTile;
    int range[kScatterItems];
#pragma unroll
    for (int k = 0; k < kScatterItems; ++k) range[k] = first + k * kScatterThreads + threadIdx.x < a.n ? 0 : -1;
    bool tile_ties = false;
    if constexpr (kTies) {
      bool mine = false;
#pragma unroll
      for (int k = 0; k < kScatterItems; ++k)
        mine = mine || (range[k] >= 0 && tie_group(split, ordered_bits_from_float_bits(key[k])) >= 0);
      // Uniform keys split at a key held ~n/2^24 times: a handful of tiles hold tie keys, and
      // only those pay for their ranks.
      tile_ties = __syncthreads_or(mine);
    }
    if (tile_ties) {
      // Tie ranks: each key equal to a tie key takes the next rank of its group, unique over all
      // GPUs (this GPU's base, then a global counter per tile).
      int group[kScatterItems];
      unsigned place[kScatterItems];
#pragma unroll
      for (int k = 0; k < kScatterItems; ++k) {
        group[k] = range[k] >= 0 ? tie_group(split, ordered_bits_from_float_bits(key[k])) : -1;
        place[k] =
            primitives::warp_aggregated_add(tie_count, static_cast<std::uint32_t>(group[k]), group[k] >= 0, true);
      }
      __syncthreads();
      if (threadIdx.x < ties) {
        tie_base[threadIdx.x] =
            bases.base[threadIdx.x] +
            atomicAdd(&a.tie_counters[threadIdx.x], static_cast<unsigned long long>(tie_count[threadIdx.x]));
        tie_count[threadIdx.x] = 0;  // read by no one else until the next tile's adds
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kScatterItems; ++k)
        if (range[k] >= 0) {
          const std::uint32_t bits = ordered_bits_from_float_bits(key[k]);
          range[k] = group[k] >= 0
                         ? range_index(split, boundary, boundaries, chunks, bits, tie_base[group[k]] + place[k])
                         : range_from_steps(step, steps, top, bits);
        }
    } else {
#pragma unroll
      for (int k = 0; k < kScatterItems; ++k)
        if (range[k] >= 0) range[k] = range_from_steps(step, steps, top, ordered_bits_from_float_bits(key[k]));
    }
    // Each pair's range and its place among the tile's pairs of that range, in one word (places
    // < 4096, ranges < 256): fewer registers, so that more blocks fit on a multiprocessor.
#pragma unroll
    for (int k = 0; k < kScatterItems; ++k) {
      const unsigned place =
          primitives::warp_aggregated_add(range_count, static_cast<std::uint32_t>(range[k]), range[k] >= 0, true);
      range[k] = range[k] >= 0 ? static_cast<int>(place << 8 | static_cast<unsigned>(range[k])) : -1;
    }
    __syncthreads();
    // Warp 0: the exclusive scan of the tile's counts (two ranges a lane). Warps 1 and 2: each
    // range's place in its run, one atomic per tile and range; the result is first needed after
    // the tile is placed in shared memory, so its latency hides behind that.
    unsigned long long claimed = 0;
    const int claim = threadIdx.x - 32;  // warps 1 and 2: ranges 0..63
    const bool claims = warp >= 1 && warp <= 2 && claim < ranges;
    if (warp == 0) {
      const unsigned c0 = 2 * lane < ranges ? range_count[2 * lane] : 0u;
      const unsigned c1 = 2 * lane + 1 < ranges ? range_count[2 * lane + 1] : 0u;
      unsigned inclusive = c0 + c1;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const unsigned up = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
        if (lane >= d) inclusive += up;
      }
      const unsigned exclusive = inclusive - c0 - c1;
      if (2 * lane < ranges) range_start[2 * lane] = exclusive;
      if (2 * lane + 1 < ranges) range_start[2 * lane + 1] = exclusive + c0;
    } else if (claims && range_count[claim]) {
      claimed = atomicAdd(&a.cursors[claim], static_cast<unsigned long long>(range_count[claim]));
    }
    __syncthreads();
    if (threadIdx.x < kMaxRanges) range_count[threadIdx.x] = 0;  // no one reads it until the next tile's adds
#pragma unroll
    for (int k = 0; k < kScatterItems; ++k)
      if (range[k] >= 0) {
        const unsigned r = static_cast<unsigned>(range[k]) & 0xFFu;
        const unsigned at = range_start[r] + (static_cast<unsigned>(range[k]) >> 8);
        tile_keys[at] = key[k];
        tile_values[at] = value[k];
        tile_range[at] = static_cast<std::uint8_t>(r);
      }
    if (claims) tile_shift[claim] = static_cast<long long>(claimed) - range_start[claim];
    __syncthreads();
    // The next tile's loads go out now, and arrive while this one is written.
    if (tile + gridDim.x < tiles) load_tile(a, tile + gridDim.x, key, value);
    // Out in tile order: consecutive threads write consecutive places of the same run.
    const int tile_n = static_cast<int>(a.n - first < kScatterTile ? a.n - first : kScatterTile);
    for (int at = threadIdx.x; at < tile_n; at += kScatterThreads) {
      const int r = tile_range[at];
      const long long to = tile_shift[r] + at;
      key_run[r][to] = tile_keys[at];
      value_run[r][to] = tile_values[at];
    }
    __syncthreads();  // the tile's shared memory is reused by the next tile
  }
}

}  // namespace

int scatter_blocks_per_sm() { return blocks_per_sm(scatter_kernel<false>, kScatterThreads); }

cudaError_t sort_pairs_bits(void* temp, std::size_t& bytes, const SortBuffers& b, int end_bit, cudaStream_t stream) {
  return primitives::cub_radix_sort_pairs(temp, bytes, b.keys_in, b.keys_out, b.values_in, b.values_out, b.n, end_bit,
                                          stream);
}

void launch_scatter(const float* keys, const std::uint32_t* values, std::size_t n, const SplitState* state,
                    unsigned long long* tie_counters, unsigned long long* cursors, float* send_keys,
                    std::uint32_t* send_values, float* stage_keys, std::uint32_t* stage_values, int grid,
                    cudaStream_t stream) {
  if (n == 0) return;
  // Keys move as bits: NaN payloads and -0 must arrive unchanged.
  const ScatterArgs args{reinterpret_cast<const std::uint32_t*>(keys),
                         values,
                         n,
                         state,
                         tie_counters,
                         cursors,
                         reinterpret_cast<std::uint32_t*>(send_keys),
                         send_values,
                         reinterpret_cast<std::uint32_t*>(stage_keys),
                         stage_values};
  const unsigned blocks = primitives::grid_for(n, kScatterTile, static_cast<unsigned>(grid));
  // Both variants: the one whose tie case is not the state's returns at once (the host does not
  // know the splitters without a round trip).
  scatter_kernel<false><<<blocks, kScatterThreads, 0, stream>>>(args);
  DEPTHSORT_CUDA_CHECK_LAUNCH(scatter_kernel<false>);
  scatter_kernel<true><<<blocks, kScatterThreads, 0, stream>>>(args);
  DEPTHSORT_CUDA_CHECK_LAUNCH(scatter_kernel<true>);
}

}  // namespace depthsort::multi_gpu
