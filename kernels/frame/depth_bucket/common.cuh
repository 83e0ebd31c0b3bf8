// depth-bucket: the frame's back-to-front order fused with its depth pass (depthsort's own design,
// docs/algorithms/depth-bucket.md). A sample sort of two passes over the frame's primitives: the
// first (scatter.cuh) computes each primitive's depth key from its record and writes (key, id)
// into the bucket it falls in; the second (bucket_sort.cuh) sorts each bucket on chip and writes
// the ids straight into the draw order: about 40 bytes a primitive, against about 100 for a depth
// pass, a library sort and a gather.
//
// The splitters are the last frame's order at equal ranks (a frame's depths move little from the
// last): the second pass picks them from the buckets it sorts. A sample of this frame's keys
// checks them first (sample.cuh); the few buckets that overflow their region spill the rest, and
// are sorted after the others (overflow.cuh); a frame they do not fit at all is handed back to
// the caller, which orders it the plain way (depth pass and a sort) and keeps its splitters.
//
// This file: what the steps share.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/primitives/pinned_mailbox.hpp"

namespace depthsort::depth_bucket {

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
  std::uint32_t spill_capacity = 0;  // pairs the spill area holds
  __host__ __device__ std::uint32_t inner() const { return buckets - 2 * kEndBuckets; }
};

// The most buckets a frame has (the scatter's shared words, the table's 16-bit entries), and the
// most buckets beyond their room that are sorted after the others (more: the frame is handed back).
inline constexpr std::uint32_t kMaxBuckets = 16384;
inline constexpr std::uint32_t kMaxOverflowed = 16;

// The search's table: the range of the splitters' ordered keys cut into steps of 2^shift, and for
// each step the splitters below its first key, so that a key's bucket is a search between two
// neighbouring entries (usually no step or one) instead of one over every splitter.
inline constexpr int kTableBits = 13;
inline constexpr std::uint32_t kTableSteps = 1u << kTableBits;

struct Table {
  std::uint32_t low = 0;      // the first splitter's ordered key
  std::uint32_t shift = 0;    // a step covers 2^shift ordered keys
  std::uint32_t steps = 1;    // entries used: steps + 1
  std::uint32_t repeats = 0;  // two neighbouring splitters are equal (one key heavier than a bucket)
};

// A step's verdict on the frame, in device memory and posted to the host.
enum Verdict : std::uint32_t {
  kFitted = 0,    // every bucket in its region
  kSpilled = 1,   // a few buckets beyond their room: sorted after the others
  kUnfit = 2,     // the sample found the splitters unfit: handed back
  kOverflow = 3,  // too many buckets or pairs beyond their room: handed back
};

struct Control {
  std::uint32_t verdict = kFitted;
  std::uint32_t tiles_done = 0;    // the scatter's last block
  std::uint32_t samples_done = 0;  // the sample's last block
  std::uint32_t spilled = 0;       // pairs written to the spill area
  Table table{};
  // The buckets beyond their room, ascending, with their pairs and where those start in the
  // sorted union of their pairs.
  std::uint32_t overflowed = 0;
  std::uint32_t overflowed_bucket[kMaxOverflowed];
  std::uint32_t overflowed_count[kMaxOverflowed];
  std::uint32_t overflowed_first[kMaxOverflowed];
};

struct Posting {
  std::uint32_t verdict = kFitted;
  std::uint32_t largest_bucket = 0;  // pairs in the fullest bucket
  std::uint32_t overflowed = 0;      // buckets beyond their room
  std::uint32_t overflow_pairs = 0;  // their pairs, in their regions and the spill area
  // The low key bits in which those pairs can differ (every higher bit is shared by their buckets'
  // bounds): the overflowed buckets' sort looks at these alone, 0 where they hold one key value.
  std::uint32_t overflow_bits = 32;
};

// The range of the table for `splitter_count` splitters (every block computes it alike).
__device__ __forceinline__ Table table_range(const std::uint32_t* splitters, std::uint32_t splitter_count) {
  Table range;
  range.low = splitters[0];
  const std::uint32_t span = splitters[splitter_count - 1] - range.low;
  const int bits = span == 0 ? 0 : 32 - __clz(span);
  range.shift = bits > kTableBits ? static_cast<std::uint32_t>(bits - kTableBits) : 0u;
  range.steps = (span >> range.shift) + 1;
  return range;
}

// The number of splitters[0, count) below `key` (a binary search over all of them).
__device__ __forceinline__ std::uint32_t splitters_below(const std::uint32_t* splitters, std::uint32_t count,
                                                         std::uint32_t key) {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (splitters[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The bucket of ordered key `key` whose count of splitters at or below it lies in [lo, hi]. A key
// equal to a run of equal splitters (one key value heavier than a bucket in the last frame) goes to
// one of the buckets after each of them, picked by a hash of `spreader` (an id: its low bits follow
// the scene's own patterns, such as every fifth primitive): so one value fills several buckets,
// each of that one key (bucket_bounds).
__device__ __forceinline__ std::uint32_t bucket_between(std::uint32_t key, std::uint32_t spreader,
                                                        const std::uint32_t* splitters, std::uint32_t lo,
                                                        std::uint32_t hi, bool repeats = true) {
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (splitters[mid] <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (repeats && lo > 1 && splitters[lo - 2] == key) {  // two or more splitters equal to the key
    const std::uint32_t first = splitters_below(splitters, lo, key);
    const std::uint32_t hash = (spreader ^ (spreader >> 16)) * 0x45D9F3Bu;
    return first + 1 +
           static_cast<std::uint32_t>((static_cast<std::uint64_t>(hash ^ (hash >> 16)) * (lo - first)) >> 32);
  }
  return lo;
}

// The bucket of ordered key `key` (bucket_between), the table's entries bounding the search: a key
// below the first splitter or beyond the last takes the first or last step, whose bounds still hold
// its bucket (none of the splitters is below it, or all are).
__device__ __forceinline__ std::uint32_t bucket_of(std::uint32_t key, std::uint32_t spreader,
                                                   const std::uint32_t* splitters, const std::uint16_t* table,
                                                   const Table& range) {
  const std::uint32_t offset = key > range.low ? key - range.low : 0u;
  const std::uint32_t step = min(offset >> range.shift, range.steps - 1);
  return bucket_between(key, spreader, splitters, table[step], table[step + 1], range.repeats != 0);
}

// The keys bucket b (not the first or the last) holds: [splitters[b - 1], splitters[b] - 1], or,
// between equal splitters, the one key value they share.
__device__ __forceinline__ void bucket_bounds(const std::uint32_t* splitters, std::uint32_t b, std::uint32_t& low,
                                              std::uint32_t& high) {
  low = splitters[b - 1];
  high = max(splitters[b], low + 1) - 1;
}

// A 64-bit pair as the regions hold it: the ordered key in the low word, the id in the high one.
__device__ __forceinline__ uint2 make_pair(std::uint32_t key, std::uint32_t id) { return make_uint2(key, id); }

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

// Whether global rank `rank` of the order is the next frame's inner splitter j (rank = floor(j n /
// inner), 1 <= j < inner): its index in the splitters then, else -1. For the few pairs of the
// overflowed buckets; the bucket sort lists its bucket's splitter ranks once instead.
__device__ __forceinline__ int splitter_at_rank(std::uint64_t rank, const Layout& layout) {
  const std::uint64_t inner = layout.inner(), n = layout.n;
  const std::uint64_t j = (rank * inner + n - 1) / n;  // the least j with floor(j n / inner) >= rank
  if (j < 1 || j >= inner || j * n / inner != rank) return -1;
  return static_cast<int>(kEndBuckets + j - 1);
}

}  // namespace depthsort::depth_bucket
