// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 5.1, moving the pairs into their buckets: steps `count` (Fig. 4), `offsets` (Section 5.1,
// with the float4-aligned layout of Section 6) and `reposition` (Fig. 6), each as printed (option
// atomic_count=1) and block-aggregated (default; the two-level reposition). The count and scatter
// kernels also serve the partition passes of hybrid-quick (quick_split.cuh).
#pragma once

#include <cstdint>
#include <type_traits>
#include <cub/block/block_scan.cuh>

#include "sort/primitives/tile_io.cuh"
#include "sort/primitives/warp_block.cuh"
#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/binning.cuh"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"

namespace depthsort::hybrid {

// ---------------------------------------------------------------------------------------------
// Sources and destinations of pairs.
// ---------------------------------------------------------------------------------------------
struct FloatPairs {  // separate float keys and values (the input, the shuffled copy, the output)
  const float* keys;
  const std::uint32_t* values;
  __device__ __forceinline__ std::uint32_t key(std::size_t i) const { return ordered_key(keys[i]); }
  __device__ __forceinline__ std::uint32_t value(std::size_t i) const { return values[i]; }
};
struct PackedPairs {  // interleaved (ordered key, value): the bucketed array of the fast path
  const uint2* pairs;
  __device__ __forceinline__ std::uint32_t key(std::size_t i) const { return pairs[i].x; }
  __device__ __forceinline__ uint2 pair(std::size_t i) const { return pairs[i]; }
};
struct PackedStore {
  uint2* pairs;
  __device__ __forceinline__ void store(std::uint32_t pos, std::uint32_t k, std::uint32_t v) const {
    pairs[pos] = make_uint2(k, v);
  }
};
struct SplitStore {  // the paper's layout: separate key and value arrays, buckets padded to 4
  std::uint32_t* keys;
  std::uint32_t* values;
  __device__ __forceinline__ void store(std::uint32_t pos, std::uint32_t k, std::uint32_t v) const {
    keys[pos] = k;
    values[pos] = v;
  }
};

// ---------------------------------------------------------------------------------------------
// Step 4, counting elements per bucket (Fig. 4's pass), aggregated variant: block-local counters
// in shared memory (one global add per block and bucket), or warp-aggregated global adds for L
// beyond shared memory. Also the count pass of each pivot refinement and of the quicksort.
// ---------------------------------------------------------------------------------------------
template <bool kSmem, class Src, class Bucketer>
__global__ void __launch_bounds__(Policy::kPassThreads)
    count_kernel(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* __restrict__ counts,
                 std::uint16_t* __restrict__ bucket_of_element = nullptr) {
  extern __shared__ std::uint32_t sh_count[];
  const auto bucket_of = bucketer.prepare();
  if constexpr (kSmem) {
    for (int i = threadIdx.x; i < buckets; i += Policy::kPassThreads) sh_count[i] = 0;
    __syncthreads();
  }
  primitives::for_each_tile_key<Policy::kPassThreads, Policy::kPassItems>(
      n, [&](std::uint32_t i) { return src.key(i); },
      [&](std::uint32_t i, std::uint32_t key, bool valid) {
        const std::uint32_t b = valid ? bucket_of(i, key) : 0u;
        if (bucket_of_element && valid) bucket_of_element[i] = static_cast<std::uint16_t>(b);
        if constexpr (kSmem) {
          if (valid) atomicAdd(&sh_count[b], 1u);
        } else {
          primitives::warp_aggregated_add(counts, b, valid, false);
        }
      });
  if constexpr (kSmem) {
    __syncthreads();
    for (int i = threadIdx.x; i < buckets; i += Policy::kPassThreads)
      if (sh_count[i]) atomicAdd(&counts[i], sh_count[i]);
  }
}

// Step 4, the default count: as count_kernel, with the pivots and the pivot table copied into
// shared memory (random lookups there cost a few bank conflicts instead of one L1 wavefront per
// distinct line), and each element's bucket kept (16 bits) for the reposition passes.
__global__ void __launch_bounds__(Policy::kPassThreads)
    count_search_smem_kernel(FloatPairs src, std::uint32_t n, BoundSearch bound, int L,
                             std::uint32_t* __restrict__ counts, std::uint16_t* __restrict__ bucket_of) {
  extern __shared__ std::uint32_t sh_search[];
  std::uint32_t* hist = sh_search;
  std::uint32_t* pivots = hist + L;
  std::uint32_t* table = pivots + (L - 1);
  const Binning binning = make_binning(*bound.ctrl, bound.bins);
  for (int i = threadIdx.x; i < L; i += Policy::kPassThreads) hist[i] = 0;
  for (int i = threadIdx.x; i < L - 1; i += Policy::kPassThreads) pivots[i] = bound.pivots[i];
  for (int i = threadIdx.x; i <= binning.bins; i += Policy::kPassThreads) table[i] = bound.table[i];
  __syncthreads();
  const PivotSearch<PlainLoad> search{pivots, table, binning};
  primitives::for_each_tile_key<Policy::kPassThreads, Policy::kPassItems>(
      n, [&](std::uint32_t i) { return src.key(i); },
      [&](std::uint32_t i, std::uint32_t key, bool valid) {
        if (!valid) return;
        const std::uint32_t b = search(i, key);
        bucket_of[i] = static_cast<std::uint16_t>(b);
        atomicAdd(&hist[b], 1u);
      });
  __syncthreads();
  for (int i = threadIdx.x; i < L; i += Policy::kPassThreads)
    if (hist[i]) atomicAdd(&counts[i], hist[i]);
}

// Step 4, Fig. 4 as printed: one thread per element, binary search over the pivots, atomicInc on
// the bucket's global counter; the old value is the element's index in its bucket.
__global__ void count_by_pivot_search_kernel(FloatPairs src, std::uint32_t n, const std::uint32_t* __restrict__ pivots,
                                             int L, std::uint32_t* __restrict__ counts,
                                             std::uint32_t* __restrict__ sublist, std::uint32_t* __restrict__ index) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t k = src.key(i);
  std::uint32_t lo = 0, hi = static_cast<std::uint32_t>(L - 1);
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) >> 1;
    if (__ldg(pivots + mid) <= k)
      lo = mid + 1;
    else
      hi = mid;
  }
  sublist[i] = lo;
  index[i] = atomicInc(&counts[lo], 0xFFFFFFFFu);
}

// Step 6, Fig. 6 as printed: newpos = bucketoffsets[sublist] + index.
template <class Dst>
__global__ void move_to_bucket_place_kernel(FloatPairs src, std::uint32_t n, const std::uint32_t* __restrict__ sublist,
                                            const std::uint32_t* __restrict__ index,
                                            const std::uint32_t* __restrict__ bucket_base, Dst dst) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  dst.store(bucket_base[sublist[i]] + index[i], src.key(i), src.value(i));
}

// Step 6, aggregated variant: each tile ranks its keys per bucket in shared memory, one global
// atomicAdd per bucket and tile reserves the range, then every pair is written at its place.
template <bool kSmem, class Src, class Bucketer, class Dst>
__global__ void __launch_bounds__(Policy::kPassThreads)
    scatter_kernel(Src src, std::uint32_t n, Bucketer bucketer, int buckets, std::uint32_t* __restrict__ cursor,
                   Dst dst) {
  extern __shared__ std::uint32_t sh_rank[];
  const auto bucket_of = bucketer.prepare();
  if constexpr (kSmem) {
    for (int i = threadIdx.x; i < buckets; i += Policy::kPassThreads) sh_rank[i] = 0;
    __syncthreads();
  }
  constexpr std::uint32_t kTileSize = Policy::kPassThreads * Policy::kPassItems;
  for (std::uint32_t base = blockIdx.x * kTileSize; base < n; base += gridDim.x * kTileSize) {
    std::uint32_t key[Policy::kPassItems], value[Policy::kPassItems], bucket[Policy::kPassItems],
        rank[Policy::kPassItems];
#pragma unroll
    for (int q = 0; q < Policy::kPassItems; ++q) {
      const std::uint32_t i = base + q * Policy::kPassThreads + threadIdx.x;
      if constexpr (std::is_same_v<Src, PackedPairs>) {
        const uint2 p = i < n ? src.pair(i) : make_uint2(0u, 0u);
        key[q] = p.x;
        value[q] = p.y;
      } else {
        key[q] = i < n ? src.key(i) : 0u;
        value[q] = i < n ? src.value(i) : 0u;
      }
    }
#pragma unroll
    for (int q = 0; q < Policy::kPassItems; ++q) {
      const std::uint32_t i = base + q * Policy::kPassThreads + threadIdx.x;
      const bool valid = i < n;
      bucket[q] = valid ? bucket_of(i, key[q]) : 0u;
      if constexpr (kSmem) {
        rank[q] = valid ? atomicAdd(&sh_rank[bucket[q]], 1u) : 0xFFFFFFFFu;
      } else {
        rank[q] = primitives::warp_aggregated_add(cursor, bucket[q], valid, true);
      }
    }
    if constexpr (kSmem) {
      __syncthreads();
#pragma unroll
      for (int q = 0; q < Policy::kPassItems; ++q)
        if (rank[q] == 0) sh_rank[bucket[q]] = atomicAdd(&cursor[bucket[q]], sh_rank[bucket[q]]);
      __syncthreads();
#pragma unroll
      for (int q = 0; q < Policy::kPassItems; ++q)
        if (rank[q] != 0xFFFFFFFFu) dst.store(sh_rank[bucket[q]] + rank[q], key[q], value[q]);
      __syncthreads();
#pragma unroll
      for (int q = 0; q < Policy::kPassItems; ++q)
        if (rank[q] == 0) sh_rank[bucket[q]] = 0;
      __syncthreads();
    } else {
#pragma unroll
      for (int q = 0; q < Policy::kPassItems; ++q) {
        const std::uint32_t i = base + q * Policy::kPassThreads + threadIdx.x;
        if (i < n) dst.store(rank[q], key[q], value[q]);
      }
    }
  }
}

// Step 6, two-level reposition (default while L <= 65536). One scatter into L buckets writes L
// interleaved streams of 8-byte pairs: on an H200 that cost two to three times the two-level pass
// at 16M pairs (docs/results/hybrid.md), whether the slots came from global atomics or from a
// per-block count matrix (partial sectors thrash L2). Instead the pairs move twice, each time to at
// most kCoarse (or F = L / kCoarse) destinations: a tile of kScatterTile pairs is ordered by
// destination in shared memory, one global atomicAdd per destination reserves its slots, and the
// pairs leave in runs (coalesced). The bucket of every element comes from the count pass (16-bit),
// so neither pass searches the pivots again.
inline constexpr int kMaxFine = 512;  // F <= 512 since L <= 65536 (16-bit bucket ids)

struct TileScatterSmem {
  std::uint32_t hist[kMaxFine];
  std::uint32_t offs[kMaxFine];
  std::uint32_t base[kMaxFine];
  std::uint32_t key[Policy::kScatterTile];
  std::uint32_t value[Policy::kScatterTile];
  std::uint16_t bucket[Policy::kScatterTile];
  std::uint16_t digit[Policy::kScatterTile];
};

// Orders one tile by digit (< digits) in shared memory and writes it to cursor[digit_base + d] +
// rank, in runs. Elements i >= len of the tile are absent.
template <class Load>
__device__ __forceinline__ void scatter_tile(TileScatterSmem& sm, const Load& load, std::uint32_t len, int digits,
                                             std::uint32_t* __restrict__ cursor, uint2* __restrict__ out_pairs,
                                             std::uint16_t* __restrict__ out_bucket) {
  using Scan = cub::BlockScan<std::uint32_t, Policy::kScatterThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int tid = threadIdx.x;
  for (int d = tid; d < digits; d += Policy::kScatterThreads) sm.hist[d] = 0;
  __syncthreads();
  std::uint32_t k[Policy::kScatterItems], v[Policy::kScatterItems], rank[Policy::kScatterItems];
  std::uint16_t bk[Policy::kScatterItems], dg[Policy::kScatterItems];
#pragma unroll
  for (int q = 0; q < Policy::kScatterItems; ++q) {
    const std::uint32_t i = q * Policy::kScatterThreads + tid;
    if (i < len) load(i, k[q], v[q], bk[q], dg[q]);
  }
#pragma unroll
  for (int q = 0; q < Policy::kScatterItems; ++q) {
    const std::uint32_t i = q * Policy::kScatterThreads + tid;
    rank[q] = i < len ? atomicAdd(&sm.hist[dg[q]], 1u) : 0u;
  }
  __syncthreads();
  const std::uint32_t count = tid < digits ? sm.hist[tid] : 0u;
  std::uint32_t off = 0;
  Scan(scan_temp).ExclusiveSum(count, off);
  if (tid < digits) {
    sm.offs[tid] = off;
    if (count) sm.base[tid] = atomicAdd(&cursor[tid], count);
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < Policy::kScatterItems; ++q) {
    const std::uint32_t i = q * Policy::kScatterThreads + tid;
    if (i < len) {
      const std::uint32_t at = sm.offs[dg[q]] + rank[q];
      sm.key[at] = k[q];
      sm.value[at] = v[q];
      sm.bucket[at] = bk[q];
      sm.digit[at] = dg[q];
    }
  }
  __syncthreads();
  for (std::uint32_t i = tid; i < len; i += Policy::kScatterThreads) {
    const std::uint32_t d = sm.digit[i];
    const std::uint32_t pos = sm.base[d] + (i - sm.offs[d]);
    out_pairs[pos] = make_uint2(sm.key[i], sm.value[i]);
    if (out_bucket) out_bucket[pos] = sm.bucket[i];
  }
  __syncthreads();
}

// Pass 1: input pairs -> coarse buckets (bucket / F), bucket ids carried along.
__global__ void __launch_bounds__(Policy::kScatterThreads, 2)
    scatter_coarse_kernel(FloatPairs src, std::uint32_t n, const std::uint16_t* __restrict__ bucket_of,
                          std::uint32_t fine, int coarse, std::uint32_t* __restrict__ coarse_cursor,
                          uint2* __restrict__ out_pairs, std::uint16_t* __restrict__ out_bucket) {
  extern __shared__ __align__(16) unsigned char scatter_smem[];
  TileScatterSmem& sm = *reinterpret_cast<TileScatterSmem*>(scatter_smem);
  for (std::uint32_t base = blockIdx.x * Policy::kScatterTile; base < n; base += gridDim.x * Policy::kScatterTile) {
    const std::uint32_t len = min(static_cast<std::uint32_t>(Policy::kScatterTile), n - base);
    scatter_tile(
        sm,
        [&](std::uint32_t i, std::uint32_t& k, std::uint32_t& v, std::uint16_t& b, std::uint16_t& d) {
          k = src.key(base + i);
          v = src.value(base + i);
          b = bucket_of[base + i];
          d = static_cast<std::uint16_t>(b / fine);
        },
        len, coarse, coarse_cursor, out_pairs, out_bucket);
  }
}

// Pass 2: each coarse bucket -> its F fine buckets (one block per tile of a coarse bucket).
__global__ void __launch_bounds__(Policy::kScatterThreads, 2)
    scatter_fine_kernel(const uint2* __restrict__ in_pairs, const std::uint16_t* __restrict__ in_bucket,
                        const std::uint32_t* __restrict__ offset, const uint2* __restrict__ items, const Control* ctrl,
                        std::uint32_t fine, int L, std::uint32_t* __restrict__ cursor, uint2* __restrict__ out_pairs) {
  extern __shared__ __align__(16) unsigned char scatter_smem[];
  TileScatterSmem& sm = *reinterpret_cast<TileScatterSmem*>(scatter_smem);
  if (blockIdx.x >= ctrl->fine_tiles) return;  // number of coarse tiles
  const uint2 item = items[blockIdx.x];
  const std::uint32_t first_bucket = item.x * fine;
  const std::uint32_t last_bucket = min(static_cast<std::uint32_t>(L), first_bucket + fine);
  const std::uint32_t begin = offset[first_bucket] + item.y * Policy::kScatterTile;
  const std::uint32_t end = min(begin + Policy::kScatterTile, offset[last_bucket]);
  scatter_tile(
      sm,
      [&](std::uint32_t i, std::uint32_t& k, std::uint32_t& v, std::uint16_t& b, std::uint16_t& d) {
        const uint2 p = in_pairs[begin + i];
        k = p.x;
        v = p.y;
        b = in_bucket[begin + i];
        d = static_cast<std::uint16_t>(b - first_bucket);
      },
      end - begin, static_cast<int>(last_bucket - first_bucket), cursor + first_bucket, out_pairs, nullptr);
}

// Coarse cursors and the tiles of pass 2 (one block; at most kCoarse coarse buckets).
__global__ void __launch_bounds__(Policy::kCoarse)
    coarse_kernel(const std::uint32_t* __restrict__ offset, int L, std::uint32_t fine, int coarse,
                  std::uint32_t* __restrict__ coarse_cursor, uint2* __restrict__ items, Control* ctrl) {
  using Scan = cub::BlockScan<std::uint32_t, Policy::kCoarse>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int c = threadIdx.x;
  std::uint32_t tiles = 0, first = 0;
  if (c < coarse) {
    first = offset[c * fine];
    const std::uint32_t last = offset[min(static_cast<std::uint32_t>(L), (c + 1) * fine)];
    tiles = (last - first + Policy::kScatterTile - 1) / Policy::kScatterTile;
    coarse_cursor[c] = first;
  }
  std::uint32_t at = 0, total = 0;
  Scan(scan_temp).ExclusiveSum(tiles, at, total);
  for (std::uint32_t t = 0; t < tiles; ++t) items[at + t] = make_uint2(c, t);
  if (c == 0) ctrl->fine_tiles = total;
}

// ---------------------------------------------------------------------------------------------
// Step 5: bucket offsets (one block). Unpadded offsets for the output, float4-aligned offsets for
// the paper's layout (with low sentinels in the padding slots, Section 6), the work items of the
// on-chip merge (one per bucket, or per kCap-pair chunk of a bucket larger than shared memory)
// and the list of such oversized buckets for the global merge that finishes them.
// ---------------------------------------------------------------------------------------------
struct OffsetTotals {
  std::uint32_t off, poff, items, ov, tiles;
  __device__ OffsetTotals operator+(const OffsetTotals& o) const {
    return {off + o.off, poff + o.poff, items + o.items, ov + o.ov, tiles + o.tiles};
  }
};
struct OffsetTotalsSum {
  __device__ OffsetTotals operator()(const OffsetTotals& a, const OffsetTotals& b) const { return a + b; }
};

struct OffsetsArgs {
  const std::uint32_t* counts;
  int L;
  int skip_lo, skip_hi;  // buckets that need no sorting (one key value by construction)
  bool padded;
  std::uint32_t* offset;  // L + 1
  std::uint32_t* base;    // where reposition puts a bucket's first element
  std::uint32_t* cursor;  // copy of base, advanced by the aggregated reposition
  std::uint32_t* poff;    // padded offsets (padded layout)
  std::uint32_t* pkeys;   // padded key buffer 0 (sentinels written here)
  std::uint32_t* pvalues;
  uint2* items;
  std::uint32_t* ov_bucket;
  std::uint32_t* ov_tile_start;  // num_oversized + 1
  Control* ctrl;
};

__device__ __forceinline__ OffsetTotals bucket_totals(std::uint32_t c, bool special) {
  const std::uint32_t chunks = (c + Policy::kCap - 1) / Policy::kCap;
  const bool ov = !special && chunks > 1;
  return {c, (c + 3u) & ~3u, chunks, ov ? 1u : 0u, ov ? chunks : 0u};
}

__global__ void __launch_bounds__(Policy::kOneBlock) offsets_kernel(OffsetsArgs a) {
  using Scan = cub::BlockScan<OffsetTotals, Policy::kOneBlock>;
  __shared__ typename Scan::TempStorage scan_temp;
  const int per = (a.L + Policy::kOneBlock - 1) / Policy::kOneBlock;
  const int begin = min(a.L, static_cast<int>(threadIdx.x) * per), end = min(a.L, begin + per);
  OffsetTotals local{0, 0, 0, 0, 0};
  for (int b = begin; b < end; ++b) local = local + bucket_totals(a.counts[b], b == a.skip_lo || b == a.skip_hi);
  OffsetTotals acc, total;
  Scan(scan_temp).ExclusiveScan(local, acc, OffsetTotals{0, 0, 0, 0, 0}, OffsetTotalsSum(), total);
  std::uint32_t max_passes = 0;
  for (int b = begin; b < end; ++b) {
    const std::uint32_t c = a.counts[b];
    const bool special = b == a.skip_lo || b == a.skip_hi;
    const OffsetTotals t = bucket_totals(c, special);
    const std::uint32_t pad = t.poff - c;
    a.offset[b] = acc.off;
    const std::uint32_t first = a.padded ? acc.poff + pad : acc.off;
    a.base[b] = first;
    a.cursor[b] = first;
    if (a.padded) {
      a.poff[b] = acc.poff;
      for (std::uint32_t j = 0; j < pad; ++j) {
        a.pkeys[acc.poff + j] = kSentinelLow;
        a.pvalues[acc.poff + j] = 0;
      }
    }
    for (std::uint32_t chunk = 0; chunk < t.items; ++chunk) a.items[acc.items + chunk] = make_uint2(b, chunk);
    if (t.ov) {
      a.ov_bucket[acc.ov] = b;
      a.ov_tile_start[acc.ov] = acc.tiles;
      max_passes = max(max_passes, primitives::ceil_log2_u(t.items));
    }
    acc = acc + t;
  }
  if (max_passes) atomicMax(&a.ctrl->max_passes, max_passes);
  if (threadIdx.x == 0) {
    a.offset[a.L] = total.off;
    a.ov_tile_start[total.ov] = total.tiles;
    a.ctrl->num_items = total.items;
    a.ctrl->num_oversized = total.ov;
  }
}

}  // namespace depthsort::hybrid
