// depth-bucket: the frame's back-to-front order fused with its depth pass (depthsort's own design,
// docs/algorithms/depth-bucket.md). A sample sort of two passes over the frame's primitives, whose
// first pass computes each primitive's depth key from its record and writes (key, id) into the
// bucket it falls in, and whose second pass sorts each bucket on chip and writes the ids straight
// into the draw order: about 40 bytes a primitive against about 100 for a depth pass, a library
// sort and a gather.
//
// The splitters are the last frame's order at equal ranks (a frame's depths move little from the
// last): the second pass picks them from the buckets it sorts. A sample of this frame's keys
// checks them first, and a bucket that overflows its region in the first pass is counted: either
// way the frame is handed back to the caller, which orders it the plain way (depth pass and a
// sort) and keeps its splitters for the next frame.
#pragma once

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/primitives/pinned_mailbox.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::depth_bucket {

// ------------------------------------------------------------------------------------------------
// What the passes share.
// ------------------------------------------------------------------------------------------------

// The frame's primitives as the first pass reads them (depth.hpp's FrameRecords, 32-bit counts).
struct Records {
  const float4* centroids = nullptr;
  const ParticleVertex* particles = nullptr;
  std::uint32_t triangles = 0;
  std::uint32_t n = 0;
};

// The key of primitive `id`: depth.hpp's record_key, which the plain depth pass computes too.
__device__ __forceinline__ float record_key(const Records& records, const DepthPlane& plane, std::uint32_t id) {
  return depthsort::record_key(plane, records.centroids, records.triangles, records.particles, id);
}

// The buckets of one frame: `buckets` regions of `capacity` pairs each, and the splitters between
// them (ordered keys, ascending; bucket b holds the keys with b splitters at or below them).
struct Layout {
  std::uint32_t buckets = 1;
  std::uint32_t capacity = 0;
  std::uint32_t n = 0;
};

// The search's table: the range of the splitters' ordered keys cut into steps of 2^shift, and for
// each step the splitters below its first key, so that a key's bucket is a search between two
// neighbouring entries (usually no step or one) instead of one over every splitter.
inline constexpr int kTableBits = 13;
inline constexpr std::uint32_t kTableSteps = 1u << kTableBits;

struct Table {
  std::uint32_t low = 0;    // the first splitter's ordered key
  std::uint32_t shift = 0;  // a step covers 2^shift ordered keys
  std::uint32_t steps = 1;  // entries used: steps + 1
};

// A pass's verdict on the frame, in device memory and posted to the host.
enum Verdict : std::uint32_t { kFitted = 0, kUnfit = 1, kOverflow = 2 };

struct Control {
  std::uint32_t verdict = kFitted;
  std::uint32_t tiles_done = 0;
  Table table{};
};

struct Posting {
  std::uint32_t verdict = kFitted;
  std::uint32_t largest_bucket = 0;  // pairs in the fullest bucket (fitted frames)
};

// The bucket of ordered key `key`: the number of splitters at or below it. `splitters` has
// layout.buckets - 1 entries; the table's entries bound the search.
__device__ __forceinline__ std::uint32_t bucket_of(std::uint32_t key, const std::uint32_t* splitters,
                                                   std::uint32_t splitter_count, const std::uint16_t* table,
                                                   const Table& range) {
  if (splitter_count == 0 || key < splitters[0]) return 0;
  if (key >= splitters[splitter_count - 1]) return splitter_count;
  const std::uint32_t step = (key - range.low) >> range.shift;
  std::uint32_t lo = table[step], hi = table[step + 1];
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (splitters[mid] <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A 64-bit pair as the regions hold it: the ordered key in the low word, the id in the high one.
__device__ __forceinline__ uint2 make_pair(std::uint32_t key, std::uint32_t id) { return make_uint2(key, id); }

// Where sample i of `samples` looks: one place in each of `samples` equal strides, at an offset a
// hash of i draws (a fixed offset would see one phase of a periodic input, such as a mesh's rings).
__device__ __forceinline__ std::uint32_t sample_position(std::uint32_t i, std::uint32_t samples, std::uint32_t n) {
  const std::uint64_t begin = static_cast<std::uint64_t>(i) * n / samples;
  const std::uint64_t end = static_cast<std::uint64_t>(i + 1) * n / samples;
  std::uint32_t h = i * 0x9E3779B9u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  const std::uint64_t width = end > begin ? end - begin : 1;
  return static_cast<std::uint32_t>(begin + h % width);
}

// ------------------------------------------------------------------------------------------------
// Step `sample`: the search table of the kept splitters, and a sample of this frame's keys
// counted into their buckets. A bucket with far more of the sample than its share means the
// splitters no longer fit (a cut, a new scene): the frame is called off before the first pass.
// ------------------------------------------------------------------------------------------------

inline constexpr int kSampleThreads = 1024;
inline constexpr int kSamplesPerThread = 8;
inline constexpr std::uint32_t kSamples = kSampleThreads * kSamplesPerThread;

// Shared memory: the splitters, the table, the sample's counts per bucket.
inline std::size_t sample_smem_bytes(std::uint32_t buckets) {
  return (buckets - 1) * sizeof(std::uint32_t) + (kTableSteps + 1) * sizeof(std::uint16_t) +
         buckets * sizeof(std::uint32_t) + 16;
}

// `most_in_bucket`: the most samples a bucket may hold for the splitters to fit.
__global__ void __launch_bounds__(kSampleThreads)
    sample_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* __restrict__ splitters,
                  std::uint16_t* __restrict__ table_out, Control* __restrict__ control,
                  std::uint32_t most_in_bucket) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t splitter_count = layout.buckets - 1;
  auto* s_splitters = reinterpret_cast<std::uint32_t*>(smem);
  auto* s_counts = s_splitters + splitter_count;
  auto* s_table = reinterpret_cast<std::uint16_t*>(s_counts + layout.buckets);
  __shared__ std::uint32_t s_largest;

  for (std::uint32_t i = threadIdx.x; i < splitter_count; i += kSampleThreads) s_splitters[i] = splitters[i];
  for (std::uint32_t b = threadIdx.x; b < layout.buckets; b += kSampleThreads) s_counts[b] = 0;
  if (threadIdx.x == 0) s_largest = 0;
  __syncthreads();

  Table range;
  if (splitter_count > 0) {
    range.low = s_splitters[0];
    const std::uint32_t span = s_splitters[splitter_count - 1] - range.low;
    const int bits = span == 0 ? 0 : 32 - __clz(span);
    range.shift = bits > kTableBits ? static_cast<std::uint32_t>(bits - kTableBits) : 0u;
    range.steps = (span >> range.shift) + 1;
  }
  // Entry s: the splitters below the first key of step s (the last entry: every splitter).
  for (std::uint32_t s = threadIdx.x; s <= range.steps; s += kSampleThreads) {
    std::uint32_t below = splitter_count;
    if (s < range.steps) {
      const std::uint32_t first = range.low + (s << range.shift);
      std::uint32_t lo = 0, hi = splitter_count;
      while (lo < hi) {
        const std::uint32_t mid = (lo + hi) >> 1;
        if (s_splitters[mid] < first) lo = mid + 1;
        else hi = mid;
      }
      below = lo;
    }
    s_table[s] = static_cast<std::uint16_t>(below);
    table_out[s] = static_cast<std::uint16_t>(below);
  }
  __syncthreads();

#pragma unroll
  for (int j = 0; j < kSamplesPerThread; ++j) {
    const std::uint32_t i = j * kSampleThreads + threadIdx.x;
    const std::uint32_t id = sample_position(i, kSamples, layout.n);
    const std::uint32_t key = ordered_key(record_key(records, plane, id));
    atomicAdd(&s_counts[bucket_of(key, s_splitters, splitter_count, s_table, range)], 1u);
  }
  __syncthreads();
  std::uint32_t largest = 0;
  for (std::uint32_t b = threadIdx.x; b < layout.buckets; b += kSampleThreads) largest = max(largest, s_counts[b]);
  atomicMax(&s_largest, largest);
  __syncthreads();
  if (threadIdx.x == 0) {
    control->table = range;
    control->verdict = s_largest > most_in_bucket ? kUnfit : kFitted;
    control->tiles_done = 0;
  }
}

// ------------------------------------------------------------------------------------------------
// Step `depth + scatter`: a persistent grid walks tiles of the frame's primitives in scene order.
// Each thread computes its primitives' keys and buckets; the tile is counted per bucket in shared
// memory (ranks from warp-aggregated atomics), room is reserved at each bucket's region with one
// global atomic per bucket and tile, and the pairs are staged grouped by bucket and written from
// there in runs. A pair beyond its region's room is not written: the bucket's count says so, and
// the last block to finish turns the counts into the buckets' places in the order and posts the
// verdict.
// ------------------------------------------------------------------------------------------------

template <int kThreads, int kItems>
struct ScatterShape {
  static constexpr int threads = kThreads;
  static constexpr int items = kItems;
  static constexpr std::uint32_t tile = kThreads * kItems;
  // Shared memory: splitters, table, per-bucket counts and places, the staged tile and its buckets.
  static std::size_t smem_bytes(std::uint32_t buckets) {
    return (buckets - 1) * 4 + (kTableSteps + 1) * 2 + 4 * buckets + 4 * (buckets + 1) + tile * 8 + tile * 2 + 64;
  }
};

template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* __restrict__ splitters,
                   const std::uint16_t* __restrict__ table, std::uint32_t* __restrict__ counts,
                   uint2* __restrict__ regions, std::uint32_t* __restrict__ places, Control* __restrict__ control,
                   primitives::Posted<Posting>* post, std::uint32_t sequence) {
  using Shape = ScatterShape<kThreads, kItems>;
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t buckets = layout.buckets, splitter_count = buckets - 1;
  auto* s_pairs = reinterpret_cast<uint2*>(smem);                          // tile
  auto* s_splitters = reinterpret_cast<std::uint32_t*>(s_pairs + Shape::tile);  // buckets - 1
  auto* s_counts = s_splitters + splitter_count;                                // buckets: counts, then deltas
  auto* s_first = s_counts + buckets;                                           // buckets + 1
  auto* s_table = reinterpret_cast<std::uint16_t*>(s_first + buckets + 1);      // kTableSteps + 1
  auto* s_bucket = s_table + kTableSteps + 1;                                   // tile
  __shared__ bool s_last;

  if (control->verdict != kFitted) {  // the sample called the frame off
    if (blockIdx.x == 0 && threadIdx.x == 0) primitives::post_to_host(post, Posting{kUnfit, 0}, sequence);
    return;
  }
  const Table range = control->table;
  for (std::uint32_t i = threadIdx.x; i < splitter_count; i += kThreads) s_splitters[i] = splitters[i];
  for (std::uint32_t s = threadIdx.x; s <= range.steps; s += kThreads) s_table[s] = table[s];

  const std::uint32_t tiles = (layout.n + Shape::tile - 1) / Shape::tile;
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (std::uint32_t b = threadIdx.x; b < buckets; b += kThreads) s_counts[b] = 0;
    __syncthreads();
    const std::uint32_t first = tile * Shape::tile;
    const std::uint32_t in_tile = min(Shape::tile, layout.n - first);
    std::uint32_t key[kItems], bucket[kItems], rank[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      key[j] = at < in_tile ? ordered_key(record_key(records, plane, first + at)) : 0u;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      bucket[j] = bucket_of(key[j], s_splitters, splitter_count, s_table, range);
      rank[j] = primitives::warp_aggregated_add(s_counts, bucket[j], at < in_tile, true);
    }
    __syncthreads();
    primitives::block_cumulative_counts<kThreads>(s_counts, static_cast<int>(buckets), s_first);
    // Room in each bucket's region for the tile's pairs, and the shift from a staged place to a
    // place in the region (stored over the count, which is not needed after it).
    for (std::uint32_t b = threadIdx.x; b < buckets; b += kThreads) {
      const std::uint32_t count = s_first[b + 1] - s_first[b];
      const std::uint32_t at = count ? atomicAdd(&counts[b], count) : 0u;
      s_counts[b] = at - s_first[b];
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      if (at < in_tile) {
        const std::uint32_t staged = s_first[bucket[j]] + rank[j];
        s_pairs[staged] = make_pair(key[j], first + at);
        s_bucket[staged] = static_cast<std::uint16_t>(bucket[j]);
      }
    }
    __syncthreads();
    for (std::uint32_t staged = threadIdx.x; staged < in_tile; staged += kThreads) {
      const std::uint32_t b = s_bucket[staged];
      const std::uint32_t slot = s_counts[b] + staged;
      if (slot < layout.capacity) regions[static_cast<std::size_t>(b) * layout.capacity + slot] = s_pairs[staged];
    }
    __syncthreads();
  }

  // The last block to finish: the buckets' places in the order, and the verdict.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(&control->tiles_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  std::uint32_t largest = 0;
  for (std::uint32_t b = threadIdx.x; b < buckets; b += kThreads) {
    const std::uint32_t count = __ldcg(&counts[b]);
    s_counts[b] = count;
    largest = max(largest, count);
  }
  __syncthreads();
  primitives::block_cumulative_counts<kThreads>(s_counts, static_cast<int>(buckets), s_first);
  for (std::uint32_t b = threadIdx.x; b <= buckets; b += kThreads) places[b] = s_first[b];
  __shared__ std::uint32_t s_largest;
  if (threadIdx.x == 0) s_largest = 0;
  __syncthreads();
  atomicMax(&s_largest, largest);
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::uint32_t verdict = s_largest > layout.capacity ? kOverflow : kFitted;
    control->verdict = verdict;
    control->tiles_done = 0;
    __threadfence();
    primitives::post_to_host(post, Posting{verdict, s_largest}, sequence);
  }
}

// ------------------------------------------------------------------------------------------------
// Step `bucket sort`: one block a bucket. Its pairs loaded from the region; a bucket whose keys
// span fewer than kSlots values (nearly every one: a bucket holds a few thousand of the frame's
// depths) is sorted by counting, the others by CUB's block radix sort on the bits their span needs.
// The ids are written from shared memory to the bucket's place in the draw order, and the keys at
// the next frame's splitter ranks that fall in the bucket are kept. Every block clears its
// bucket's count for the next frame, also where the frame was called off.
// ------------------------------------------------------------------------------------------------

template <int kThreads, int kItems, int kSlots>
struct BucketShape {
  static constexpr int threads = kThreads;
  static constexpr int items = kItems;
  static constexpr int slots = kSlots;
  static constexpr std::uint32_t capacity = kThreads * kItems;
  using Radix = cub::BlockRadixSort<std::uint32_t, kThreads, kItems, std::uint32_t, 5>;
  using Exchange = cub::BlockExchange<std::uint32_t, kThreads, kItems>;
  using Reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  union Work {
    std::uint32_t slots[kSlots];
    typename Radix::TempStorage radix;
    typename Exchange::TempStorage exchange;
  };
  struct Storage {
    Work work;
    std::uint32_t sorted_keys[capacity];
    std::uint32_t sorted_ids[capacity];
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    std::uint32_t low, high;
  };
};

// Two blocks a multiprocessor where their shared memory allows (the register cap keeps the
// compiler from taking a whole register file for one).
template <int kThreads, int kItems, int kSlots>
__global__ void __launch_bounds__(kThreads, 2)
    bucket_sort_kernel(Layout layout, const uint2* __restrict__ regions, std::uint32_t* __restrict__ counts,
                       const std::uint32_t* __restrict__ places, const Control* __restrict__ control,
                       std::uint32_t* __restrict__ order, std::uint32_t* __restrict__ next_splitters) {
  using Shape = BucketShape<kThreads, kItems, kSlots>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& storage = *reinterpret_cast<typename Shape::Storage*>(smem);
  const std::uint32_t b = blockIdx.x;
  const std::uint32_t count = min(__ldcg(&counts[b]), layout.capacity);
  const bool fitted = control->verdict == kFitted;
  __syncthreads();  // every thread has read the count before it is cleared
  if (threadIdx.x == 0) counts[b] = 0;
  if (!fitted || count == 0) return;
  const std::uint32_t place = places[b];

  std::uint32_t key[kItems], id[kItems];
  std::uint32_t low = 0xFFFFFFFFu, high = 0u;
  const uint2* region = regions + static_cast<std::size_t>(b) * layout.capacity;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t at = j * kThreads + threadIdx.x;
    if (at < count) {
      const uint2 pair = __ldcs(&region[at]);
      key[j] = pair.x;
      id[j] = pair.y;
      low = min(low, key[j]);
      high = max(high, key[j]);
    } else {
      key[j] = 0xFFFFFFFFu;
      id[j] = 0xFFFFFFFFu;
    }
  }
  low = typename Shape::Reduce(storage.reduce).Reduce(low, ::cuda::minimum<>{});
  __syncthreads();
  high = typename Shape::Reduce(storage.reduce).Reduce(high, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    storage.low = low;
    storage.high = high;
  }
  __syncthreads();
  low = storage.low;
  high = storage.high;
  const std::uint32_t span = high - low;

  if (span < static_cast<std::uint32_t>(kSlots)) {
    // Counting: one shared atomic a key, one scan of the slots, each pair placed by its rank.
    for (int s = threadIdx.x; s < kSlots; s += kThreads) storage.work.slots[s] = 0;
    __syncthreads();
    std::uint32_t rank[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (j * kThreads + threadIdx.x < count) rank[j] = atomicAdd(&storage.work.slots[key[j] - low], 1u);
    __syncthreads();
    constexpr int kPerThread = kSlots / kThreads;
    static_assert(kSlots % kThreads == 0);
    std::uint32_t local[kPerThread];
    std::uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      local[k] = storage.work.slots[threadIdx.x * kPerThread + k];
      sum += local[k];
    }
    std::uint32_t prefix = 0;
    typename Shape::Scan(storage.scan).ExclusiveSum(sum, prefix);
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      storage.work.slots[threadIdx.x * kPerThread + k] = prefix;
      prefix += local[k];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (j * kThreads + threadIdx.x < count) {
        const std::uint32_t at = storage.work.slots[key[j] - low] + rank[j];
        storage.sorted_keys[at] = key[j];
        storage.sorted_ids[at] = id[j];
      }
    }
  } else {
    // A wide bucket (the open-ended first and last, far outliers): CUB's radix sort of the bits
    // the span needs. The pads' ids sort after every real key: they hold the largest key and come
    // last in the blocked arrangement, and the sort is stable.
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
      if (at < count) {
        storage.sorted_keys[at] = key[j] + low;
        storage.sorted_ids[at] = id[j];
      }
    }
  }
  __syncthreads();
  for (std::uint32_t at = threadIdx.x; at < count; at += kThreads) order[place + at] = storage.sorted_ids[at];
  // Splitter j of the next frame is the key at rank floor(j n / buckets), j = 1 .. buckets - 1.
  const std::uint64_t buckets = layout.buckets, n = layout.n;
  const std::uint64_t first_j = (static_cast<std::uint64_t>(place) * buckets + n - 1) / n;
  for (std::uint64_t j = max(first_j, std::uint64_t{1}) + threadIdx.x; j < buckets; j += kThreads) {
    const std::uint64_t rank = j * n / buckets;
    if (rank >= place + count) break;
    next_splitters[j - 1] = storage.sorted_keys[rank - place];
  }
}

// ------------------------------------------------------------------------------------------------
// The splitters from an order made another way (the plain path after a called-off frame): the
// sorted keys at ranks floor(j n / buckets).
// ------------------------------------------------------------------------------------------------
__global__ void keep_splitters_kernel(const float* __restrict__ sorted_keys, std::uint32_t n, std::uint32_t buckets,
                                      std::uint32_t* __restrict__ splitters) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (j >= buckets) return;
  const std::uint64_t rank = static_cast<std::uint64_t>(j) * n / buckets;
  splitters[j - 1] = ordered_key(sorted_keys[rank]);
}

}  // namespace depthsort::depth_bucket
