// Karsin, Weichert, Casanova, Iacono, Sitchinava, "Analysis-driven Engineering of Comparison-based
// Sorting Algorithms on GPUs" (ICS 2018), Section 5: the kernels of GPU-MMS and the host sequence
// that runs them, as templates over the element type T and its comparator Less, so that the
// registry's (float, uint32) pairs and the paper's other data types (bench/types) share them.
//
//   base case      (5.1 "Increased base case") one warp sorts w^2 = 1024 elements: a bitonic network
//                  whose strides below w run inside each lane's registers on rows and whose strides
//                  of w and more run inside registers on columns, the two layouts exchanged by
//                  XOR-swizzled transposes in shared memory (no bank conflicts, no shuffles).
//   partition      (Sections 4.2, 5) one warp per output share of a K-way merge; lane i runs the
//                  binary searches in list i (gpu_mms_networks.hpp kway_partition, in parallel).
//   merge round k  (5.1 "Parallel heap", "Merging in registers", "Independent merging") one warp
//                  per share, merging its K sub-lists with a minBlockHeap of 2K-1 nodes of w elements
//                  in shared memory: the root is emitted, then fillEmptyNode refills it down one
//                  root-to-leaf path; with `independent` the whole path is found first and its
//                  log K merges run interleaved, the leaf's global load in flight with them.
//
// Requirement on T: trivially copyable, a multiple of 4 bytes; `sentinel` compares after (or equal
// to and is bitwise the same as) every element sorted. The float pairs pack (ordered key, value) into
// one 64-bit word (total order), so their sentinel ~0 can only tie with a bitwise-identical pair.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "sort/gpu_mms/gpu_mms_networks.hpp"
#include "sort/gpu_mms/policy.hpp"

namespace depthsort::gpu_mms {

// ---------------------------------------------------------------------------------------------
// Warp exchange of any 4-byte-multiple element.

template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int mask) {
  static_assert(sizeof(T) % 4 == 0, "GPU-MMS elements are made of 32-bit words");
  std::uint32_t w[sizeof(T) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 4); ++i) w[i] = __shfl_xor_sync(0xFFFFFFFFu, w[i], mask);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

__device__ __forceinline__ std::uint32_t warp_sum(std::uint32_t v) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, d);
  return v;
}

// The w smallest (low) and w largest (high) of sorted a and b, each sorted across the lanes:
// lane i holds a[i] and b[w-1-i] (b read reversed from shared memory, no shuffle needed).
template <class T, class Less>
__device__ __forceinline__ void warp_merge(T a, T b_reversed, T& low, T& high, int lane, Less less) {
  split_low_high(a, b_reversed, low, high, less);
#pragma unroll
  for (int d = kW / 2; d > 0; d /= 2) {
    const bool upper = (lane & d) != 0;
    const T pl = shfl_xor(low, d);
    const T ph = shfl_xor(high, d);
    low = half_cleaner_keep(low, pl, upper, less);
    high = half_cleaner_keep(high, ph, upper, less);
  }
}

// ---------------------------------------------------------------------------------------------
// Base case.

// Exchanges the row and column layouts of a tile through shared memory (XOR-swizzled slots).
template <bool kColumnsToRows, class T>
__device__ __forceinline__ void transpose(T (&v)[kW], T* tile, int lane) {
#pragma unroll
  for (int i = 0; i < kW; ++i) tile[kColumnsToRows ? tile_slot(i, lane) : tile_slot(lane, i)] = v[i];
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kW; ++i) v[i] = tile[kColumnsToRows ? tile_slot(lane, i) : tile_slot(i, lane)];
  __syncwarp();
}

// One warp per tile of w^2 elements. Row layout: lane l holds element l*w + c in v[c]; column
// layout: lane l holds element r*w + l in v[r]. Strides j < w pair registers of a row, strides
// j >= w registers of a column, so no comparator ever crosses lanes.
template <class T, class Less, class In, class Out>
__global__ void __launch_bounds__(Policy::kBaseWarps* kW)
    base_case_kernel(In in, Out out, std::uint32_t n, T sentinel, Less less) {
  __shared__ T tiles[Policy::kBaseWarps][kBaseCase];
  const int lane = threadIdx.x % kW;
  const int warp = threadIdx.x / kW;
  const std::uint32_t base = (blockIdx.x * Policy::kBaseWarps + warp) * std::uint32_t{kBaseCase};
  if (base >= n) return;
  T* tile = tiles[warp];
  T v[kW];
#pragma unroll
  for (int r = 0; r < kW; ++r) {
    const std::uint32_t i = base + r * kW + lane;
    v[r] = i < n ? in(i) : sentinel;
  }
  transpose<true>(v, tile, lane);
#pragma unroll
  for (int k = 2; k <= kBaseCase; k *= 2) {
    if (k > kW) {
      transpose<false>(v, tile, lane);
#pragma unroll
      for (int j = k / 2; j >= kW; j /= 2) {
        const int jr = j / kW;
#pragma unroll
        for (int r = 0; r < kW; ++r)
          if ((r & jr) == 0) compare_exchange(v[r], v[r ^ jr], bitonic_ascending(r * kW, k), less);
      }
      transpose<true>(v, tile, lane);
    }
#pragma unroll
    for (int j = (k / 2 < kW ? k / 2 : kW / 2); j >= 1; j /= 2) {
#pragma unroll
      for (int c = 0; c < kW; ++c)
        if ((c & j) == 0) compare_exchange(v[c], v[c ^ j], bitonic_ascending(lane * kW + c, k), less);
    }
  }
  transpose<false>(v, tile, lane);
#pragma unroll
  for (int r = 0; r < kW; ++r) {
    const std::uint32_t i = base + r * kW + lane;
    if (i < n) out(i, v[r]);
  }
}

// ---------------------------------------------------------------------------------------------
// One merge round: lists of `run` elements, K consecutive lists per group, each warp producing
// `share` consecutive outputs of its group (share divides K*run).

struct RoundShape {
  std::uint32_t n;
  std::uint32_t run;
  std::uint32_t share;
  std::uint32_t warps;
};

// List `list` of the group that holds output position `pos`: [begin, end) in the input array.
template <int K>
__device__ __forceinline__ void list_range(const RoundShape& s, std::uint32_t pos, int list, std::uint32_t& begin,
                                           std::uint32_t& end) {
  const std::uint32_t group_base = pos / (K * s.run) * (K * s.run);
  begin = list < K ? min(group_base + list * s.run, s.n) : s.n;
  end = list < K ? min(begin + s.run, s.n) : s.n;
}

// Partition: for warp share w, the start of its share in every list of its group.
template <int K, class T, class Less>
__global__ void __launch_bounds__(128)
    partition_kernel(const T* __restrict__ in, std::uint32_t* __restrict__ splits, RoundShape s, Less less) {
  const int lane = threadIdx.x % kW;
  const std::uint32_t w = blockIdx.x * (blockDim.x / kW) + threadIdx.x / kW;
  if (w >= s.warps) return;
  const std::uint32_t pos = w * s.share;
  const std::uint32_t group_base = pos / (K * s.run) * (K * s.run);
  const std::uint32_t p = pos - group_base;
  std::uint32_t begin, end;
  list_range<K>(s, pos, lane, begin, end);
  const std::uint32_t len = end - begin;
  const std::uint32_t total = min(std::uint32_t(K) * s.run, s.n - group_base);
  std::uint32_t lo = p > total - len ? p - (total - len) : 0;
  std::uint32_t hi = min(len, p);
  for (;;) {
    // The widest window (lowest lane on ties) gives the pivot: its middle element.
    std::uint32_t best = hi - lo;
    int best_lane = lane;
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      const std::uint32_t o = __shfl_xor_sync(0xFFFFFFFFu, best, d);
      const int ol = __shfl_xor_sync(0xFFFFFFFFu, best_lane, d);
      if (o > best || (o == best && ol < best_lane)) {
        best = o;
        best_lane = ol;
      }
    }
    if (best == 0) break;
    const int j = best_lane;
    const std::uint32_t m = __shfl_sync(0xFFFFFFFFu, lo, j) + best / 2;
    const T x = in[__shfl_sync(0xFFFFFFFFu, begin, j) + m];
    const std::uint32_t count =
        lane == j ? m : count_before<T>([&](std::uint32_t q) { return in[begin + q]; }, lo, hi, x, lane < j, less);
    const std::uint32_t sum = warp_sum(lane < K ? count : 0);
    if (lane < K) narrow_window(lo, hi, count, lane == j, m, sum < p);
  }
  if (lane < K) splits[std::size_t{w} * K + lane] = begin + lo;
}

template <int K>
struct Log2 {
  static constexpr int value = K <= 1 ? 0 : 1 + Log2<K / 2>::value;
};

// The minBlockHeap of one warp: nodes 1 .. 2K-1 (leaves K .. 2K-1 = lists 0 .. K-1), w elements
// each, node x at heap[(x - 1) * w]: 2Kw - w elements.
template <int K, class T, class Less, class Out>
struct HeapMerger {
  T* heap;
  const T* __restrict__ in;
  int lane;
  std::uint32_t cursor;  // lane i < K: next unread position of list i
  std::uint32_t end;     // lane i < K: end of list i's part of this share
  T sentinel;
  Less less;

  __device__ T* node(int x) const { return heap + (x - 1) * kW; }

  // The next w elements of list `list`, sentinels past its end.
  __device__ T leaf_block(int list) {
    const std::uint32_t c = __shfl_sync(0xFFFFFFFFu, cursor, list);
    const std::uint32_t e = __shfl_sync(0xFFFFFFFFu, end, list);
    if (lane == list) cursor += kW;
    return c + lane < e ? in[c + lane] : sentinel;
  }

  // The child of x to empty: the one whose largest element is smaller.
  __device__ void children(int x, int& keep, int& empty) const {
    const T max0 = node(2 * x)[kW - 1];
    const T max1 = node(2 * x + 1)[kW - 1];
    empty = less(max1, max0) ? 2 * x + 1 : 2 * x;
    keep = empty ^ 1;
  }

  // fillEmptyNode as written: one merge after the other down the path.
  __device__ void fill_empty_sequential(int x) {
    while (x < K) {
      int keep, empty;
      children(x, keep, empty);
      const T a = node(keep)[lane];
      const T b = node(empty)[kW - 1 - lane];
      T low, high;
      warp_merge(a, b, low, high, lane, less);
      __syncwarp();
      node(x)[lane] = low;
      node(keep)[lane] = high;
      __syncwarp();
      x = empty;
    }
    const T v = leaf_block(x - K);
    node(x)[lane] = v;
    __syncwarp();
  }

  // fillEmptyNode of the root with independent merging: the path is known before any merge (each
  // level empties the child with the smaller maximum, and no merge changes the nodes below it), so
  // every operand is loaded first and the log K merges are interleaved.
  __device__ void fill_root_independent() {
    constexpr int kLevels = Log2<K>::value;
    int path[kLevels + 1], keep[kLevels];
    path[0] = 1;
#pragma unroll
    for (int t = 0; t < kLevels; ++t) {
      int empty;
      children(path[t], keep[t], empty);
      path[t + 1] = empty;
    }
    const T leaf = leaf_block(path[kLevels] - K);
    T a[kLevels], b[kLevels];
#pragma unroll
    for (int t = 0; t < kLevels; ++t) {
      a[t] = node(keep[t])[lane];
      b[t] = node(path[t + 1])[kW - 1 - lane];
    }
    T low[kLevels], high[kLevels];
#pragma unroll
    for (int t = 0; t < kLevels; ++t) split_low_high(a[t], b[t], low[t], high[t], less);
#pragma unroll
    for (int d = kW / 2; d > 0; d /= 2) {
      const bool upper = (lane & d) != 0;
#pragma unroll
      for (int t = 0; t < kLevels; ++t) {
        const T pl = shfl_xor(low[t], d);
        const T ph = shfl_xor(high[t], d);
        low[t] = half_cleaner_keep(low[t], pl, upper, less);
        high[t] = half_cleaner_keep(high[t], ph, upper, less);
      }
    }
    __syncwarp();
#pragma unroll
    for (int t = 0; t < kLevels; ++t) {
      node(path[t])[lane] = low[t];
      node(keep[t])[lane] = high[t];
    }
    node(path[kLevels])[lane] = leaf;
    __syncwarp();
  }
};

template <int K, class T, class Less, class Out>
__global__ void __launch_bounds__(Policy::kMergeWarps* kW)
    merge_round_kernel(const T* __restrict__ in, Out out, const std::uint32_t* __restrict__ splits, RoundShape s,
                       T sentinel, Less less, bool independent) {
  extern __shared__ unsigned char smem_raw[];
  const int lane = threadIdx.x % kW;
  const int warp = threadIdx.x / kW;
  const std::uint32_t w = blockIdx.x * Policy::kMergeWarps + warp;
  if (w >= s.warps) return;
  T* heap = reinterpret_cast<T*>(smem_raw) + warp * (2 * K - 1) * kW;
  const std::uint32_t pos = w * s.share;
  const std::uint32_t out_end = min(pos + s.share, s.n);
  std::uint32_t begin, list_end;
  list_range<K>(s, pos, lane, begin, list_end);
  const bool last_of_group = (pos + s.share) % (K * s.run) == 0 || w + 1 == s.warps;
  std::uint32_t start = list_end, end = list_end;
  if (lane < K) {
    start = splits[std::size_t{w} * K + lane];
    end = last_of_group ? list_end : splits[std::size_t{w + 1} * K + lane];
  }
  HeapMerger<K, T, Less, Out> h{heap, in, lane, start, end, sentinel, less};
  for (int list = 0; list < K; ++list) {
    const T v = h.leaf_block(list);
    h.node(K + list)[lane] = v;
  }
  __syncwarp();
  for (int x = K - 1; x >= 1; --x) h.fill_empty_sequential(x);
  for (std::uint32_t o = pos; o < out_end; o += kW) {
    const T v = h.node(1)[lane];
    if (o + lane < out_end) out(o + lane, v);
    if (o + kW >= out_end) break;
    if (independent)
      h.fill_root_independent();
    else
      h.fill_empty_sequential(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Host sequence.

template <class T>
struct ArrayIn {
  const T* p;
  __device__ T operator()(std::uint32_t i) const { return p[i]; }
};
template <class T>
struct ArrayOut {
  T* p;
  __device__ void operator()(std::uint32_t i, const T& v) const { p[i] = v; }
};

struct Config {
  int k = 16;                   // K, a power of two in [2, 32]
  std::uint32_t share = 0;      // outputs per warp in a merge round (a power of two >= w); 0 = auto
  bool independent = true;      // independent merging (Section 5.1)
  bool narrow_last = true;      // the last round merges with the fewest leaves that hold its lists
  std::uint32_t min_warps = 0;  // auto share: halve it (down to 1024) while fewer warps than this
};

// Auto share: 4096 outputs per warp (enough extractions to pay for the K leaf loads and K-1 fills
// of building the heap), halved down to 1024 while the round would have fewer than min_warps warps.
inline std::uint32_t share_for(const Config& c, std::uint32_t n) {
  if (c.share != 0) return c.share;
  std::uint32_t share = 4096;
  while (share > 1024 && n / share < c.min_warps) share /= 2;
  return share;
}

inline constexpr const char* kPartitionNames[] = {
    "partition round 1",  "partition round 2",  "partition round 3",  "partition round 4",  "partition round 5",
    "partition round 6",  "partition round 7",  "partition round 8",  "partition round 9",  "partition round 10",
    "partition round 11", "partition round 12", "partition round 13", "partition round 14", "partition round 15",
    "partition round 16", "partition round 17", "partition round 18", "partition round 19", "partition round 20",
    "partition round 21", "partition round 22"};
inline constexpr const char* kMergeNames[] = {
    "merge round 1",  "merge round 2",  "merge round 3",  "merge round 4",  "merge round 5",  "merge round 6",
    "merge round 7",  "merge round 8",  "merge round 9",  "merge round 10", "merge round 11", "merge round 12",
    "merge round 13", "merge round 14", "merge round 15", "merge round 16", "merge round 17", "merge round 18",
    "merge round 19", "merge round 20", "merge round 21", "merge round 22"};

// A step scope that also works without a timer (the types benchmark times whole sorts).
class MaybeStep {
 public:
  MaybeStep(StepTimer* timer, const char* name, StepStart start = StepStart::OwnEvent) : timer_(timer) {
    if (timer_) timer_->begin_step(name, start);
  }
  ~MaybeStep() {
    if (timer_) timer_->end_step();
  }
  MaybeStep(const MaybeStep&) = delete;
  MaybeStep& operator=(const MaybeStep&) = delete;

 private:
  StepTimer* timer_;
};

// Words of the splits buffer a sort of up to max_n elements needs.
inline std::size_t split_words(std::size_t max_n) { return (max_n / kW + 2) * 32; }

template <int K, class T, class Less, class Out>
void launch_round(const T* in, Out out, std::uint32_t* splits, const RoundShape& s, T sentinel, Less less,
                  bool independent, int round, cudaStream_t stream, StepTimer* timer) {
  {
    // Every round follows the base case or the last round's merge, with only host work between.
    MaybeStep step(timer, kPartitionNames[round], StepStart::AtLastStepEnd);
    const unsigned blocks = (s.warps + 3) / 4;
    partition_kernel<K, T, Less><<<blocks, 128, 0, stream>>>(in, splits, s, less);
    DEPTHSORT_CUDA_CHECK_LAUNCH("gpu-mms partition_kernel");
  }
  MaybeStep step(timer, kMergeNames[round], StepStart::AtLastStepEnd);
  const std::size_t smem = std::size_t{Policy::kMergeWarps} * (2 * K - 1) * kW * sizeof(T);
  auto* kernel = merge_round_kernel<K, T, Less, Out>;
  // The kernel has no static shared memory, so within the default there is nothing to allow, and
  // no attribute query in every round of every sort.
  if (smem > primitives::kDefaultSharedMemoryPerBlock)
    primitives::allow_dynamic_smem(kernel, smem, "gpu-mms merge_round_kernel");
  const unsigned blocks = (s.warps + Policy::kMergeWarps - 1) / Policy::kMergeWarps;
  kernel<<<blocks, Policy::kMergeWarps * kW, smem, stream>>>(in, out, splits, s, sentinel, less, independent);
  DEPTHSORT_CUDA_CHECK_LAUNCH("gpu-mms merge_round_kernel");
}

// launch_round with the smallest power of two K' in [2, K] that is at least `lists`.
template <int K, class T, class Less, class Out>
void launch_round_narrowed(std::uint32_t lists, const T* in, Out out, std::uint32_t* splits, RoundShape s, T sentinel,
                           Less less, bool independent, int round, cudaStream_t stream, StepTimer* timer) {
  if constexpr (K > 2) {
    if (lists <= K / 2) {
      s.share = std::min<std::uint32_t>(s.share, std::uint32_t(K / 2) * s.run);
      s.warps = static_cast<std::uint32_t>((std::uint64_t{s.n} + s.share - 1) / s.share);
      return launch_round_narrowed<K / 2>(lists, in, out, splits, s, sentinel, less, independent, round, stream, timer);
    }
  }
  launch_round<K>(in, out, splits, s, sentinel, less, independent, round, stream, timer);
}

template <int K, class T, class Less, class In, class FinalOut>
void sort_with_k(In in, FinalOut final_out, T* a, T* b, std::uint32_t* splits, std::uint32_t n, const Config& c,
                 T sentinel, Less less, cudaStream_t stream, StepTimer* timer) {
  const unsigned tiles = (n + kBaseCase - 1) / kBaseCase;
  const unsigned blocks = (tiles + Policy::kBaseWarps - 1) / Policy::kBaseWarps;
  {
    MaybeStep step(timer, "base case");
    if (n <= kBaseCase)
      base_case_kernel<T, Less, In, FinalOut>
          <<<blocks, Policy::kBaseWarps * kW, 0, stream>>>(in, final_out, n, sentinel, less);
    else
      base_case_kernel<T, Less, In, ArrayOut<T>>
          <<<blocks, Policy::kBaseWarps * kW, 0, stream>>>(in, ArrayOut<T>{a}, n, sentinel, less);
    DEPTHSORT_CUDA_CHECK_LAUNCH("gpu-mms base_case_kernel");
  }
  std::uint32_t run = kBaseCase;
  T* src = a;
  T* dst = b;
  for (int round = 0; run < n; ++round) {
    const std::uint64_t span = std::uint64_t{run} * K;
    const std::uint32_t share = static_cast<std::uint32_t>(std::min<std::uint64_t>(share_for(c, n), span));
    const RoundShape s{n, run, share, static_cast<std::uint32_t>((std::uint64_t{n} + share - 1) / share)};
    const std::uint32_t lists = (n + run - 1) / run;
    if (span >= n && c.narrow_last)
      launch_round_narrowed<K>(lists, static_cast<const T*>(src), final_out, splits, s, sentinel, less, c.independent,
                               round, stream, timer);
    else if (span >= n)
      launch_round<K>(static_cast<const T*>(src), final_out, splits, s, sentinel, less, c.independent, round, stream,
                      timer);
    else
      launch_round<K>(static_cast<const T*>(src), ArrayOut<T>{dst}, splits, s, sentinel, less, c.independent, round,
                      stream, timer);
    std::swap(src, dst);
    run = span >= n ? n : static_cast<std::uint32_t>(span);
  }
}

// Sorts n elements read through `in` into `final_out`; a and b hold n elements each, splits
// split_words(n) words. K must be 2, 4, 8, 16 or 32.
template <class T, class Less, class In, class FinalOut>
void sort(In in, FinalOut final_out, T* a, T* b, std::uint32_t* splits, std::uint32_t n, const Config& c, T sentinel,
          Less less, cudaStream_t stream, StepTimer* timer) {
  if (n == 0) return;
  switch (c.k) {
    case 2:
      return sort_with_k<2>(in, final_out, a, b, splits, n, c, sentinel, less, stream, timer);
    case 4:
      return sort_with_k<4>(in, final_out, a, b, splits, n, c, sentinel, less, stream, timer);
    case 8:
      return sort_with_k<8>(in, final_out, a, b, splits, n, c, sentinel, less, stream, timer);
    case 16:
      return sort_with_k<16>(in, final_out, a, b, splits, n, c, sentinel, less, stream, timer);
    case 32:
      return sort_with_k<32>(in, final_out, a, b, splits, n, c, sentinel, less, stream, timer);
    default:
      throw OptionError("gpu-mms: K must be 2, 4, 8, 16 or 32, got " + std::to_string(c.k));
  }
}

}  // namespace depthsort::gpu_mms
