// depth-bucket's host side (depth_bucket.hpp): shapes from the device, buffers, and the steps.
#include "depth_bucket/depth_bucket.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "depth_bucket/bucket_sort.cuh"
#include "depth_bucket/common.cuh"
#include "depth_bucket/overflow.cuh"
#include "depth_bucket/sample.cuh"
#include "depth_bucket/scatter.cuh"
#include "depthsort/sort/errors.hpp"
#include "sort/primitives/cub_radix_pairs.cuh"
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::depth_bucket {
namespace {

// The on-chip sort's shapes, the largest this device's shared memory per block holds: 1024 x 16
// with 16384 counting slots (Hopper), 512 x 16 with 8192 (Ampere's A100; Hopper where a study
// asks), 512 x 8 with 4096 (Ampere's and Ada's desktop cards), 256 x 8 with 2048 (Turing).
using HugeBuckets = BucketShape<1024, 16, 16384>;
using WideBuckets = BucketShape<512, 16, 8192>;
using MidBuckets = BucketShape<512, 8, 4096>;
using NarrowBuckets = BucketShape<256, 8, 2048>;

template <class Shape>
void launch_bucket_sort(const Layout& layout, const uint2* regions, std::uint32_t* counts, const std::uint32_t* places,
                        const Control* control, const std::uint32_t* splitters, std::uint32_t* order,
                        std::uint32_t* next_splitters, cudaStream_t stream) {
  auto* kernel = bucket_sort_kernel<Shape::threads, Shape::items, Shape::slots>;
  const std::size_t bytes = sizeof(typename Shape::Storage);
  primitives::allow_dynamic_smem(kernel, bytes, "depth-bucket: bucket sort");
  kernel<<<layout.buckets, Shape::threads, bytes, stream>>>(layout, regions, counts, places, control, splitters, order,
                                                            next_splitters);
  DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: bucket_sort_kernel");
}

}  // namespace

Layout DepthBucket::layout_for(std::size_t n) const {
  // Inner buckets of half their region on average (room for a bucket twice its share), at least
  // 16 (the end buckets' widths are the mean of 8 at each end), and the end buckets. The spill
  // area: a thirty-second of the pairs, or one region.
  const std::size_t target = shapes_.capacity / 2;
  const auto inner = static_cast<std::uint32_t>(std::max<std::size_t>(16, (n + target - 1) / target));
  Layout layout;
  layout.buckets = inner + 2 * kEndBuckets;
  layout.capacity = shapes_.capacity;
  layout.n = static_cast<std::uint32_t>(n);
  layout.spill_capacity = static_cast<std::uint32_t>(std::max<std::size_t>(n / 32, shapes_.capacity));
  return layout;
}

DepthBucket::DepthBucket() : verdict_("depth-bucket's verdict") {
  // The largest shape whose shared memory (with the kernel's static part) a block may have here.
  const auto fits = [](auto* kernel, std::size_t bytes) { return bytes <= primitives::dynamic_smem_limit(kernel); };
  if (fits(bucket_sort_kernel<1024, 16, 16384>, sizeof(HugeBuckets::Storage)))
    shapes_.capacity = HugeBuckets::capacity;
  else if (fits(bucket_sort_kernel<512, 16, 8192>, sizeof(WideBuckets::Storage)))
    shapes_.capacity = WideBuckets::capacity;
  else if (fits(bucket_sort_kernel<512, 8, 4096>, sizeof(MidBuckets::Storage)))
    shapes_.capacity = MidBuckets::capacity;
  else
    shapes_.capacity = NarrowBuckets::capacity;
  scatter_blocks_ = primitives::multiprocessor_count();
  // A study's override of the shapes (docs/algorithms/depth-bucket.md, "Shapes"): "ITEMS,CAPACITY",
  // ITEMS 8 or 16 (the 512-thread scatter's items a thread), CAPACITY 2048 to 16384, each taken
  // only where this device has the room.
  if (const char* study = std::getenv("DEPTHSORT_FUSED_SHAPE")) {
    int items = 0, capacity = 0;
    if (std::sscanf(study, "%d,%d", &items, &capacity) == 2) {
      if (items == 8 || items == 16) shapes_.scatter_items = items;
      if (capacity == 2048 || capacity == 4096 || capacity == 8192 || capacity == 16384)
        shapes_.capacity = std::min<std::uint32_t>(shapes_.capacity, static_cast<std::uint32_t>(capacity));
    }
  }
}

DepthBucket::~DepthBucket() = default;

bool DepthBucket::reserve(std::size_t n) {
  if (n < kMinPrimitives || n > 0x7FFFFFFFu) return false;
  const Layout layout = layout_for(n);
  const std::size_t scatter_smem = shapes_.scatter_items == 16 ? ScatterShape<512, 16>::smem_bytes(layout.buckets)
                                                               : ScatterShape<512, 8>::smem_bytes(layout.buckets);
  const std::size_t scatter_limit = shapes_.scatter_items == 16
                                        ? primitives::dynamic_smem_limit(scatter_kernel<512, 16>)
                                        : primitives::dynamic_smem_limit(scatter_kernel<512, 8>);
  if (layout.buckets > kMaxBuckets || scatter_smem > scatter_limit) return false;
  if (n <= reserved_) return true;
  const std::size_t buckets = layout.buckets;
  regions_ = DeviceBuffer<uint2>(buckets * shapes_.capacity, "depth-bucket regions");
  spill_ = DeviceBuffer<uint2>(layout.spill_capacity, "depth-bucket spill area");
  for (DeviceBuffer<std::uint32_t>& splitters : splitters_)
    splitters = DeviceBuffer<std::uint32_t>(buckets, "depth-bucket splitters");
  counts_ = DeviceBuffer<std::uint32_t>(buckets, "depth-bucket counts");
  sample_counts_ = DeviceBuffer<std::uint32_t>(buckets, "depth-bucket sample counts");
  places_ = DeviceBuffer<std::uint32_t>(buckets + 1, "depth-bucket places");
  table_ = DeviceBuffer<std::uint16_t>(kTableSteps + 1, "depth-bucket table");
  control_ = DeviceBuffer<Control>(1, "depth-bucket control");
  const std::size_t most_overflowed =
      kMaxOverflowed * static_cast<std::size_t>(shapes_.capacity) + layout.spill_capacity;
  for (int i = 0; i < 2; ++i) {
    overflow_keys_[i] = DeviceBuffer<std::uint32_t>(most_overflowed, "depth-bucket overflowed keys");
    overflow_ids_[i] = DeviceBuffer<std::uint32_t>(most_overflowed, "depth-bucket overflowed ids");
  }
  std::size_t temp = 0;
  cub::DoubleBuffer<std::uint32_t> keys(overflow_keys_[0].data(), overflow_keys_[1].data());
  cub::DoubleBuffer<std::uint32_t> ids(overflow_ids_[0].data(), overflow_ids_[1].data());
  DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp, keys, ids, static_cast<int>(most_overflowed)));
  overflow_temp_ = DeviceBuffer<unsigned char>(temp, "depth-bucket overflowed buckets' sort");
  DEPTHSORT_CUDA_CHECK(cudaMemset(counts_.data(), 0, counts_.bytes()));
  DEPTHSORT_CUDA_CHECK(cudaMemset(sample_counts_.data(), 0, sample_counts_.bytes()));
  DEPTHSORT_CUDA_CHECK(cudaMemset(control_.data(), 0, control_.bytes()));
  reserved_ = n;
  splitters_for_ = 0;
  return true;
}

std::size_t DepthBucket::workspace_bytes() const {
  return regions_.bytes() + spill_.bytes() + 2 * splitters_[0].bytes() + counts_.bytes() + sample_counts_.bytes() +
         places_.bytes() + table_.bytes() + control_.bytes() + 2 * overflow_keys_[0].bytes() +
         2 * overflow_ids_[0].bytes() + overflow_temp_.bytes();
}

bool DepthBucket::order(const float4* centroids, std::size_t triangles, const ParticleVertex* particles, std::size_t n,
                        const DepthPlane& plane, std::uint32_t* order, cudaStream_t stream, StepTimer& timer) {
  if (n != splitters_for_ || n > reserved_) return false;
  const Records records{centroids, particles, static_cast<std::uint32_t>(triangles), static_cast<std::uint32_t>(n)};
  const Layout layout = layout_for(n);
  std::uint32_t* splitters = splitters_[current_].data();
  // A bucket holds about kSamples / buckets of the sample; it is crowded where it holds six times
  // that (the regions hold twice a bucket's share), and at least 16 (sample.cuh judges the crowded).
  const std::uint32_t most_in_bucket = std::max<std::uint32_t>(16, 6 * kSamples / layout.buckets);
  {
    StepScope step(timer, "sample");
    extend_splitters_kernel<<<1, 32, 0, stream>>>(layout, splitters);
    DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: extend_splitters_kernel");
    sample_kernel<<<kSampleBlocks, kSampleThreads, 0, stream>>>(records, plane, layout, splitters, table_.data(),
                                                                sample_counts_.data(), control_.data(), most_in_bucket);
    DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: sample_kernel");
  }
  const std::uint32_t sequence = verdict_.next_sequence();
  {
    StepScope step(timer, "depth + scatter", StepStart::AtLastStepEnd);
    const auto launch = [&](auto* kernel, int threads, std::size_t bytes, std::uint32_t tile) {
      primitives::allow_dynamic_smem(kernel, bytes, "depth-bucket: scatter");
      int per_multiprocessor = 0;
      DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, bytes));
      const std::size_t tiles = (n + tile - 1) / tile;
      const auto blocks = static_cast<unsigned>(
          std::min<std::size_t>(tiles, static_cast<std::size_t>(std::max(1, per_multiprocessor) * scatter_blocks_)));
      kernel<<<blocks, threads, bytes, stream>>>(records, plane, layout, splitters, table_.data(), counts_.data(),
                                                 regions_.data(), spill_.data(), places_.data(), control_.data(),
                                                 verdict_.slot(), sequence);
      DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: scatter_kernel");
    };
    using Wide = ScatterShape<512, 16>;
    using Narrow = ScatterShape<512, 8>;
    if (shapes_.scatter_items == 16)
      launch(scatter_kernel<512, 16>, Wide::threads, Wide::smem_bytes(layout.buckets), Wide::tile);
    else
      launch(scatter_kernel<512, 8>, Narrow::threads, Narrow::smem_bytes(layout.buckets), Narrow::tile);
  }
  {
    StepScope step(timer, "bucket sort", StepStart::AtLastStepEnd);
    std::uint32_t* next = splitters_[current_ ^ 1].data();
    const auto sort = [&](auto shape) {
      using Shape = decltype(shape);
      launch_bucket_sort<Shape>(layout, regions_.data(), counts_.data(), places_.data(), control_.data(), splitters,
                                order, next, stream);
    };
    if (shapes_.capacity == HugeBuckets::capacity)
      sort(HugeBuckets{});
    else if (shapes_.capacity == WideBuckets::capacity)
      sort(WideBuckets{});
    else if (shapes_.capacity == MidBuckets::capacity)
      sort(MidBuckets{});
    else
      sort(NarrowBuckets{});
  }
  // The bucket sort is queued: the device goes on while the host reads the first pass's verdict.
  const Posting verdict = verdict_.wait(stream);
  largest_bucket_ = verdict.largest_bucket;
  overflowed_ = verdict.verdict == kSpilled ? verdict.overflowed : 0;
  if (verdict.verdict != kFitted && verdict.verdict != kSpilled) {
    splitters_for_ = 0;
    return false;
  }
  if (verdict.verdict == kSpilled) {
    StepScope step(timer, "overflowed buckets");
    sort_overflowed(layout, verdict.overflow_pairs, verdict.overflow_bits, order, stream);
  }
  current_ ^= 1;  // the bucket sort's splitters are the next frame's
  return true;
}

void DepthBucket::sort_overflowed(const Layout& layout, std::uint32_t pairs, std::uint32_t bits, std::uint32_t* order,
                                  cudaStream_t stream) {
  // One block a listed bucket's region, and the spill area's pairs 4096 a block.
  const std::uint32_t spilled = pairs - overflowed_ * layout.capacity;
  const std::uint32_t spill_blocks = std::clamp<std::uint32_t>((spilled + 4095) / 4096, 1, 1024);
  gather_overflowed_kernel<<<overflowed_ + spill_blocks, 256, 0, stream>>>(
      layout, regions_.data(), spill_.data(), control_.data(), overflow_keys_[0].data(), overflow_ids_[0].data());
  DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: gather_overflowed_kernel");
  cub::DoubleBuffer<std::uint32_t> keys(overflow_keys_[0].data(), overflow_keys_[1].data());
  cub::DoubleBuffer<std::uint32_t> ids(overflow_ids_[0].data(), overflow_ids_[1].data());
  // A heavy depth's buckets span a few low bits (none where they hold one key value): CUB's radix
  // sort passes over those alone (on Hopper one 8-bit digit a pass, where all 32 bits take 4).
  if (bits > 0) {
    std::size_t temp = overflow_temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(overflow_temp_.data(), temp, keys, ids,
                                                         static_cast<int>(pairs), 0, static_cast<int>(bits), stream));
  }
  place_overflowed_kernel<<<primitives::grid_for(pairs, 256), 256, 0, stream>>>(layout, keys.Current(), ids.Current(),
                                                                                pairs, places_.data(), control_.data(),
                                                                                order, splitters_[current_ ^ 1].data());
  DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: place_overflowed_kernel");
}

void DepthBucket::keep_splitters(const float* sorted_keys, std::size_t n, cudaStream_t stream) {
  if (n > reserved_ || n < kMinPrimitives) {
    splitters_for_ = 0;
    return;
  }
  const Layout layout = layout_for(n);
  keep_splitters_kernel<<<primitives::grid_for(layout.inner() + 1, 256), 256, 0, stream>>>(sorted_keys, layout,
                                                                                           splitters_[current_].data());
  DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: keep_splitters_kernel");
  splitters_for_ = n;
}

}  // namespace depthsort::depth_bucket
