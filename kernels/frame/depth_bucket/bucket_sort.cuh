// depth-bucket's step `bucket sort` (common.cuh has the design): one block a bucket. Its pairs
// loaded from the region; its keys lie between its two splitters (bucket_bounds; the open-ended
// first and last buckets: between the block's smallest and largest), and a bucket whose keys span at most kSlots
// values (nearly every one: a bucket holds a few thousand of the frame's depths) is sorted by
// counting over the slots its span needs, the others by CUB's block radix sort on the bits their
// span needs. The ids are written from shared memory to the bucket's place in the draw order, and
// the keys at the next frame's splitter ranks that fall in the bucket are kept (in the other
// splitter buffer: blocks still read this frame's). A bucket beyond its room is left to the
// overflowed buckets' step. Every block clears its bucket's count for the next frame, also where
// the frame was called off.
#pragma once

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

#include <cuda/functional>

#include "depth_bucket/common.cuh"

namespace depthsort::depth_bucket {

template <int kThreads, int kItems, int kSlots>
struct BucketShape {
  static constexpr int threads = kThreads;
  static constexpr int items = kItems;
  static constexpr int slots = kSlots;
  static constexpr std::uint32_t capacity = kThreads * kItems;
  // The next frame's splitter ranks a bucket can hold: they lie at least n / inner - 1 >= capacity
  // / 4 apart (a bucket holds at most twice its share), so a bucket holds at most 5.
  static constexpr int max_targets = 8;
  using Radix = cub::BlockRadixSort<std::uint32_t, kThreads, kItems, std::uint32_t, 5>;
  using Exchange = cub::BlockExchange<std::uint32_t, kThreads, kItems>;
  using Reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  union Work {
    std::uint32_t slots[kSlots + 1];
    typename Radix::TempStorage radix;
    typename Exchange::TempStorage exchange;
  };
  struct Storage {
    Work work;
    std::uint32_t sorted_ids[capacity];
    std::uint16_t rank[capacity];  // each pair's rank among its key's (counting), by load position
    typename Reduce::TempStorage reduce;
    std::uint32_t low, high;
    std::uint32_t target_at[max_targets];  // the bucket's positions of the next frame's splitters
    std::uint32_t target_index[max_targets];
    int targets;
  };
};

// 1024 threads a multiprocessor at least (64 registers a thread): while one block waits on its
// bucket's loads another sorts.
template <int kThreads, int kItems, int kSlots>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    bucket_sort_kernel(Layout layout, const uint2* __restrict__ regions, std::uint32_t* __restrict__ counts,
                       const std::uint32_t* __restrict__ places, const Control* __restrict__ control,
                       const std::uint32_t* __restrict__ splitters, std::uint32_t* __restrict__ order,
                       std::uint32_t* __restrict__ next_splitters) {
  using Shape = BucketShape<kThreads, kItems, kSlots>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& storage = *reinterpret_cast<typename Shape::Storage*>(smem);
  const std::uint32_t b = blockIdx.x;
  const std::uint32_t count = __ldcg(&counts[b]);
  const std::uint32_t verdict = control->verdict;
  __syncthreads();  // every thread has read the count before it is cleared
  if (threadIdx.x == 0) counts[b] = 0;
  if ((verdict != kFitted && verdict != kSpilled) || count == 0 || count > layout.capacity) return;
  const std::uint32_t place = places[b];

  std::uint32_t key[kItems], id[kItems];
  const uint2* region = regions + b * layout.capacity;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t at = j * kThreads + threadIdx.x;
    const uint2 pair = at < count ? __ldcs(&region[at]) : make_uint2(0xFFFFFFFFu, 0xFFFFFFFFu);
    key[j] = pair.x;
    id[j] = pair.y;
  }
  // The next frame's inner splitters that fall in this bucket: j = 1 .. inner - 1 is the key at
  // rank floor(j n / inner); the order's smallest key and its largest plus one around them (Layout).
  if (threadIdx.x == 0) {
    const std::uint64_t inner = layout.inner(), n = layout.n;
    int targets = 0;
    for (std::uint64_t j = max((static_cast<std::uint64_t>(place) * inner + n - 1) / n, std::uint64_t{1});
         j < inner && targets < Shape::max_targets; ++j) {
      const std::uint64_t rank = j * n / inner;
      if (rank >= place + count) break;
      storage.target_at[targets] = static_cast<std::uint32_t>(rank - place);
      storage.target_index[targets++] = static_cast<std::uint32_t>(kEndBuckets + j - 1);
    }
    storage.targets = targets;
  }
  // The keys' bounds: [splitters[b - 1], splitters[b] - 1], or the block's own at an open end.
  std::uint32_t low, high;
  if (b > 0 && b + 1 < layout.buckets) {
    bucket_bounds(splitters, b, low, high);
  } else {
    std::uint32_t lo = 0xFFFFFFFFu, hi = 0u;
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (j * kThreads + threadIdx.x < count) lo = min(lo, key[j]), hi = max(hi, key[j]);
    lo = typename Shape::Reduce(storage.reduce).Reduce(lo, ::cuda::minimum<>{});
    __syncthreads();
    hi = typename Shape::Reduce(storage.reduce).Reduce(hi, ::cuda::maximum<>{});
    if (threadIdx.x == 0) storage.low = lo, storage.high = hi;
    __syncthreads();
    low = storage.low;
    high = storage.high;
  }
  const std::uint32_t span = high - low;  // the keys take span + 1 values
  // Where the sorted key at `at` goes: the draw order takes its id; a splitter position its key.
  const auto place_pair = [&](std::uint32_t at, std::uint32_t k, std::uint32_t value) {
    storage.sorted_ids[at] = value;
    for (int t = 0; t < storage.targets; ++t)
      if (storage.target_at[t] == at) next_splitters[storage.target_index[t]] = k;
  };

  if (span < static_cast<std::uint32_t>(kSlots)) {
    // Counting: one shared atomic a key (its rank among its key's, kept in shared memory), one scan
    // of the slots the span needs, each pair placed by its key's slot and its rank.
    const std::uint32_t slots = span + 1;
    for (std::uint32_t s = threadIdx.x; s < slots; s += kThreads) storage.work.slots[s] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      if (at < count) storage.rank[at] = static_cast<std::uint16_t>(atomicAdd(&storage.work.slots[key[j] - low], 1u));
    }
    __syncthreads();
    block_scan_in_place<kThreads>(storage.work.slots, slots);
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      if (at < count) place_pair(storage.work.slots[key[j] - low] + storage.rank[at], key[j], id[j]);
    }
  } else {
    // A wide bucket (an open end, far outliers): CUB's radix sort of the bits the span needs. The
    // pads (the largest key) sort after every real key: they come last in the blocked arrangement,
    // and the sort is stable.
    const int bits = 32 - __clz(span);
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (j * kThreads + threadIdx.x < count) key[j] -= low;
    typename Shape::Exchange(storage.work.exchange).StripedToBlocked(key);
    __syncthreads();
    typename Shape::Exchange(storage.work.exchange).StripedToBlocked(id);
    __syncthreads();
    typename Shape::Radix(storage.work.radix).SortBlockedToStriped(key, id, 0, bits);
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      if (at < count) place_pair(at, key[j] + low, id[j]);
    }
  }
  __syncthreads();
  for (std::uint32_t at = threadIdx.x; at < count; at += kThreads) order[place + at] = storage.sorted_ids[at];
  if (threadIdx.x == 0 && place == 0) next_splitters[kEndBuckets - 1] = low;
  if (threadIdx.x == 0 && place + count == layout.n)
    next_splitters[kEndBuckets + layout.inner() - 1] = high == 0xFFFFFFFFu ? high : high + 1;
}

}  // namespace depthsort::depth_bucket
