// Generic warp- and block-level helpers shared by the sorters' kernels (the hybrid sort, run-bucket,
// the key range and the multi-GPU sort's splitting kernels). Not from a paper: counting, reduction
// and prefix-sum building blocks that the papers take as given (block scans come from CUB).
#pragma once

#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

namespace depthsort::primitives {

// ceil(log2(x)), 0 for x <= 1: merge passes needed for x sorted runs.
__device__ __forceinline__ std::uint32_t ceil_log2_u(std::uint32_t x) {
  return x <= 1 ? 0u : 32u - static_cast<std::uint32_t>(__clz(x - 1));
}

// The lanes of this warp below the calling one, as a mask.
__device__ __forceinline__ unsigned lanes_below() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

// ---------------------------------------------------------------------------------------------
// Warp reductions of 32-bit words over the lanes of `mask`: every lane of the mask calls, and each
// gets the sum, the smallest or the largest of their values, as __reduce_add/min/max_sync. From
// sm_80 that is one instruction (REDUX); older GPUs have no such instruction, and their compile
// pass takes the shuffles of warp_reduce_by_shuffles instead.
// ---------------------------------------------------------------------------------------------

// The same result from shuffles, on every architecture (the tests check it on sm_80 and newer too).
// A full warp: five butterfly steps. Any other mask (a block's last, partial warp): each lane reads
// every lane of the mask in turn, since a shuffle must not read a lane outside it.
template <class Op>
__device__ __forceinline__ std::uint32_t warp_reduce_by_shuffles(unsigned mask, std::uint32_t value, Op op) {
  if (mask == 0xFFFFFFFFu) {
#pragma unroll
    for (int lanes = 16; lanes > 0; lanes /= 2) value = op(value, __shfl_xor_sync(mask, value, lanes));
    return value;
  }
  std::uint32_t result = __shfl_sync(mask, value, __ffs(mask) - 1);
  for (unsigned rest = mask & (mask - 1); rest != 0; rest &= rest - 1)
    result = op(result, __shfl_sync(mask, value, __ffs(rest) - 1));
  return result;
}

__device__ __forceinline__ std::uint32_t warp_reduce_add(unsigned mask, std::uint32_t value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, value);
#else
  return warp_reduce_by_shuffles(mask, value, ::cuda::std::plus<std::uint32_t>{});
#endif
}

__device__ __forceinline__ std::uint32_t warp_reduce_min(unsigned mask, std::uint32_t value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(mask, value);
#else
  return warp_reduce_by_shuffles(mask, value, ::cuda::minimum<std::uint32_t>{});
#endif
}

__device__ __forceinline__ std::uint32_t warp_reduce_max(unsigned mask, std::uint32_t value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(mask, value);
#else
  return warp_reduce_by_shuffles(mask, value, ::cuda::maximum<std::uint32_t>{});
#endif
}

// ---------------------------------------------------------------------------------------------
// Warp-aggregated counter increment: lanes with the same bucket elect a leader (match_any) that
// adds the group's size, so that a warp whose keys all fall in one bucket costs one atomic, not
// 32; each lane gets the counter's old value plus its rank in the group (need_result: the leader
// broadcasts it). Every lane of the warp calls it; lanes with !valid take no part. Counter is a
// 32-bit counter in shared or global memory, or a 64-bit one for counts beyond 2^32.
// ---------------------------------------------------------------------------------------------
template <class Counter>
__device__ __forceinline__ Counter warp_aggregated_add(Counter* counters, std::uint32_t bucket, bool valid,
                                                       bool need_result) {
  const std::uint32_t id = valid ? bucket : 0xFFFFFFFFu;
  const std::uint32_t peers = __match_any_sync(0xFFFFFFFFu, id);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(peers) - 1;
  const std::uint32_t rank = __popc(peers & lanes_below());
  Counter base = 0;
  if (valid && lane == leader) base = atomicAdd(&counters[bucket], static_cast<Counter>(__popc(peers)));
  if (need_result) base = __shfl_sync(0xFFFFFFFFu, base, leader);
  return base + rank;
}

// Exclusive cumulative counts of counts[0, cells) into cum[0, cells] (one block of kThreads
// threads; each thread sums a contiguous run of cells, one block scan joins the runs).
template <int kThreads>
__device__ inline void block_cumulative_counts(const std::uint32_t* __restrict__ counts, int cells,
                                               std::uint32_t* cum) {
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int per = (cells + kThreads - 1) / kThreads;
  const int begin = min(cells, static_cast<int>(threadIdx.x) * per), end = min(cells, begin + per);
  std::uint32_t sum = 0;
  for (int i = begin; i < end; ++i) sum += counts[i];
  std::uint32_t prefix = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(sum, prefix, total);
  for (int i = begin; i < end; ++i) {
    cum[i] = prefix;
    prefix += counts[i];
  }
  if (threadIdx.x == 0) cum[cells] = total;
  __syncthreads();
}

}  // namespace depthsort::primitives
