// depth-bucket's step `depth + scatter` (common.cuh has the design): a persistent grid walks tiles
// of the frame's primitives in scene order. Each thread computes its primitives' keys and buckets
// (the search's table and splitters read through L1); the tile is counted per bucket in shared
// memory, the counts scanned in place into the tile's places, room reserved at each bucket's region
// with one global atomic per bucket and tile (a thread's reservations in flight together), and the
// pairs staged grouped by bucket and written from there in runs. The pairs beyond a region's room
// go to the spill area, in one run a bucket and tile (one global atomic each: a heavy depth may
// spill hundreds of thousands). The last block to finish turns the counts into the buckets' places in
// the order, lists the buckets beyond their room and posts the verdict.
#pragma once

#include "depth_bucket/common.cuh"

namespace depthsort::depth_bucket {

template <int kThreads, int kItems>
struct ScatterShape {
  static constexpr int threads = kThreads;
  static constexpr int items = kItems;
  static constexpr std::uint32_t tile = kThreads * kItems;
  // A thread's reservations in flight at once (more buckets: several rounds of them).
  static constexpr int reservations = 16;
  // Shared memory: the staged tile (pairs and their buckets), one word per bucket and one more.
  static std::size_t smem_bytes(std::uint32_t buckets) { return tile * 8 + tile * 2 + 4 * (buckets + 1) + 16; }
};

// The last block's part: the buckets' places in the order, the buckets beyond their room (listed
// ascending with where each starts in the sorted union of their pairs), the verdict, posted.
template <int kThreads>
__device__ void finish_scatter(const Layout& layout, const std::uint32_t* splitters, const std::uint32_t* counts,
                               std::uint32_t* words, std::uint32_t* places, Control* control,
                               primitives::Posted<Posting>* post, std::uint32_t sequence) {
  __shared__ std::uint32_t s_largest, s_overflowed;
  if (threadIdx.x == 0) s_largest = 0, s_overflowed = 0;
  __syncthreads();
  std::uint32_t largest = 0;
  for (std::uint32_t b = threadIdx.x; b < layout.buckets; b += kThreads) {
    const std::uint32_t count = __ldcg(&counts[b]);
    words[b] = count;
    largest = max(largest, count);
    if (count > layout.capacity) {
      const std::uint32_t at = atomicAdd(&s_overflowed, 1u);
      if (at < kMaxOverflowed) control->overflowed_bucket[at] = b;
    }
  }
  atomicMax(&s_largest, largest);
  __syncthreads();
  block_scan_in_place<kThreads>(words, layout.buckets);
  for (std::uint32_t b = threadIdx.x; b <= layout.buckets; b += kThreads) places[b] = words[b];
  if (threadIdx.x != 0) return;
  const std::uint32_t overflowed = s_overflowed;
  const std::uint32_t spilled = control->spilled;
  std::uint32_t verdict = kFitted, pairs = 0, bits = 32;
  if (overflowed > kMaxOverflowed || spilled > layout.spill_capacity) {
    verdict = kOverflow;
  } else if (overflowed > 0) {
    verdict = kSpilled;
    std::uint32_t* list = control->overflowed_bucket;
    for (std::uint32_t i = 1; i < overflowed; ++i)  // ascending: the union sorts in bucket order
      for (std::uint32_t j = i; j > 0 && list[j - 1] > list[j]; --j) {
        const std::uint32_t swap = list[j];
        list[j] = list[j - 1];
        list[j - 1] = swap;
      }
    for (std::uint32_t i = 0; i < overflowed; ++i) {
      control->overflowed_first[i] = pairs;
      control->overflowed_count[i] = __ldcg(&counts[list[i]]);
      pairs += control->overflowed_count[i];
    }
    // Every key of the union lies between the first listed bucket's lower bound and the last's
    // upper one (the end buckets open to either end of the keys).
    std::uint32_t low = 0, high = 0xFFFFFFFFu, unused = 0;
    if (list[0] > 0) bucket_bounds(splitters, list[0], low, unused);
    if (list[overflowed - 1] < layout.buckets - 1) bucket_bounds(splitters, list[overflowed - 1], unused, high);
    bits = low == high ? 0u : 32u - static_cast<std::uint32_t>(__clz(low ^ high));
  }
  control->overflowed = verdict == kSpilled ? overflowed : 0;
  control->verdict = verdict;
  control->tiles_done = 0;
  control->table.repeats = 0;  // the next frame's sample sets it again
  __threadfence();
  primitives::post_to_host(post, Posting{verdict, s_largest, control->overflowed, pairs, bits}, sequence);
}

// Two blocks a multiprocessor: one's tile is loaded and computed while the other's waits on its
// reservations and writes.
template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads, 2)
    scatter_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* __restrict__ splitters,
                   const std::uint16_t* __restrict__ table, std::uint32_t* __restrict__ counts,
                   uint2* __restrict__ regions, uint2* __restrict__ spill, std::uint32_t* __restrict__ places,
                   Control* __restrict__ control, primitives::Posted<Posting>* post, std::uint32_t sequence) {
  using Shape = ScatterShape<kThreads, kItems>;
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t buckets = layout.buckets;
  auto* s_pairs = reinterpret_cast<uint2*>(smem);                            // tile
  auto* s_bucket = reinterpret_cast<std::uint16_t*>(s_pairs + Shape::tile);  // tile
  auto* s_words = reinterpret_cast<std::uint32_t*>(s_bucket + Shape::tile);  // buckets + 1
  __shared__ bool s_last;
  // The tile's buckets beyond their room: each one's run of spilled pairs reserved in the spill
  // area with one atomic, and the shift from a pair's slot to its place there. More of them than
  // a frame may overflow means the frame is handed back anyway: those pairs are not written.
  constexpr std::uint32_t kSpillEntries = kMaxOverflowed + 1;
  __shared__ std::uint32_t s_spills, s_spill_bucket[kSpillEntries], s_spill_shift[kSpillEntries];

  if (control->verdict != kFitted) {  // the sample called the frame off
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      control->table.repeats = 0;
      primitives::post_to_host(post, Posting{kUnfit, 0, 0, 0}, sequence);
    }
    return;
  }
  const Table range = control->table;
  const std::uint32_t tiles = (layout.n + Shape::tile - 1) / Shape::tile;
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (std::uint32_t b = threadIdx.x; b <= buckets; b += kThreads) s_words[b] = 0;
    if (threadIdx.x == 0) s_spills = 0;
    const std::uint32_t first = tile * Shape::tile;
    const std::uint32_t in_tile = min(Shape::tile, layout.n - first);
    std::uint32_t key[kItems], bucket[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      key[j] = at < in_tile ? ordered_key(record_key(records, plane, first + at)) : 0u;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      bucket[j] = bucket_of(key[j], first + j * kThreads + threadIdx.x, splitters, table, range);
    __syncthreads();  // the words are cleared
    std::uint32_t rank[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j)  // a plain shared atomic: a tile's neighbours seldom share a bucket
      rank[j] = j * kThreads + threadIdx.x < in_tile ? atomicAdd(&s_words[bucket[j]], 1u) : 0u;
    __syncthreads();
    block_scan_in_place<kThreads>(s_words, buckets);  // the tile's places, by bucket
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      if (at < in_tile) {
        const std::uint32_t staged = s_words[bucket[j]] + rank[j];
        s_pairs[staged] = make_pair(key[j], first + at);
        s_bucket[staged] = static_cast<std::uint16_t>(bucket[j]);
      }
    }
    // Room in each bucket's region for the tile's pairs (a round of reservations queued before the
    // first is waited for; the tile's pairs, staged, are out of the registers by now), and each
    // bucket's word turned into the shift from a staged place to its place there.
    for (std::uint32_t round = 0; round * kThreads * Shape::reservations < buckets; ++round) {
      std::uint32_t reserved[Shape::reservations];
      const std::uint32_t base = round * kThreads * Shape::reservations + threadIdx.x;
#pragma unroll
      for (int k = 0; k < Shape::reservations; ++k) {
        const std::uint32_t b = base + k * kThreads;
        const std::uint32_t count = b < buckets ? s_words[b + 1] - s_words[b] : 0u;
        reserved[k] = count ? atomicAdd(&counts[b], count) : 0u;
        const std::uint32_t end = reserved[k] + count, from = max(reserved[k], layout.capacity);
        if (count && end > layout.capacity) {
          const std::uint32_t at = atomicAdd(&control->spilled, end - from);
          const std::uint32_t entry = atomicAdd(&s_spills, 1u);
          if (entry < kSpillEntries) s_spill_bucket[entry] = b, s_spill_shift[entry] = at - from;
        }
      }
      __syncthreads();  // every count of the round read before a word changes
#pragma unroll
      for (int k = 0; k < Shape::reservations; ++k) {
        const std::uint32_t b = base + k * kThreads;
        if (b < buckets) s_words[b] = reserved[k] - s_words[b];
      }
    }
    __syncthreads();
    for (std::uint32_t staged = threadIdx.x; staged < in_tile; staged += kThreads) {
      const std::uint32_t b = s_bucket[staged];
      const std::uint32_t slot = s_words[b] + staged;
      if (slot < layout.capacity) {
        regions[b * layout.capacity + slot] = s_pairs[staged];  // < 2^31 pairs
      } else {
        const std::uint32_t entries = min(s_spills, kSpillEntries);
        for (std::uint32_t e = 0; e < entries; ++e) {
          const std::uint32_t at = s_spill_shift[e] + slot;  // modulo 2^32: the shift may wrap
          if (s_spill_bucket[e] == b && at < layout.spill_capacity) spill[at] = s_pairs[staged];
        }
      }
    }
    __syncthreads();
  }

  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(&control->tiles_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  finish_scatter<kThreads>(layout, splitters, counts, s_words, places, control, post, sequence);
}

}  // namespace depthsort::depth_bucket
