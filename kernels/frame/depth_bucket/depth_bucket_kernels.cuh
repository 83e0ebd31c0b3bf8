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
// them (ordered keys, ascending; bucket b holds the keys with b splitters at or below them). The
// last frame's keys fill the `buckets - 2 kEndBuckets` inner buckets at equal ranks (splitter
// kEndBuckets - 1 is its smallest key, splitter buckets - kEndBuckets - 1 its largest plus one);
// kEndBuckets more on each side, each as wide as the mean of the 8 inner buckets at that end, take
// the keys that leave that range (a camera flying forward moves every key the same way: without
// them the keys that leave the range would pile into one open-ended bucket).
inline constexpr std::uint32_t kEndBuckets = 16;

struct Layout {
  std::uint32_t buckets = 1;
  std::uint32_t capacity = 0;
  std::uint32_t n = 0;
  __host__ __device__ std::uint32_t inner() const { return buckets - 2 * kEndBuckets; }
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

// The bucket of ordered key `key`: the number of splitters at or below it. The table's entries
// bound the search: a key below the first splitter or beyond the last takes the first or last step,
// whose bounds still hold its bucket (none of the splitters is below it, or all are).
__device__ __forceinline__ std::uint32_t bucket_of(std::uint32_t key, const std::uint32_t* splitters,
                                                   const std::uint16_t* table, const Table& range) {
  const std::uint32_t offset = key > range.low ? key - range.low : 0u;
  const std::uint32_t step = min(offset >> range.shift, range.steps - 1);
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

// `splitters` holds the inner splitters the last order left (and its smallest and largest key);
// the end buckets' splitters are written beside them (splitters_out: the same array). `most_in_bucket`:
// the most samples a bucket may hold for the splitters to fit.
__global__ void __launch_bounds__(kSampleThreads)
    sample_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* splitters,
                  std::uint32_t* splitters_out, std::uint16_t* __restrict__ table_out,
                  Control* __restrict__ control, std::uint32_t most_in_bucket) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t splitter_count = layout.buckets - 1;
  auto* s_splitters = reinterpret_cast<std::uint32_t*>(smem);
  auto* s_counts = s_splitters + splitter_count;
  auto* s_table = reinterpret_cast<std::uint16_t*>(s_counts + layout.buckets);
  __shared__ std::uint32_t s_largest;

  // The inner splitters as the last order left them, and the end buckets' beside them.
  const std::uint32_t low = kEndBuckets - 1, high = kEndBuckets + layout.inner() - 1;  // smallest, largest + 1
  for (std::uint32_t i = threadIdx.x; i < splitter_count; i += kSampleThreads)
    if (i >= low && i <= high) s_splitters[i] = splitters[i];
  for (std::uint32_t b = threadIdx.x; b < layout.buckets; b += kSampleThreads) s_counts[b] = 0;
  if (threadIdx.x == 0) s_largest = 0;
  __syncthreads();
  if (threadIdx.x < 2 * (kEndBuckets - 1)) {
    const bool below = threadIdx.x < kEndBuckets - 1;
    const std::uint32_t k = below ? threadIdx.x + 1 : threadIdx.x - (kEndBuckets - 1) + 1;  // 1 .. kEndBuckets - 1
    const std::uint64_t width = below ? (s_splitters[low + 8] - s_splitters[low] + 7) / 8
                                      : (s_splitters[high] - s_splitters[high - 8] + 7) / 8;
    if (below) {
      const std::uint64_t step = width * k;
      const std::uint32_t at = s_splitters[low];
      s_splitters[low - k] = step >= at ? 0u : static_cast<std::uint32_t>(at - step);
    } else {
      const std::uint64_t at = static_cast<std::uint64_t>(s_splitters[high]) + width * k;
      s_splitters[high + k] = at > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(at);
    }
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < splitter_count; i += kSampleThreads)
    if (i < low || i > high) splitters_out[i] = s_splitters[i];

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
    atomicAdd(&s_counts[bucket_of(key, s_splitters, s_table, range)], 1u);
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
// Each thread computes its primitives' keys and buckets (the search's table and splitters read
// through L1); the tile is counted per bucket in shared memory (ranks from warp-aggregated
// atomics), the counts scanned in place into the tile's places, room reserved at each bucket's
// region with one global atomic per bucket and tile (all of a thread's in flight at once), and the
// pairs staged grouped by bucket and written from there in runs. A pair beyond its region's room
// is not written: the bucket's count says so, and the last block to finish turns the counts into
// the buckets' places in the order and posts the verdict.
// ------------------------------------------------------------------------------------------------

// The most buckets a frame has: the scatter's reservation holds a thread's share in registers.
inline constexpr std::uint32_t kMaxBuckets = 8192;

template <int kThreads, int kItems>
struct ScatterShape {
  static constexpr int threads = kThreads;
  static constexpr int items = kItems;
  static constexpr std::uint32_t tile = kThreads * kItems;
  static constexpr int buckets_per_thread = (kMaxBuckets + kThreads - 1) / kThreads;
  // Shared memory: the staged tile (pairs and their buckets), one word per bucket and one more.
  static std::size_t smem_bytes(std::uint32_t buckets) { return tile * 8 + tile * 2 + 4 * (buckets + 1) + 16; }
};

// Exclusive sums of words[0, cells) in place, words[cells] = the total (one block: each thread sums
// a contiguous run of cells, one block scan joins the runs, each thread rewrites its own run).
template <int kThreads>
__device__ __forceinline__ void block_scan_in_place(std::uint32_t* words, std::uint32_t cells) {
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  const std::uint32_t per = (cells + kThreads - 1) / kThreads;
  const std::uint32_t begin = min(cells, threadIdx.x * per), end = min(cells, begin + per);
  std::uint32_t sum = 0;
  for (std::uint32_t i = begin; i < end; ++i) sum += words[i];
  std::uint32_t prefix = 0, total = 0;
  Scan(scan).ExclusiveSum(sum, prefix, total);
  for (std::uint32_t i = begin; i < end; ++i) {
    const std::uint32_t count = words[i];
    words[i] = prefix;
    prefix += count;
  }
  if (threadIdx.x == 0) words[cells] = total;
  __syncthreads();
}

// Two blocks a multiprocessor: one's tile is loaded and computed while the other's waits on its
// reservations and writes.
template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads, 2)
    scatter_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* __restrict__ splitters,
                   const std::uint16_t* __restrict__ table, std::uint32_t* __restrict__ counts,
                   uint2* __restrict__ regions, std::uint32_t* __restrict__ places, Control* __restrict__ control,
                   primitives::Posted<Posting>* post, std::uint32_t sequence) {
  using Shape = ScatterShape<kThreads, kItems>;
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t buckets = layout.buckets;
  auto* s_pairs = reinterpret_cast<uint2*>(smem);                                 // tile
  auto* s_bucket = reinterpret_cast<std::uint16_t*>(s_pairs + Shape::tile);       // tile
  auto* s_words = reinterpret_cast<std::uint32_t*>(s_bucket + Shape::tile);       // buckets + 1
  __shared__ bool s_last;

  if (control->verdict != kFitted) {  // the sample called the frame off
    if (blockIdx.x == 0 && threadIdx.x == 0) primitives::post_to_host(post, Posting{kUnfit, 0}, sequence);
    return;
  }
  const Table range = control->table;
  const std::uint32_t tiles = (layout.n + Shape::tile - 1) / Shape::tile;
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (std::uint32_t b = threadIdx.x; b <= buckets; b += kThreads) s_words[b] = 0;
    const std::uint32_t first = tile * Shape::tile;
    const std::uint32_t in_tile = min(Shape::tile, layout.n - first);
    std::uint32_t key[kItems], bucket[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t at = j * kThreads + threadIdx.x;
      key[j] = at < in_tile ? ordered_key(record_key(records, plane, first + at)) : 0u;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) bucket[j] = bucket_of(key[j], splitters, table, range);
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
    // Room in each bucket's region for the tile's pairs (every reservation of the thread queued
    // before the first is waited for; the tile's pairs, staged, are out of the registers by now),
    // and each bucket's word turned into the shift from a staged place to its place there.
    std::uint32_t reserved[Shape::buckets_per_thread];
#pragma unroll
    for (int k = 0; k < Shape::buckets_per_thread; ++k) {
      const std::uint32_t b = threadIdx.x + k * kThreads;
      const std::uint32_t count = b < buckets ? s_words[b + 1] - s_words[b] : 0u;
      reserved[k] = count ? atomicAdd(&counts[b], count) : 0u;
    }
    __syncthreads();  // every count read before a word changes
#pragma unroll
    for (int k = 0; k < Shape::buckets_per_thread; ++k) {
      const std::uint32_t b = threadIdx.x + k * kThreads;
      if (b < buckets) s_words[b] = reserved[k] - s_words[b];
    }
    __syncthreads();
    for (std::uint32_t staged = threadIdx.x; staged < in_tile; staged += kThreads) {
      const std::uint32_t b = s_bucket[staged];
      const std::uint32_t slot = s_words[b] + staged;
      if (slot < layout.capacity) regions[b * layout.capacity + slot] = s_pairs[staged];  // < 2^27 pairs
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
  __shared__ std::uint32_t s_largest;
  if (threadIdx.x == 0) s_largest = 0;
  std::uint32_t largest = 0;
  for (std::uint32_t b = threadIdx.x; b < buckets; b += kThreads) {
    const std::uint32_t count = __ldcg(&counts[b]);
    s_words[b] = count;
    largest = max(largest, count);
  }
  __syncthreads();
  atomicMax(&s_largest, largest);
  block_scan_in_place<kThreads>(s_words, buckets);
  for (std::uint32_t b = threadIdx.x; b <= buckets; b += kThreads) places[b] = s_words[b];
  if (threadIdx.x == 0) {
    const std::uint32_t verdict = s_largest > layout.capacity ? kOverflow : kFitted;
    control->verdict = verdict;
    control->tiles_done = 0;
    __threadfence();
    primitives::post_to_host(post, Posting{verdict, s_largest}, sequence);
  }
}

// ------------------------------------------------------------------------------------------------
// Step `bucket sort`: one block a bucket. Its pairs loaded from the region; its keys lie between
// its two splitters (the open-ended first and last buckets: between the block's smallest and
// largest), and a bucket whose keys span at most kSlots values (nearly every one: a bucket holds a
// few thousand of the frame's depths) is sorted by counting over the slots its span needs, the
// others by CUB's block radix sort on the bits their span needs. The ids are written from shared
// memory to the bucket's place in the draw order, and the keys at the next frame's splitter ranks
// that fall in the bucket are kept (in the other splitter buffer: blocks still read this frame's).
// Every block clears its bucket's count for the next frame, also where the frame was called off.
// ------------------------------------------------------------------------------------------------

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
  const std::uint32_t count = min(__ldcg(&counts[b]), layout.capacity);
  const bool fitted = control->verdict == kFitted;
  __syncthreads();  // every thread has read the count before it is cleared
  if (threadIdx.x == 0) counts[b] = 0;
  if (!fitted || count == 0) return;
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
    low = splitters[b - 1];
    high = splitters[b] - 1;  // the bucket holds a key, so splitters[b] > splitters[b - 1]
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
  if (threadIdx.x == 0 && place + count == layout.n) next_splitters[kEndBuckets + layout.inner() - 1] = high == 0xFFFFFFFFu ? high : high + 1;
}

// ------------------------------------------------------------------------------------------------
// The splitters from an order made another way (the plain path after a called-off frame): the
// inner ones the sorted keys at ranks floor(j n / inner), the smallest and largest key around them.
// ------------------------------------------------------------------------------------------------
__global__ void keep_splitters_kernel(const float* __restrict__ sorted_keys, Layout layout,
                                      std::uint32_t* __restrict__ splitters) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;  // 0: the smallest key; inner: the largest
  const std::uint32_t inner = layout.inner();
  if (j > inner) return;
  if (j == 0) {
    splitters[kEndBuckets - 1] = ordered_key(sorted_keys[0]);
  } else if (j == inner) {
    const std::uint32_t last = ordered_key(sorted_keys[layout.n - 1]);
    splitters[kEndBuckets + inner - 1] = last == 0xFFFFFFFFu ? last : last + 1;
  } else {
    const std::uint64_t rank = static_cast<std::uint64_t>(j) * layout.n / inner;
    splitters[kEndBuckets + j - 1] = ordered_key(sorted_keys[rank]);
  }
}

}  // namespace depthsort::depth_bucket
