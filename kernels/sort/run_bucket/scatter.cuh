// run-bucket's scatter (docs/algorithms/run-bucket.md, step `scatter`; depthsort's own design):
// each tile's pairs into their buckets' regions, in runs, and the pairs beyond a bucket's room
// into the spill area.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/warp_block.cuh"
#include "sort/run_bucket/run_bucket_kernels.cuh"
#include "sort/run_bucket/splitter_search.cuh"

namespace depthsort::run_bucket {

// Bucket regions index below 2^32 (kMaxBuckets * kBucketCapacity), and below kSpilled, which marks
// a staged pair beyond its bucket's room.
inline constexpr std::uint32_t kSpilled = 0xFFFFFFFFu;
static_assert(std::uint64_t{Policy::kMaxBuckets} * Policy::kBucketCapacity < kSpilled);

// primitives::warp_aggregated_add (one atomic per group of lanes with equal buckets, each lane's
// place returned) with a shortcut for a warp whose keys all fall into one bucket: one atomic and
// no match.
__device__ __forceinline__ std::uint32_t add_by_group(std::uint32_t* counters, std::uint32_t bucket, bool valid) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t first_lane_bucket = __shfl_sync(0xFFFFFFFFu, bucket, 0);  // every lane, before any branch
  if (__all_sync(0xFFFFFFFFu, valid && bucket == first_lane_bucket)) {
    std::uint32_t base = 0;
    if (lane == 0) base = atomicAdd(&counters[bucket], 32u);
    return __shfl_sync(0xFFFFFFFFu, base, 0) + lane;
  }
  return primitives::warp_aggregated_add(counters, bucket, valid, true);
}

// Where the pairs beyond their bucket's room go.
struct SpillArea {
  std::uint32_t* keys;
  std::uint32_t* values;
  std::uint32_t capacity;
};

// Puts this lane's pair in the spill area if `spill` (one atomic a warp); where the area is full,
// sets `full` instead. Every lane of the warp calls it.
__device__ __forceinline__ void spill_pair(bool spill, std::uint32_t key, std::uint32_t value, SpillArea area,
                                           Plan* plan, bool& full) {
  const unsigned spilling = __ballot_sync(0xFFFFFFFFu, spill);
  if (spilling == 0) return;
  const unsigned lane = threadIdx.x & 31;
  const int leader = __ffs(spilling) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(&plan->spilled_pairs, __popc(spilling));
  base = __shfl_sync(0xFFFFFFFFu, base, leader);
  if (!spill) return;
  const std::uint32_t at = base + __popc(spilling & ((1u << lane) - 1u));
  if (at < area.capacity) {
    area.keys[at] = key;
    area.values[at] = value;
  } else {
    full = true;
  }
}

// The scatter. Each block loops over tiles of kTile consecutive pairs, each thread over
// kTileItems consecutive pairs of a tile: every key's bucket by the splitter table and a short
// search (through the read-only cache). The pairs whose buckets lie within kWindow around the
// bucket of the tile's middle pair are counted per bucket in shared memory (one atomic per run of
// a thread's pairs in one bucket: on input in nearly key order one or two a thread; one a warp
// where the warp's pairs share a bucket), room is reserved at each bucket's front with one global
// atomic per bucket and tile, the pairs are staged in shared memory grouped by bucket and written
// from there: consecutive threads write consecutive places of a bucket's run. Ranked by a match
// or ballots per pair instead, a third more instructions (docs/results/run-bucket.md). The pairs
// outside the window (a few keys that moved far since the last frame) reserve their places per
// warp and bucket in global memory and are written directly. The order of equal keys is not kept.
// Buckets are regions of kBucketCapacity pairs; a pair beyond its bucket's room goes to the spill
// area, and where that is full sets plan->overflow (the host then sorts with the fallback).
__global__ void __launch_bounds__(Policy::kTileThreads, Policy::kScatterBlocksPerMultiprocessor)
    scatter_kernel(const float* __restrict__ keys, const std::uint32_t* __restrict__ values, std::uint32_t n,
                   const std::uint32_t* __restrict__ splitters, const std::uint32_t* __restrict__ table,
                   std::uint32_t buckets, std::uint32_t* __restrict__ cursors,
                   std::uint32_t* __restrict__ bucketed_keys, std::uint32_t* __restrict__ bucketed_values,
                   SpillArea spill, Plan* plan) {
  if (plan->verdict != kBucketPath) return;
  const std::uint32_t table_first = table[kTableSlots + 1], table_shift = table[kTableSlots + 2];
  constexpr int kWindowItems = Policy::kWindow / Policy::kTileThreads;
  using Scan = cub::BlockScan<std::uint32_t, Policy::kTileThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ std::uint32_t counters[Policy::kWindow];  // pairs per bucket, then their place at its front
  __shared__ std::uint32_t firsts[Policy::kWindow];    // a bucket's first place in the staged tile
  // The staged pairs at place p are at staged(p): a thread stages its pairs 8 places apart, a
  // warp writes them out at consecutive places, and neither meets a bank twice.
  const auto staged = [](std::uint32_t p) { return p + (p >> 5); };
  constexpr std::uint32_t kStaged = Policy::kTile + Policy::kTile / 32;
  __shared__ std::uint32_t staged_keys[kStaged], staged_values[kStaged];
  // Where each staged pair goes in the bucket regions (kSpilled: beyond its bucket's room), found
  // when it is staged, so that the write-out reads one word for it instead of its bucket and then
  // two words of the bucket's (a faster scatter at 16M camera-step keys on an H100:
  // docs/results/run-bucket.md).
  __shared__ std::uint32_t staged_to[kStaged];
  __shared__ __align__(16) std::uint32_t tile_values[Policy::kTile];  // the tile's values as they come
  __shared__ std::uint32_t window_low, in_window_total;
  const std::uint32_t count = buckets - 1;
  const std::uint32_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  // A thread takes kTileItems consecutive pairs of a tile: loaded 16 bytes at a time where the
  // arrays allow, and, on input in nearly key order, falling into one or a few buckets each.
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(keys) | reinterpret_cast<std::uintptr_t>(values)) & 15) == 0;
  const std::uint32_t mine = threadIdx.x * Policy::kTileItems;  // this thread's first pair in a tile
  bool overflow = false;                                        // a pair of this thread's found the spill area full
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::uint32_t base = tile * Policy::kTile;
    const std::uint32_t size = min(Policy::kTile, n - base);
    const bool whole = aligned && mine + Policy::kTileItems <= size;
    // The values go to shared memory while the keys are searched and ranked; each thread copies
    // the ones it stages later, so its own wait is enough.
    if (whole) {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; j += 4)
        __pipeline_memcpy_async(&tile_values[mine + j], &values[base + mine + j], 4 * sizeof(std::uint32_t));
    } else {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; ++j)
        if (mine + j < size)
          __pipeline_memcpy_async(&tile_values[mine + j], &values[base + mine + j], sizeof(std::uint32_t));
    }
    __pipeline_commit();
    for (std::uint32_t i = threadIdx.x; i < Policy::kWindow; i += Policy::kTileThreads) counters[i] = 0;
    // All of a thread's key loads in flight at once, then their table entries, then their
    // searches side by side.
    std::uint32_t key[Policy::kTileItems], bucket[Policy::kTileItems];
    if (whole) {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; j += 4) {
        const float4 four = *reinterpret_cast<const float4*>(&keys[base + mine + j]);
        key[j] = ordered_key(four.x);
        key[j + 1] = ordered_key(four.y);
        key[j + 2] = ordered_key(four.z);
        key[j + 3] = ordered_key(four.w);
      }
    } else {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; ++j) key[j] = mine + j < size ? ordered_key(keys[base + mine + j]) : 0u;
    }
    buckets_by_table(splitters, count, table, table_first, table_shift, key, tile, bucket);
#pragma unroll
    for (int j = 0; j < Policy::kTileItems; ++j)
      if (mine + j == size / 2) window_low = bucket[j] > Policy::kWindow / 2 ? bucket[j] - Policy::kWindow / 2 : 0u;
    __syncthreads();
    const std::uint32_t low = window_low;
    // The pairs inside the window, ranked run by run: a run of a thread's consecutive pairs in one
    // bucket takes its places with one shared atomic (its length, found from the end backwards).
    bool inside[Policy::kTileItems];
    std::uint32_t run[Policy::kTileItems], rank[Policy::kTileItems];
#pragma unroll
    for (int j = 0; j < Policy::kTileItems; ++j) inside[j] = mine + j < size && bucket[j] - low < Policy::kWindow;
    run[Policy::kTileItems - 1] = 1;
#pragma unroll
    for (int j = Policy::kTileItems - 2; j >= 0; --j)
      run[j] = inside[j] && inside[j + 1] && bucket[j] == bucket[j + 1] ? run[j + 1] + 1 : 1;
    // A warp whose pairs all fall into one bucket (sorted keys, between two buckets' edges) takes
    // its places with one atomic: a run's atomic from every lane on one word would queue 32 deep.
    const std::uint32_t first_lane_bucket = __shfl_sync(0xFFFFFFFFu, bucket[0], 0);
    if (__all_sync(0xFFFFFFFFu, inside[0] && run[0] == Policy::kTileItems && bucket[0] == first_lane_bucket)) {
      std::uint32_t warp_base = 0;
      if ((threadIdx.x & 31) == 0) warp_base = atomicAdd(&counters[first_lane_bucket - low], 32u * Policy::kTileItems);
      warp_base = __shfl_sync(0xFFFFFFFFu, warp_base, 0) + (threadIdx.x & 31) * Policy::kTileItems;
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; ++j) rank[j] = warp_base + j;
    } else {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; ++j) {
        if (!inside[j]) continue;
        if (j > 0 && inside[j - 1] && bucket[j - 1] == bucket[j])
          rank[j] = rank[j - 1] + 1;
        else
          rank[j] = atomicAdd(&counters[bucket[j] - low], run[j]);
      }
    }
    // The pairs outside it (a few keys that moved far since the last frame), one atomic per warp
    // and bucket in global memory, written directly. One vote a warp first: most warps have none.
    bool any_outside = false;
#pragma unroll
    for (int j = 0; j < Policy::kTileItems; ++j) any_outside |= mine + j < size && !inside[j];
    const bool warp_outside = __any_sync(0xFFFFFFFFu, any_outside);
#pragma unroll
    for (int j = 0; j < Policy::kTileItems && warp_outside; ++j) {
      const bool outside = mine + j < size && !inside[j];
      if (!__any_sync(0xFFFFFFFFu, outside)) continue;
      const std::uint32_t at = add_by_group(cursors, outside ? bucket[j] : 0u, outside);
      const std::uint32_t value = outside ? values[base + mine + j] : 0u;
      if (outside && at < Policy::kBucketCapacity) {
        const std::uint32_t to = bucket[j] * Policy::kBucketCapacity + at;
        bucketed_keys[to] = key[j];
        bucketed_values[to] = value;
      }
      spill_pair(outside && at >= Policy::kBucketCapacity, key[j], value, spill, plan, overflow);
    }
    __syncthreads();
    std::uint32_t tally[kWindowItems], first[kWindowItems], inside_total;
#pragma unroll
    for (int k = 0; k < kWindowItems; ++k) tally[k] = counters[threadIdx.x * kWindowItems + k];
    Scan(scan_storage).ExclusiveSum(tally, first, inside_total);
#pragma unroll
    for (int k = 0; k < kWindowItems; ++k) {
      const std::uint32_t b = threadIdx.x * kWindowItems + k;
      firsts[b] = first[k];
      if (tally[k] != 0) counters[b] = atomicAdd(&cursors[low + b], tally[k]);
    }
    if (threadIdx.x == 0) in_window_total = inside_total;
    __pipeline_wait_prior(0);
    __syncthreads();
    bool beyond_room = false;  // some pair of this thread's goes to the spill area
#pragma unroll
    for (int j = 0; j < Policy::kTileItems; j += 4) {
      const uint4 four = *reinterpret_cast<const uint4*>(&tile_values[mine + j]);  // one access, not four 8 apart
      const std::uint32_t value[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (inside[j + k]) {
          const std::uint32_t b = bucket[j + k] - low;
          const std::uint32_t p = staged(firsts[b] + rank[j + k]);
          const std::uint32_t at = counters[b] + rank[j + k];  // its place in its bucket's region
          staged_keys[p] = key[j + k];
          staged_values[p] = value[k];
          staged_to[p] = at < Policy::kBucketCapacity ? bucket[j + k] * Policy::kBucketCapacity + at : kSpilled;
          beyond_room |= at >= Policy::kBucketCapacity;
        }
      }
    }
    // Where no pair of the tile's window is spilled (nearly every tile), the write-out needs no
    // vote a pair.
    const bool tile_spills = __syncthreads_or(beyond_room);
    const std::uint32_t in_window = in_window_total;
    if (!tile_spills) {
#pragma unroll
      for (int j = 0; j < Policy::kTileItems; ++j) {
        const std::uint32_t p = j * Policy::kTileThreads + threadIdx.x;
        if (p < in_window) {
          const std::uint32_t to = staged_to[staged(p)];
          bucketed_keys[to] = staged_keys[staged(p)];
          bucketed_values[to] = staged_values[staged(p)];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < Policy::kTileItems && tile_spills; ++j) {
      const std::uint32_t p = j * Policy::kTileThreads + threadIdx.x;
      bool beyond = false;
      if (p < in_window) {
        const std::uint32_t to = staged_to[staged(p)];
        beyond = to == kSpilled;
        if (!beyond) {
          bucketed_keys[to] = staged_keys[staged(p)];
          bucketed_values[to] = staged_values[staged(p)];
        }
      }
      if (__any_sync(0xFFFFFFFFu, beyond))  // p < kTile
        spill_pair(beyond, staged_keys[staged(p)], staged_values[staged(p)], spill, plan, overflow);
    }
  }
  // Said once, after the last tile: a barrier at each tile's end for it held every warp back until
  // the slowest had written its pairs (the next tile's first writes to shared memory come after
  // its own barriers).
  if (__syncthreads_or(overflow) && threadIdx.x == 0) atomicOr(&plan->overflow, 1u);
}

}  // namespace depthsort::run_bucket
