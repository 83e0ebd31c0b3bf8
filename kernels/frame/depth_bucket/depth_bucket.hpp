// depth-bucket's host side: the buffers of the fused order and the sequence of its steps
// (common.cuh has the design; docs/algorithms/depth-bucket.md its measurements).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "sort/primitives/pinned_mailbox.hpp"

namespace depthsort::depth_bucket {

struct Control;
struct Layout;
struct Posting;

// The device's shapes for both passes, from its shared memory per block.
struct Shapes {
  int scatter_items = 8;          // items a thread of the 512-thread scatter (tile: 512 x items)
  std::uint32_t capacity = 8192;  // pairs a bucket's region holds, and the on-chip sort's size
};

class DepthBucket {
 public:
  // Below this many primitives the plain path is as fast: a frame too small for the buckets.
  static constexpr std::size_t kMinPrimitives = std::size_t{1} << 16;

  DepthBucket();
  ~DepthBucket();
  DepthBucket(const DepthBucket&) = delete;
  DepthBucket& operator=(const DepthBucket&) = delete;

  // Whether frames of n primitives can take the fused path on this device (their buckets fit the
  // passes' shared memory); sizes the workspace for them. Call outside the frame loop.
  bool reserve(std::size_t n);
  std::size_t workspace_bytes() const;

  // The fused order of the frame's n = triangles + particles primitives (centroids, particles),
  // written to order[0, n) on `stream`, its steps timed on `timer` (inside its frame). True where
  // the order was made; false where the frame is handed back (no splitters for this n yet, the
  // sample found them unfit, or too many buckets overflowed): the caller then orders it another
  // way and calls keep_splitters with the sorted keys. Waits on the host for the first pass's
  // verdict (the second pass is queued first, so the device does not wait for the host).
  bool order(const float4* centroids, std::size_t triangles, const ParticleVertex* particles, std::size_t n,
             const DepthPlane& plane, std::uint32_t* order, cudaStream_t stream, StepTimer& timer);
  // The next frame's splitters from an order made another way: n keys, sorted.
  void keep_splitters(const float* sorted_keys, std::size_t n, cudaStream_t stream);
  // Forgets the splitters (a new scene): the next frame is handed back.
  void forget() noexcept { splitters_for_ = 0; }

  // The last frame's verdict, for tests and the panel: its fullest bucket (pairs), and the buckets
  // beyond their room that it sorted after the others.
  std::uint32_t largest_bucket() const noexcept { return largest_bucket_; }
  std::uint32_t overflowed_buckets() const noexcept { return overflowed_; }
  const Shapes& shapes() const noexcept { return shapes_; }

 private:
  // A frame's layout: the buckets for n, the regions' room, the spill area's.
  Layout layout_for(std::size_t n) const;
  // The overflowed buckets' `pairs`, which differ in their low `bits` key bits alone, sorted and
  // placed in the order.
  void sort_overflowed(const Layout& layout, std::uint32_t pairs, std::uint32_t bits, std::uint32_t* order,
                       cudaStream_t stream);

  Shapes shapes_{};
  std::size_t reserved_ = 0;       // primitives the buffers hold
  std::size_t splitters_for_ = 0;  // the n the kept splitters were taken from (0: none)
  DeviceBuffer<uint2> regions_, spill_;
  // The splitters a frame reads (current_) and those its bucket sort writes for the next frame.
  DeviceBuffer<std::uint32_t> splitters_[2];
  int current_ = 0;
  DeviceBuffer<std::uint32_t> counts_, sample_counts_, places_;
  DeviceBuffer<std::uint16_t> table_;
  DeviceBuffer<Control> control_;
  // The overflowed buckets' pairs, keys and ids apart (and CUB's second buffers and workspace).
  DeviceBuffer<std::uint32_t> overflow_keys_[2], overflow_ids_[2];
  DeviceBuffer<unsigned char> overflow_temp_;
  primitives::PinnedMailbox<Posting> verdict_;
  std::uint32_t largest_bucket_ = 0, overflowed_ = 0;
  int scatter_blocks_ = 0;
};

}  // namespace depthsort::depth_bucket
