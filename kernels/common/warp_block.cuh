// Generic warp- and block-level helpers shared by the sorters' kernels (first user: the hybrid
// sort, kernels/sort/hybrid/). Not from a paper: counting and prefix-sum building blocks that the
// papers take as given (block scans come from CUB).
#pragma once

#include <cstdint>
#include <cub/block/block_scan.cuh>

namespace depthsort::common {

// ceil(log2(x)), 0 for x <= 1: merge passes needed for x sorted runs.
__device__ __forceinline__ std::uint32_t ceil_log2_u(std::uint32_t x) {
  return x <= 1 ? 0u : 32u - static_cast<std::uint32_t>(__clz(x - 1));
}

// ---------------------------------------------------------------------------------------------
// Warp-aggregated counter increment (for counters beyond shared memory): lanes with the same
// bucket elect a leader (match_any) that adds the group's size; each lane gets its rank in the
// group.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ std::uint32_t warp_aggregated_add(std::uint32_t* counters, std::uint32_t bucket,
                                                             bool valid, bool need_result) {
  const std::uint32_t id = valid ? bucket : 0xFFFFFFFFu;
  const std::uint32_t peers = __match_any_sync(0xFFFFFFFFu, id);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(peers) - 1;
  const std::uint32_t rank = __popc(peers & ((1u << lane) - 1u));
  std::uint32_t base = 0;
  if (valid && lane == leader) base = atomicAdd(&counters[bucket], static_cast<std::uint32_t>(__popc(peers)));
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

}  // namespace depthsort::common
