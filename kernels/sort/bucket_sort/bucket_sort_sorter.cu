// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1: the host dispatcher of `bucket-sort`. It owns the workspace (reserved once),
// launches the steps on the caller's stream and names each step in the timings after the paper's
// steps: local sort (steps 1-3: the split is the block index, the local sampling is part of the
// write-back unless inline_sampling is off, then its own step "local sampling"), sample sort,
// global sampling, sample indexing, prefix sum, relocation, sublist sort. Nothing goes through
// the host between steps: bucket sizes stay on the device, and the global-memory path of steps 4
// and 9 is launched for the largest segment the guarantee allows (launches with nothing to do
// return at once).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <string>
#include <type_traits>

#include "sort/primitives/dynamic_smem.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/bucket_sort/local_sort.cuh"
#include "sort/bucket_sort/onchip_buckets.cuh"
#include "sort/bucket_sort/policy.hpp"
#include "sort/bucket_sort/segment_sort.cuh"
#include "sort/bucket_sort/splitters.cuh"
#include "sort/bucket_sort/bucket_sort_sorter.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::bucket_sort {
namespace {

// 32-bit positions: the padded array of m*L pairs must stay below 2^31.
constexpr std::size_t kMaxBucketPairs = (std::size_t{1} << 31) - (std::size_t{1} << 16);

// The paper's configuration (Section 4: ~2K pairs per sublist on its GPUs, s = 64 in Fig. 3).
constexpr std::uint32_t kPaperS = 64;
constexpr std::uint32_t kPaperSublist = 2048;
// The largest option values (kBucketSortOptions).
constexpr std::uint32_t kMaxSublist = 16384;
constexpr std::uint32_t kMaxChunk = 16384;

bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

void check_pow2_option(int value, const char* name, int min_value) {
  if (value != 0 && (!is_pow2(value) || value < min_value))
    throw OptionError("bucket-sort: option '" + std::string(name) + "' must be 0 (auto) or a power of two >= " +
                      std::to_string(min_value) + ", got " + std::to_string(value));
}

// Calls f(std::integral_constant<int, B>) for the block radix sorts' bits per pass (4 or 5).
template <class F>
void with_radix_bits(int bits, F&& f) {
  if (bits == 5)
    f(std::integral_constant<int, 5>{});
  else
    f(std::integral_constant<int, 4>{});
}

__global__ void two_words_kernel(std::uint32_t* out, std::uint32_t a, std::uint32_t b) {
  out[0] = a;
  out[1] = b;
}

std::size_t local_sort_smem(std::uint32_t L) { return primitives::bitonic::padded_size(L) * 8 + std::size_t{L} * 4; }
std::size_t chunk_smem(std::uint32_t C) { return primitives::bitonic::padded_size(C) * 8; }
std::size_t indexing_smem(std::uint32_t L, std::uint32_t s) {
  return std::size_t{L} * 4 + std::size_t{s} * 8 + (std::size_t{s} + 1) * 4;
}

// The largest power of two x in [1, most] with bytes(x) <= limit (1 where none is).
template <class Bytes>
std::uint32_t largest_fitting(std::uint32_t most, std::size_t limit, Bytes&& bytes) {
  std::uint32_t x = most;
  while (x > 1 && bytes(x) > limit) x /= 2;
  return x;
}

// SharedMemoryLimits of the current device, for radix tiles of B bits a pass.
template <int B>
SharedMemoryLimits limits_here() {
  using primitives::dynamic_smem_limit;
  SharedMemoryLimits l;
  l.sublist = largest_fitting(kMaxSublist, dynamic_smem_limit(local_sort_kernel), local_sort_smem);
  const std::size_t chunk_limit = std::min({dynamic_smem_limit(chunk_sort_kernel<PairsOut, true, false>),
                                            dynamic_smem_limit(chunk_sort_kernel<WordsOut, false, false>),
                                            dynamic_smem_limit(chunk_merge_kernel<PairsOut, true>),
                                            dynamic_smem_limit(chunk_merge_kernel<WordsOut, false>)});
  l.chunk = largest_fitting(kMaxChunk, chunk_limit, chunk_smem);
  l.indexing_bytes = dynamic_smem_limit(sample_indexing_kernel);
  const int halves = bucket_tile_smem<B>(2, false, 0) <= dynamic_smem_limit(bucket_tile_kernel<2, false, B>) ? 2 : 1;
  l.onchip_tile = halves * kRadixTile;
  const std::size_t gather_limit = halves == 2 ? dynamic_smem_limit(bucket_tile_kernel<2, true, B>)
                                               : dynamic_smem_limit(bucket_tile_kernel<1, true, B>);
  const std::size_t tile_bytes = bucket_tile_smem<B>(halves, true, 0);
  const std::size_t room = gather_limit > tile_bytes ? (gather_limit - tile_bytes) / 4 : 0;
  l.gather_sublists = static_cast<std::uint32_t>(std::min<std::size_t>(Policy::kMaxGatherSublists, room));
  return l;
}

}  // namespace

BucketSorter::BucketSorter(const BucketSortOptions& options) : Sorter("bucket-sort", Backend::Gpu) {
  s_option_ = options.s;
  sublist_option_ = options.sublist;
  chunk_option_ = options.chunk;
  faithful_ = options.faithful;
  inline_sampling_ = options.inline_sampling;
  // The paper's configuration is bitonic sort throughout (Section 4).
  cub_sample_sort_ = !faithful_ && options.cub_sample_sort;
  radix_block_sort_ = !faithful_ && options.radix_block_sort;
  // The on-chip bucket sort is a radix tile sort: off with the bitonic block sorts.
  onchip_ = radix_block_sort_ && options.onchip;
  sample_key_sort_ = options.sample_key_sort;
  radix_bits_ = options.radix_bits;
  bucket_key_bits_ = options.bucket_key_bits;
  check_pow2_option(s_option_, "s", 2);
  check_pow2_option(sublist_option_, "sublist", 64);
  check_pow2_option(chunk_option_, "chunk", 64);
}

BucketSorter::~BucketSorter() = default;

bool BucketSorter::radix_for(std::uint32_t tile) const { return radix_block_sort_ && tile == kRadixTile; }

Config BucketSorter::config_for(std::size_t n) const {
  Config c;
  // The defaults within this GPU's shared memory (the radix local sort's tile has a fixed size);
  // an option beyond it is refused at the reservation, naming the kernel.
  const std::uint32_t default_sublist = onchip_ ? Policy::kOnchipSublist : Policy::kDefaultSublist;
  c.sublist = sublist_option_ ? sublist_option_ : (faithful_ ? kPaperSublist : default_sublist);
  if (!sublist_option_ && !radix_for(c.sublist)) c.sublist = std::min(c.sublist, limits_.sublist);
  c.chunk = chunk_option_ ? chunk_option_ : std::min(faithful_ ? kPaperSublist : Policy::kDefaultChunk, limits_.chunk);
  c.m = static_cast<std::uint32_t>(std::max<std::size_t>(1, (n + c.sublist - 1) / c.sublist));
  c.onchip = onchip_;
  if (s_option_) {
    c.s = s_option_;
  } else if (onchip_) {
    // The fewest buckets whose bound 2mL/s fits one on-chip tile: every bucket is sorted by one
    // block; the samples m*s = 2n*m/16K grow as n^2/L^2 (4M at 16M pairs). Above 32M pairs that
    // would be more than 4096 buckets (samples quadratic in n): s stops at 4096 and the buckets
    // above a tile take the global-memory path.
    const std::uint32_t tile = limits_.onchip_tile;
    const std::uint64_t needed = (2 * std::uint64_t{c.m} * c.sublist + tile - 1) / tile;
    c.s = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(primitives::next_pow2(needed), 16, Policy::kMaxAutoS));
  } else if (faithful_) {
    c.s = kPaperS;
  } else {
    // s ~ sqrt(n)/4: the samples (m*s = n*s/L, sorted in step 4) and the buckets' depth in step 9
    // grow in opposite directions; the sweep of Fig. 3 on the H200 put the optimum at s = 1024 for
    // 16M pairs and s = 2048 for 64M (docs/results/bucket-sort.md).
    const std::uint64_t target = (std::uint64_t{1} << ((primitives::ceil_log2(n) + 1) / 2)) / 4;
    c.s = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(target, 16, 4096));
  }
  if (!s_option_)  // within the sample indexing's shared memory (some buckets may then take the global path)
    c.s = largest_fitting(c.s, limits_.indexing_bytes, [&](std::uint32_t s) { return indexing_smem(c.sublist, s); });
  c.s = std::min(c.s, c.sublist);  // at least one pair between samples
  c.gather = c.onchip && bucket_bound(n, c) <= limits_.onchip_tile && c.m <= limits_.gather_sublists;
  return c;
}

std::uint64_t BucketSorter::bucket_bound(std::size_t n, const Config& c) {
  const std::uint64_t padded_n = std::uint64_t{c.m} * c.sublist;
  return std::min<std::uint64_t>(n, 2 * padded_n / c.s);
}

std::vector<std::uint32_t> BucketSorter::last_bucket_sizes() const {
  if (last_n_ == 0) return {};
  std::vector<std::uint32_t> begin(last_.s + 1);
  DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(begin.data(), bucket_begin_.data(), begin.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> sizes(last_.s);
  for (std::uint32_t j = 0; j < last_.s; ++j) sizes[j] = begin[j + 1] - begin[j];
  return sizes;
}

void BucketSorter::do_reserve(std::size_t max_n) {
  if (max_n > kMaxBucketPairs)
    throw CapacityError(name() + ": cannot reserve for " + std::to_string(max_n) + " pairs: at most " +
                        std::to_string(kMaxBucketPairs) + " pairs (32-bit positions)");
  with_radix_bits(radix_bits_, [&](auto bits) { limits_ = limits_here<decltype(bits)::value>(); });
  sorted_ = {};
  buckets_ = {};
  samples_ = {};
  samples_alt_ = {};
  workspace_bytes_ = 0;
  const Config c = config_for(max_n);
  const std::size_t n = std::max<std::size_t>(max_n, 1);
  const std::size_t ms = std::size_t{c.m} * c.s;  // grows with n: the largest n needs the most
  const std::string& owner = name();
  auto u64 = [&](std::size_t count) {
    workspace_bytes_ += count * 8;
    return DeviceBuffer<std::uint64_t>(count, owner);
  };
  auto u32 = [&](std::size_t count) {
    workspace_bytes_ += count * 4;
    return DeviceBuffer<std::uint32_t>(count, owner);
  };
  sorted_ = u64(n);
  // The gathering bucket sort reads the sublists in place: no relocated copy (gather at max_n
  // implies gather at every smaller n: the bound and m only grow with n).
  if (!c.gather) buckets_ = u64(n);
  samples_ = u64(ms);
  splitters_ = u64(c.s);
  bounds_ = u32(ms);
  sizes_ = u32(ms);
  offsets_ = u32(ms);
  bucket_begin_ = u32(c.s + 1);
  sample_begin_ = u32(2);
  item_count_ = u32(1);
  max_items_ = std::max<std::size_t>(c.s + n / c.chunk, 1 + ms / c.chunk) + 2;
  items_ = u64(max_items_);
  scan_bytes_ = 0;
  DEPTHSORT_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes_, sizes_.data(), offsets_.data(), static_cast<int>(ms)));
  scan_temp_ = DeviceBuffer<unsigned char>(scan_bytes_, owner);
  workspace_bytes_ += scan_bytes_;
  if (cub_sample_sort_) {
    samples_alt_ = u64(ms);
    // Asked with the bits the sort will run over (sample_key_sort: the 32 key bits).
    radix_bytes_ = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes_, samples_.data(), samples_alt_.data(),
                                                        static_cast<int>(ms), sample_begin_bit(), 64));
    radix_temp_ = DeviceBuffer<unsigned char>(radix_bytes_, owner);
    workspace_bytes_ += radix_bytes_;
  }
  // Shared memory above 48 KB must be asked for, per kernel: what this configuration takes (the
  // configuration at max_n takes the most: its sublists, chunk and s are the largest).
  const auto allow = [](const void* kernel, std::size_t bytes) {
    primitives::allow_dynamic_smem(kernel, bytes, "a bucket-sort kernel (options sublist, chunk, s)");
  };
  if (!radix_for(c.sublist)) allow(reinterpret_cast<const void*>(local_sort_kernel), local_sort_smem(c.sublist));
  with_radix_bits(radix_bits_, [&](auto bits) {
    constexpr int B = decltype(bits)::value;
    allow(reinterpret_cast<const void*>(local_radix_sort_kernel<SmallTile<B>>), SmallTile<B>::kStorageBytes);
    if (!c.onchip) return;
    // A gathering sort has at most this many sublists (at max_n, or at a smaller n that gathers).
    const std::uint32_t gathered = std::min(c.m, limits_.gather_sublists);
    allow(reinterpret_cast<const void*>(bucket_tile_kernel<1, false, B>), bucket_tile_smem<B>(1, false, 0));
    allow(reinterpret_cast<const void*>(bucket_tile_kernel<1, true, B>), bucket_tile_smem<B>(1, true, gathered));
    if (limits_.onchip_tile < kOnchipTile) return;
    allow(reinterpret_cast<const void*>(bucket_tile_kernel<2, false, B>), bucket_tile_smem<B>(2, false, 0));
    allow(reinterpret_cast<const void*>(bucket_tile_kernel<2, true, B>), bucket_tile_smem<B>(2, true, gathered));
  });
  allow(reinterpret_cast<const void*>(chunk_sort_kernel<PairsOut, true, false>), chunk_smem(c.chunk));
  allow(reinterpret_cast<const void*>(chunk_sort_kernel<WordsOut, false, false>), chunk_smem(c.chunk));
  allow(reinterpret_cast<const void*>(chunk_merge_kernel<PairsOut, true>), chunk_smem(c.chunk));
  allow(reinterpret_cast<const void*>(chunk_merge_kernel<WordsOut, false>), chunk_smem(c.chunk));
  allow(reinterpret_cast<const void*>(sample_indexing_kernel), indexing_smem(c.sublist, c.s));
}

namespace {

struct SegmentWork {
  SegmentBounds seg;
  SegmentItem* items;
  const std::uint32_t* count;
  unsigned grid;
  std::uint32_t chunk;
  std::uint64_t top;  // the power of two of the largest segment allowed
  std::uint64_t* data;
  cudaStream_t stream;
};

template <bool KeyOnly, bool Radix, class Out>
void launch_segment_sort(const SegmentWork& w, Out out) {
  const std::size_t smem = Radix ? 0 : chunk_smem(w.chunk);
  chunk_sort_kernel<Out, KeyOnly, Radix>
      <<<w.grid, kSortThreads, smem, w.stream>>>(w.seg, w.items, w.count, w.chunk, w.data, out);
  DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort chunk_sort_kernel");
  for (std::uint64_t k = 2 * std::uint64_t{w.chunk}; k <= w.top; k *= 2) {
    const auto k32 = static_cast<std::uint32_t>(k);
    for (std::uint64_t j = k / 2; j >= w.chunk; j /= 2) {
      global_step_kernel<KeyOnly><<<w.grid, kSortThreads, 0, w.stream>>>(
          w.seg, w.items, w.count, w.chunk, k32, static_cast<std::uint32_t>(j), j == k / 2, w.data);
      DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort global_step_kernel");
    }
    chunk_merge_kernel<Out, KeyOnly><<<w.grid, kSortThreads, chunk_smem(w.chunk), w.stream>>>(
        w.seg, w.items, w.count, w.chunk, primitives::ceil_log2(w.chunk), k32, w.data, out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort chunk_merge_kernel");
  }
}

}  // namespace

void BucketSorter::sort_segments(std::uint64_t* data, const std::uint32_t* begin, std::uint32_t segments,
                                 std::uint64_t total, std::uint64_t max_segment, std::uint32_t chunk, bool to_pairs,
                                 const SortBuffers& b, cudaStream_t stream, std::uint32_t min_size) {
  const SegmentBounds seg{begin, segments};
  auto* items = reinterpret_cast<SegmentItem*>(items_.data());
  std::uint32_t* count = item_count_.data();
  plan_chunks_kernel<<<1, kPlanThreads, 0, stream>>>(seg, chunk, min_size, items, count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort plan_chunks_kernel");
  // The global-memory path runs for the largest segment the guarantee allows; launches find
  // their chunk's segment done (or absent) and return at once.
  const SegmentWork work{
      seg,   items,
      count, static_cast<unsigned>(std::min<std::uint64_t>(max_items_, segments + total / chunk + 1)),
      chunk, primitives::next_pow2(max_segment),
      data,  stream};
  if (!to_pairs)
    launch_segment_sort<false, false>(work, WordsOut{data});
  else if (radix_for(chunk))
    launch_segment_sort<true, true>(work, PairsOut{b.keys_out, b.values_out});
  else
    launch_segment_sort<true, false>(work, PairsOut{b.keys_out, b.values_out});
}

namespace {

template <int Halves, bool Gather, int B>
void launch_bucket_tiles(const Config& c, const std::uint32_t* bucket_begin, const std::uint64_t* splitters,
                         const std::uint64_t* source, const std::uint32_t* offsets, const std::uint32_t* bounds,
                         bool shared_bits_skipped, const SortBuffers& b, cudaStream_t stream) {
  bucket_tile_kernel<Halves, Gather, B><<<c.s, kSortThreads, bucket_tile_smem<B>(Halves, Gather, c.m), stream>>>(
      bucket_begin, c.s, splitters, source, offsets, bounds, c.m, c.sublist, shared_bits_skipped, b.keys_out,
      b.values_out);
  DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort bucket_tile_kernel");
}

}  // namespace

// onchip's step 9 (with step 8 when gathering): every bucket of up to 16K pairs by one block (one
// radix tile up to 8192 pairs, two and a merge above; the one-tile kernel when the bound allows no
// more, or where the two-tile kernel does not fit this GPU's shared memory: then up to 8K pairs);
// larger buckets (only when s is below 2n/16K, or 2n/8K) by the global-memory path after it.
void BucketSorter::sort_buckets_onchip(const Config& c, std::uint64_t bound, const SortBuffers& b,
                                       cudaStream_t stream) {
  const std::uint32_t* begin = bucket_begin_.data();
  const std::uint64_t* source = c.gather ? sorted_.data() : buckets_.data();
  const std::uint32_t tile = limits_.onchip_tile;
  const bool one_tile = bound <= kRadixTile || tile == kRadixTile;
  const std::uint64_t* split = splitters_.data();
  const bool skip_shared = bucket_key_bits_;
  with_radix_bits(radix_bits_, [&](auto bits) {
    constexpr int B = decltype(bits)::value;
    if (c.gather && one_tile)
      launch_bucket_tiles<1, true, B>(c, begin, split, source, offsets_.data(), bounds_.data(), skip_shared, b, stream);
    else if (c.gather)
      launch_bucket_tiles<2, true, B>(c, begin, split, source, offsets_.data(), bounds_.data(), skip_shared, b, stream);
    else if (one_tile)
      launch_bucket_tiles<1, false, B>(c, begin, split, source, nullptr, nullptr, skip_shared, b, stream);
    else
      launch_bucket_tiles<2, false, B>(c, begin, split, source, nullptr, nullptr, skip_shared, b, stream);
  });
  if (bound > tile) sort_segments(buckets_.data(), begin, c.s, b.n, bound, c.chunk, true, b, stream, tile);
}

void BucketSorter::do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) {
  const std::uint32_t n = static_cast<std::uint32_t>(b.n);
  if (n == 0) return;
  const Config c = config_for(b.n);
  last_ = c;
  last_n_ = b.n;
  const std::uint32_t L = c.sublist, s = c.s, m = c.m;
  const std::uint32_t ms = m * s;
  {
    StepScope step(timer, "local sort");
    if (radix_for(L))
      with_radix_bits(radix_bits_, [&](auto bits) {
        using Tile = SmallTile<decltype(bits)::value>;
        local_radix_sort_kernel<Tile><<<m, Tile::kThreads, Tile::kStorageBytes, stream>>>(
            b.keys_in, b.values_in, n, s, inline_sampling_, sorted_.data(), samples_.data());
      });
    else
      local_sort_kernel<<<m, kSortThreads, local_sort_smem(L), stream>>>(
          b.keys_in, b.values_in, n, L, s, inline_sampling_, sorted_.data(), samples_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort local_sort_kernel");
  }
  if (!inline_sampling_) {
    StepScope step(timer, "local sampling", StepStart::AtLastStepEnd);
    local_sampling_kernel<<<primitives::grid_for(ms, 256), 256, 0, stream>>>(sorted_.data(), n, L, s, m,
                                                                             samples_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort local_sampling_kernel");
  }
  const std::uint64_t* sorted_samples = samples_.data();
  {
    StepScope step(timer, "sample sort", StepStart::AtLastStepEnd);
    if (cub_sample_sort_) {
      std::size_t bytes = radix_bytes_;
      // The samples lie in position order (sublist by sublist, each ascending), so a stable sort
      // of their keys alone leaves them in (key, p) order: half the passes of the whole words.
      DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(radix_temp_.data(), bytes, samples_.data(),
                                                          samples_alt_.data(), static_cast<int>(ms), sample_begin_bit(),
                                                          64, stream));
      sorted_samples = samples_alt_.data();
    } else {
      two_words_kernel<<<1, 1, 0, stream>>>(sample_begin_.data(), 0, ms);
      DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort two_words_kernel");
      sort_segments(samples_.data(), sample_begin_.data(), 1, ms, ms, c.chunk, false, b, stream);
    }
  }
  {
    StepScope step(timer, "global sampling", StepStart::AtLastStepEnd);
    global_sampling_kernel<<<primitives::grid_for(s, 256), 256, 0, stream>>>(sorted_samples, m, s, splitters_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort global_sampling_kernel");
  }
  {
    StepScope step(timer, "sample indexing", StepStart::AtLastStepEnd);
    sample_indexing_kernel<<<m, kIndexThreads, indexing_smem(L, s), stream>>>(
        sorted_.data(), n, L, s, m, splitters_.data(), c.gather, bounds_.data(), sizes_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort sample_indexing_kernel");
  }
  {
    StepScope step(timer, "prefix sum", StepStart::AtLastStepEnd);
    std::size_t bytes = scan_bytes_;
    DEPTHSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.data(), bytes, sizes_.data(), offsets_.data(),
                                                       static_cast<int>(ms), stream));
    bucket_begin_kernel<<<primitives::grid_for(s + 1, 256), 256, 0, stream>>>(offsets_.data(), m, s, n,
                                                                              bucket_begin_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort bucket_begin_kernel");
  }
  if (!c.gather) {
    StepScope step(timer, "relocation", StepStart::AtLastStepEnd);
    relocation_kernel<<<m, kMoveThreads, 2 * s * 4, stream>>>(sorted_.data(), n, L, s, m, bounds_.data(),
                                                              offsets_.data(), buckets_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("bucket-sort relocation_kernel");
  }
  {
    StepScope step(timer, "sublist sort", StepStart::AtLastStepEnd);
    if (c.onchip)
      sort_buckets_onchip(c, bucket_bound(b.n, c), b, stream);
    else
      sort_segments(buckets_.data(), bucket_begin_.data(), s, n, bucket_bound(b.n, c), c.chunk, true, b, stream);
  }
}

std::unique_ptr<Sorter> make_bucket_sorter(const OptionValues& options) {
  return std::make_unique<BucketSorter>(BucketSortOptions::from(options));
}

}  // namespace depthsort::bucket_sort
