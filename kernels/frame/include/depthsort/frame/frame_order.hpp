// The frame's back-to-front order as one unit: from the frame's primitives on the device (the
// triangles' centroids, the particles) and the camera's depth plane to the primitive ids in the
// draw order, at a device pointer the caller hands in (the demo maps its GL buffer; the kernels
// here know nothing of GL). The demo's frame and the benchmark's frame sequences both run it, so
// a benchmark row is the demo's own pipeline.
//
// Two methods:
//   Sorter  the depth pass writes (key, id) pairs in scene order (or, coherent, listed in the last
//           frame's order, which the draw order still holds) and a registry sorter sorts them,
//           writing its ids straight into the draw order: no gather;
//   Fused   depth-bucket, depthsort's own (docs/algorithms/depth-bucket.md): a sample sort whose
//           first pass computes the depths from the records, with the last frame's splitters;
//           a frame it hands back (the first, a cut, a new size) is ordered by the depth pass and
//           cub-radix, whose output gives the next frame its splitters.
// The separate passes (triangles, then particles, each in its own order) sort two ranges with two
// sorters and gather the orders into the two element buffers.
//
// Every step is timed on the caller's StepTimer and named in NVTX (depth, sort, order, gather;
// depth-bucket's own steps on fused_timer()). The order check is queued on request and read
// without waiting. Everything is allocated in the constructor and set_mesh: a frame allocates
// nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"

namespace depthsort {

namespace depth_bucket {
class DepthBucket;
}

enum class OrderMethod { Sorter, Fused };
// "sorter", "fused": the --order value, the console's and --json's word.
const char* order_method_name(OrderMethod method) noexcept;

// What one frame asks of its order.
struct OrderRequest {
  DepthPlane plane{};
  OrderMethod method = OrderMethod::Sorter;
  bool sort = true;       // false: the submission order (ids 0..n-1), no depths
  bool coherent = false;  // Sorter, single order: the depths listed in the last frame's order
};

// A finished check: positions out of order or carrying a wrong key, and ids missing or twice, in
// the single order (or the triangles' order) and in the particles' order of the separate passes.
struct OrderCheck {
  std::uint64_t frame = 0;
  unsigned int bad_first = 0, bad_second = 0;
};

class FrameOrder {
 public:
  // Buffers for up to max_primitives primitives, max_triangles of them triangles (their
  // centroids), and, with `fused`, depth-bucket's and its fallback's (a Fused request on a unit
  // made without them throws std::logic_error). Throws CapacityError with sizes where the device
  // cannot hold them.
  FrameOrder(std::size_t max_triangles, std::size_t max_primitives, bool fused = true);
  ~FrameOrder();
  FrameOrder(const FrameOrder&) = delete;
  FrameOrder& operator=(const FrameOrder&) = delete;

  std::size_t workspace_bytes() const;
  // About the device memory a unit for `triangles` of `primitives` takes (with depth-bucket's
  // buffers), before one is made: for memory estimates.
  static std::size_t bytes_for(std::size_t triangles, std::size_t primitives, bool fused = true) noexcept;
  // Whether depth-bucket can order frames of n primitives on this device (otherwise a Fused
  // request is ordered the way its fallback is: depth pass and cub-radix).
  bool fused_fits(std::size_t n) const noexcept { return fused_n_ >= n && fused_n_ > 0; }
  bool has_fused() const noexcept { return fused_ != nullptr; }

  // The triangles' centroids from the (static) mesh: once per mesh, before its first frame.
  void set_mesh(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles, cudaStream_t stream);
  // The records of a frame: the centroids set here, and the caller's particles.
  FrameRecords records(const ParticleVertex* particles, std::size_t particles_count) const noexcept;
  // The frame's (key, id) pairs in scene order, by the plain depth pass, into the unit's buffers:
  // for work beside the frame (the panel's compare-all). The pairs' output buffers are the unit's.
  SortBuffers depth_pairs(const FrameRecords& records, const DepthPlane& plane, cudaStream_t stream);

  // The single order of every primitive of `records`, written to order[0, n) (n ids), or, where
  // `order` is null (the expanded draw), kept inside (last_ids()). `sorter` sorts for the Sorter
  // method (reserved for n; may be null for Fused).
  void order_single(const FrameRecords& records, const OrderRequest& request, Sorter* sorter, std::uint32_t* order,
                    cudaStream_t stream, StepTimer& timer);
  // The separate passes: the triangles' order gathered into mesh_elements (three indices a
  // triangle, from `indices`) and the particles' into particle_elements (one index a particle),
  // sorted by mesh_sorter and particle_sorter (each reserved for its kind's count).
  void order_separate(const FrameRecords& records, const OrderRequest& request, Sorter* mesh_sorter,
                      Sorter* particle_sorter, const std::uint32_t* indices, std::uint32_t* mesh_elements,
                      std::uint32_t* particle_elements, cudaStream_t stream, StepTimer& timer);

  // The ids of the last order made, while its storage holds them (inside, or the caller's order
  // pointer while the caller keeps it): what the expanded draw and the segment ids read.
  const std::uint32_t* last_ids() const noexcept { return last_ids_; }
  // Forgets the last order (a new draw-order buffer, a new scene): the next coherent frame lists
  // its keys in scene order.
  void forget_order() noexcept { have_order_ = false; }
  // Whether the last frame's depths were listed in the order before it, and whether its order was
  // depth-bucket's own (not handed back to the fallback).
  bool last_coherent() const noexcept { return last_coherent_; }
  bool last_fused() const noexcept { return last_fused_; }
  // Whether the last order was asked of depth-bucket (made by it, or by its fallback): its steps
  // are then on fused_timer(), not on a sorter's.
  bool last_asked_fused() const noexcept { return last_asked_fused_; }
  // depth-bucket's steps of the last fused frame (sample, depth + scatter, bucket sort, and the
  // fallback's where it was handed back), and its fullest bucket.
  StepTimer& fused_timer() noexcept { return fused_timer_; }
  std::uint32_t fused_largest_bucket() const noexcept;
  // The buckets beyond their room that the last fused frame sorted after the others, and that
  // room (pairs a bucket holds on this device; 0 without depth-bucket).
  std::uint32_t fused_overflowed_buckets() const noexcept;
  std::uint32_t fused_bucket_room() const noexcept;

  // Queues the check of the last order made (frame `frame`, whose records and plane are passed
  // again): every position in key order with its own key, every id once (the separate passes:
  // each order's positions). Does nothing while a check is pending. Its kernels follow the
  // order's steps on the stream, outside them.
  void check_last_order(const FrameRecords& records, const DepthPlane& plane, std::uint64_t frame, cudaStream_t stream);
  // A check queued by an earlier frame that has finished since: true and *check filled; never
  // waits. finish_check waits for a queued one (false if none was queued).
  bool poll_check(OrderCheck& check);
  bool finish_check(OrderCheck& check);
  bool check_pending() const noexcept { return check_pending_; }

 private:
  // depth-bucket's order of the frame into `order`, on fused_timer(); its fallback where handed back.
  void order_fused(const FrameRecords& records, const OrderRequest& request, std::uint32_t* order, cudaStream_t stream);

  std::size_t max_triangles_, max_primitives_;
  DeviceBuffer<float4> centroids_;
  std::size_t centroid_count_ = 0;
  DeviceBuffer<float> keys_in_, keys_out_, key_of_id_;
  DeviceBuffer<std::uint32_t> values_in_, ids_, marks_;
  DeviceBuffer<unsigned int> bad_device_;
  PinnedBuffer<unsigned int> bad_host_;
  CudaEvent check_event_{cudaEventDisableTiming};
  bool check_pending_ = false;
  std::uint64_t check_frame_ = 0;
  // The fused path and its fallback sort (cub-radix), its timer.
  std::unique_ptr<depth_bucket::DepthBucket> fused_;
  std::unique_ptr<Sorter> fallback_;
  std::size_t fused_n_ = 0;
  StepTimer fused_timer_;
  // The last order: where its ids are, whether a coherent frame may list in it.
  const std::uint32_t* last_ids_ = nullptr;
  bool have_order_ = false, last_separate_ = false, last_coherent_ = false, last_fused_ = false;
  bool last_sorted_ = false;       // the last order was sorted (not the submission order)
  bool last_asked_fused_ = false;  // the last order was a fused request
  bool last_keys_sorted_ = false;  // keys_out holds its keys (a registry sorter's order)
};

}  // namespace depthsort
