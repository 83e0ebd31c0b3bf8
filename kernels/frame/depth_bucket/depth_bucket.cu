// depth-bucket's host side (depth_bucket.hpp): shapes from the device, buffers, and the three steps.
#include "depth_bucket/depth_bucket.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "depth_bucket/depth_bucket_kernels.cuh"
#include "depthsort/sort/errors.hpp"
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::depth_bucket {
namespace {

constexpr int kScatterThreads = 512;

// The on-chip sort's shapes: 512 x 16 with 8192 counting slots where a block may have about
// 100 KB of shared memory (Hopper, Ampere's A100), 512 x 8 with 4096 where it may have half that
// (Ampere's and Ada's desktop cards), 256 x 8 with 2048 otherwise (Turing).
using WideBuckets = BucketShape<512, 16, 8192>;
using MidBuckets = BucketShape<512, 8, 4096>;
using NarrowBuckets = BucketShape<256, 8, 2048>;

int shared_memory_per_block() {
  int device = 0, bytes = 0;
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

template <class Shape>
void launch_bucket_sort(const Layout& layout, const uint2* regions, std::uint32_t* counts,
                        const std::uint32_t* places, const Control* control, std::uint32_t* order,
                        std::uint32_t* splitters, cudaStream_t stream) {
  auto* kernel = bucket_sort_kernel<Shape::threads, Shape::items, Shape::slots>;
  const std::size_t bytes = sizeof(typename Shape::Storage);
  primitives::allow_dynamic_smem(kernel, bytes, "depth-bucket: bucket sort");
  kernel<<<layout.buckets, Shape::threads, bytes, stream>>>(layout, regions, counts, places, control, order,
                                                            splitters);
  DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: bucket_sort_kernel");
}

template <int kItems>
auto* scatter_for() {
  return scatter_kernel<kScatterThreads, kItems>;
}

}  // namespace

DepthBucket::DepthBucket() : verdict_("depth-bucket's verdict") {
  const int smem = shared_memory_per_block();
  if (smem >= static_cast<int>(sizeof(WideBuckets::Storage))) shapes_.capacity = WideBuckets::capacity;
  else if (smem >= static_cast<int>(sizeof(MidBuckets::Storage))) shapes_.capacity = MidBuckets::capacity;
  else shapes_.capacity = NarrowBuckets::capacity;
  // The scatter's tile: the largest of 512 x 16 and 512 x 8 that leaves room for 4096 buckets.
  shapes_.scatter_items = ScatterShape<kScatterThreads, 16>::smem_bytes(4096) <= static_cast<std::size_t>(smem) ? 16 : 8;
  const std::size_t tile_bytes = shapes_.scatter_items == 16 ? ScatterShape<kScatterThreads, 16>::smem_bytes(1)
                                                             : ScatterShape<kScatterThreads, 8>::smem_bytes(1);
  // Each bucket takes 12 bytes of the scatter's shared memory (splitter, count, place); the
  // tables' 16-bit entries hold at most 65535 splitters.
  max_buckets_ = std::min<std::size_t>((static_cast<std::size_t>(smem) - tile_bytes) / 12, 65535);
  scatter_blocks_ = primitives::multiprocessor_count();
  // A study's override of the shapes (docs/algorithms/depth-bucket.md, "Shapes"): "ITEMS,CAPACITY",
  // ITEMS 8 or 16, CAPACITY 2048, 4096 or 8192, each taken only where this device has the room.
  if (const char* study = std::getenv("DEPTHSORT_FUSED_SHAPE")) {
    int items = 0, capacity = 0;
    if (std::sscanf(study, "%d,%d", &items, &capacity) == 2) {
      if (items == 8 || items == 16) shapes_.scatter_items = std::min(shapes_.scatter_items, items);
      if (capacity == 2048 || capacity == 4096 || capacity == 8192)
        shapes_.capacity = std::min<std::uint32_t>(shapes_.capacity, static_cast<std::uint32_t>(capacity));
    }
  }
}

DepthBucket::~DepthBucket() = default;

std::uint32_t DepthBucket::buckets_for(std::size_t n) const {
  // Buckets of half their region on average: room for a bucket twice its share.
  const std::size_t target = shapes_.capacity / 2;
  return static_cast<std::uint32_t>(std::max<std::size_t>(2, (n + target - 1) / target));
}

bool DepthBucket::reserve(std::size_t n) {
  if (n < kMinPrimitives || n > 0xFFFFFFFFu || buckets_for(n) > max_buckets_) return false;
  if (n <= reserved_) return true;
  const std::uint32_t buckets = buckets_for(n);
  regions_ = DeviceBuffer<uint2>(static_cast<std::size_t>(buckets) * shapes_.capacity, "depth-bucket regions");
  splitters_ = DeviceBuffer<std::uint32_t>(buckets, "depth-bucket splitters");
  counts_ = DeviceBuffer<std::uint32_t>(buckets, "depth-bucket counts");
  places_ = DeviceBuffer<std::uint32_t>(buckets + 1, "depth-bucket places");
  table_ = DeviceBuffer<std::uint16_t>(kTableSteps + 1, "depth-bucket table");
  control_ = DeviceBuffer<Control>(1, "depth-bucket control");
  DEPTHSORT_CUDA_CHECK(cudaMemset(counts_.data(), 0, counts_.bytes()));
  DEPTHSORT_CUDA_CHECK(cudaMemset(control_.data(), 0, control_.bytes()));
  reserved_ = n;
  buckets_ = buckets;
  splitters_for_ = 0;
  return true;
}

std::size_t DepthBucket::workspace_bytes() const {
  return regions_.bytes() + splitters_.bytes() + counts_.bytes() + places_.bytes() + table_.bytes() +
         control_.bytes();
}

bool DepthBucket::order(const float4* centroids, std::size_t triangles, const ParticleVertex* particles,
                        std::size_t n, const DepthPlane& plane, std::uint32_t* order, cudaStream_t stream,
                        StepTimer& timer) {
  if (n != splitters_for_ || n > reserved_) return false;
  const Records records{centroids, particles, static_cast<std::uint32_t>(triangles), static_cast<std::uint32_t>(n)};
  const Layout layout{buckets_for(n), shapes_.capacity, static_cast<std::uint32_t>(n)};
  // A bucket holds about kSamples / buckets of the sample; the splitters no longer fit where one
  // holds six times that (the regions hold twice a bucket's share), and at least 16.
  const std::uint32_t most_in_bucket = std::max<std::uint32_t>(16, 6 * kSamples / layout.buckets);
  {
    StepScope step(timer, "sample");
    const std::size_t bytes = sample_smem_bytes(layout.buckets);
    primitives::allow_dynamic_smem(sample_kernel, bytes, "depth-bucket: sample");
    sample_kernel<<<1, kSampleThreads, bytes, stream>>>(records, plane, layout, splitters_.data(), table_.data(),
                                                        control_.data(), most_in_bucket);
    DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: sample_kernel");
  }
  const std::uint32_t sequence = verdict_.next_sequence();
  {
    StepScope step(timer, "depth + scatter", StepStart::AtLastStepEnd);
    const auto launch = [&](auto* kernel, std::size_t bytes, std::uint32_t tile) {
      primitives::allow_dynamic_smem(kernel, bytes, "depth-bucket: scatter");
      int per_multiprocessor = 0;
      DEPTHSORT_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, kScatterThreads, bytes));
      const std::size_t tiles = (n + tile - 1) / tile;
      const auto blocks = static_cast<unsigned>(
          std::min<std::size_t>(tiles, static_cast<std::size_t>(std::max(1, per_multiprocessor) * scatter_blocks_)));
      kernel<<<blocks, kScatterThreads, bytes, stream>>>(records, plane, layout, splitters_.data(), table_.data(),
                                                         counts_.data(), regions_.data(), places_.data(),
                                                         control_.data(), verdict_.slot(), sequence);
      DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: scatter_kernel");
    };
    if (shapes_.scatter_items == 16)
      launch(scatter_for<16>(), ScatterShape<kScatterThreads, 16>::smem_bytes(layout.buckets),
             ScatterShape<kScatterThreads, 16>::tile);
    else
      launch(scatter_for<8>(), ScatterShape<kScatterThreads, 8>::smem_bytes(layout.buckets),
             ScatterShape<kScatterThreads, 8>::tile);
  }
  {
    StepScope step(timer, "bucket sort", StepStart::AtLastStepEnd);
    if (shapes_.capacity == WideBuckets::capacity)
      launch_bucket_sort<WideBuckets>(layout, regions_.data(), counts_.data(), places_.data(), control_.data(), order,
                                      splitters_.data(), stream);
    else if (shapes_.capacity == MidBuckets::capacity)
      launch_bucket_sort<MidBuckets>(layout, regions_.data(), counts_.data(), places_.data(), control_.data(), order,
                                     splitters_.data(), stream);
    else
      launch_bucket_sort<NarrowBuckets>(layout, regions_.data(), counts_.data(), places_.data(), control_.data(),
                                        order, splitters_.data(), stream);
  }
  // The bucket sort is queued: the device goes on while the host reads the first pass's verdict.
  const Posting verdict = verdict_.wait(stream);
  if (verdict.verdict != kFitted) {
    splitters_for_ = 0;
    return false;
  }
  largest_bucket_ = verdict.largest_bucket;
  return true;
}

void DepthBucket::keep_splitters(const float* sorted_keys, std::size_t n, cudaStream_t stream) {
  if (n > reserved_ || n < kMinPrimitives) {
    splitters_for_ = 0;
    return;
  }
  const std::uint32_t buckets = buckets_for(n);
  if (buckets > 1) {
    keep_splitters_kernel<<<primitives::grid_for(buckets - 1, 256), 256, 0, stream>>>(
        sorted_keys, static_cast<std::uint32_t>(n), buckets, splitters_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("depth-bucket: keep_splitters_kernel");
  }
  splitters_for_ = n;
}

}  // namespace depthsort::depth_bucket
