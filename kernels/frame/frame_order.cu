// The frame's order as one unit (frame_order.hpp).
#include "depthsort/frame/frame_order.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "depth_bucket/depth_bucket.hpp"
#include "depthsort/frame/gather.hpp"
#include "depthsort/frame/order_check.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"

namespace depthsort {

const char* order_method_name(OrderMethod method) noexcept { return method == OrderMethod::Fused ? "fused" : "sorter"; }

FrameOrder::FrameOrder(std::size_t max_triangles, std::size_t max_primitives, bool fused)
    : max_triangles_(max_triangles), max_primitives_(max_primitives) {
  if (max_triangles > max_primitives) throw std::logic_error("FrameOrder: more triangles than primitives");
  centroids_ = DeviceBuffer<float4>(max_triangles, "frame order: triangle centroids");
  keys_in_ = DeviceBuffer<float>(max_primitives, "frame order: keys");
  keys_out_ = DeviceBuffer<float>(max_primitives, "frame order: sorted keys");
  key_of_id_ = DeviceBuffer<float>(max_primitives, "frame order: key of each id");
  values_in_ = DeviceBuffer<std::uint32_t>(max_primitives, "frame order: ids");
  ids_ = DeviceBuffer<std::uint32_t>(max_primitives, "frame order: sorted ids");
  marks_ = DeviceBuffer<std::uint32_t>(max_primitives, "frame order: check marks");
  bad_device_ = DeviceBuffer<unsigned int>(2, "frame order: check counts");
  bad_host_ = PinnedBuffer<unsigned int>(2);
  if (!fused) return;
  // depth-bucket where its buckets fit this device, and cub-radix for the frames it hands back
  // (and for every fused frame where they do not fit).
  fused_ = std::make_unique<depth_bucket::DepthBucket>();
  if (fused_->reserve(max_primitives)) fused_n_ = max_primitives;
  const SorterInfo* cub = find_sorter("cub-radix");
  if (!cub) throw std::logic_error("the sorter registry has no cub-radix");
  fallback_ = cub->create(default_options(*cub));
  fallback_->reserve(max_primitives);
}

FrameOrder::~FrameOrder() = default;

std::size_t FrameOrder::workspace_bytes() const {
  std::size_t bytes = centroids_.bytes() + keys_in_.bytes() + keys_out_.bytes() + key_of_id_.bytes() +
                      values_in_.bytes() + ids_.bytes() + marks_.bytes();
  return fused_ ? bytes + fused_->workspace_bytes() + fallback_->workspace_bytes() : bytes;
}

std::size_t FrameOrder::bytes_for(std::size_t triangles, std::size_t primitives, bool fused) noexcept {
  // Centroids; keys in, out and by id; ids in, out and the check's marks.
  std::size_t bytes = 16 * triangles + 24 * primitives;
  // depth-bucket: regions of twice the pairs (8 bytes a pair), its spill area and the overflowed
  // buckets' sort (about a third of a pair more); the fallback's CUB workspace (the pairs again).
  if (fused) bytes += 16 * primitives + primitives / 3 + 8 * primitives + (std::size_t{64} << 20);
  return bytes;
}

SortBuffers FrameOrder::depth_pairs(const FrameRecords& records, const DepthPlane& plane, cudaStream_t stream) {
  launch_record_depth(records, plane, keys_in_.data(), values_in_.data(), stream);
  return SortBuffers{keys_in_.data(), values_in_.data(), keys_out_.data(), ids_.data(), records.size()};
}

std::uint32_t FrameOrder::fused_largest_bucket() const noexcept { return fused_ ? fused_->largest_bucket() : 0; }
std::uint32_t FrameOrder::fused_overflowed_buckets() const noexcept {
  return fused_ ? fused_->overflowed_buckets() : 0;
}
std::uint32_t FrameOrder::fused_bucket_room() const noexcept { return fused_ ? fused_->shapes().capacity : 0; }

void FrameOrder::set_mesh(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                          cudaStream_t stream) {
  if (triangles > max_triangles_)
    throw CapacityError("frame order: a mesh of " + std::to_string(triangles) + " triangles, reserved for " +
                        std::to_string(max_triangles_));
  launch_triangle_centroids(vertices, indices, triangles, centroids_.data(), stream);
  centroid_count_ = triangles;
  have_order_ = false;
  if (fused_) fused_->forget();
}

FrameRecords FrameOrder::records(const ParticleVertex* particles, std::size_t particles_count) const noexcept {
  return FrameRecords{centroids_.data(), centroid_count_, particles, particles_count};
}

void FrameOrder::order_single(const FrameRecords& records, const OrderRequest& request, Sorter* sorter,
                              std::uint32_t* order, cudaStream_t stream, StepTimer& timer) {
  const std::size_t n = records.size();
  if (n > max_primitives_)
    throw CapacityError("frame order: a frame of " + std::to_string(n) + " primitives, reserved for " +
                        std::to_string(max_primitives_));
  std::uint32_t* out = order ? order : ids_.data();
  if (last_separate_) have_order_ = false;  // the separate passes left no single order to list in
  last_separate_ = false;
  last_coherent_ = false;
  last_fused_ = false;
  last_sorted_ = request.sort;
  last_keys_sorted_ = false;
  last_asked_fused_ = request.sort && request.method == OrderMethod::Fused && n > 0;
  if (n == 0) return;
  if (!request.sort) {
    StepScope step(timer, "order (submission)");
    launch_submission_order(out, n, stream);
    last_ids_ = out;
    have_order_ = true;
    return;
  }
  if (request.method == OrderMethod::Fused) {
    if (!fused_) throw std::logic_error("frame order: a fused order from a unit made without depth-bucket");
    {
      StepScope step(timer, "order (fused)");
      order_fused(records, request, out, stream);
    }
    last_ids_ = out;
    have_order_ = true;
    return;
  }
  if (!sorter) throw std::logic_error("frame order: the sorter method without a sorter");
  const bool coherent = request.coherent && have_order_;
  {
    StepScope step(timer, "depth");
    if (coherent) {
      // This frame's depths in id order (the scene read in its own order), then listed in the
      // last frame's order, which the draw order holds until this frame's sort overwrites it:
      // reading the keys alone in that order costs far less than reading the records so.
      launch_record_depth(records, request.plane, key_of_id_.data(), nullptr, stream);
      launch_gather_keys(key_of_id_.data(), out, n, keys_in_.data(), values_in_.data(), stream);
    } else {
      launch_record_depth(records, request.plane, keys_in_.data(), values_in_.data(), stream);
    }
  }
  {
    StepScope step(timer, "sort", StepStart::AtLastStepEnd);
    sorter->sort(SortBuffers{keys_in_.data(), values_in_.data(), keys_out_.data(), out, n}, stream);
  }
  last_ids_ = out;
  have_order_ = true;
  last_coherent_ = coherent;
  last_keys_sorted_ = true;
}

void FrameOrder::order_fused(const FrameRecords& records, const OrderRequest& request, std::uint32_t* out,
                             cudaStream_t stream) {
  const std::size_t n = records.size();
  fused_timer_.begin_frame(stream);
  bool made = false;
  if (fused_fits(n))
    made = fused_->order(records.centroids, records.triangles, records.particles, n, request.plane, out, stream,
                         fused_timer_);
  if (!made) {
    // Handed back (no splitters for this size yet, a cut, an overflow) or too large for the
    // buckets here: the depth pass and cub-radix, whose output gives the next frame its splitters.
    {
      StepScope step(fused_timer_, "fallback: depth");
      launch_record_depth(records, request.plane, keys_in_.data(), values_in_.data(), stream);
    }
    {
      StepScope step(fused_timer_, "fallback: cub-radix", StepStart::AtLastStepEnd);
      fallback_->sort(SortBuffers{keys_in_.data(), values_in_.data(), keys_out_.data(), out, n}, stream);
      if (fused_fits(n)) fused_->keep_splitters(keys_out_.data(), n, stream);
    }
  }
  fused_timer_.end_frame();
  last_fused_ = made;
}

void FrameOrder::order_separate(const FrameRecords& records, const OrderRequest& request, Sorter* mesh_sorter,
                                Sorter* particle_sorter, const std::uint32_t* indices, std::uint32_t* mesh_elements,
                                std::uint32_t* particle_elements, cudaStream_t stream, StepTimer& timer) {
  const std::size_t n = records.size(), triangles = records.triangles, particles = records.particles_count;
  last_separate_ = true;
  last_coherent_ = false;
  last_fused_ = false;
  last_sorted_ = request.sort;
  last_keys_sorted_ = request.sort;
  last_asked_fused_ = false;
  have_order_ = false;
  if (n == 0) return;
  const std::uint32_t* ids = values_in_.data();
  {
    StepScope step(timer, "depth");
    launch_record_depth(records, request.plane, keys_in_.data(), values_in_.data(), stream);
  }
  if (request.sort) {
    StepScope step(timer, "sort", StepStart::AtLastStepEnd);
    if (triangles > 0)
      mesh_sorter->sort(SortBuffers{keys_in_.data(), values_in_.data(), keys_out_.data(), ids_.data(), triangles},
                        stream);
    if (particles > 0)
      particle_sorter->sort(SortBuffers{keys_in_.data() + triangles, values_in_.data() + triangles,
                                        keys_out_.data() + triangles, ids_.data() + triangles, particles},
                            stream);
    ids = ids_.data();
  }
  {
    StepScope step(timer, "gather", StepStart::AtLastStepEnd);
    if (mesh_elements) launch_gather_triangles(indices, ids, triangles, mesh_elements, stream);
    if (particle_elements)
      launch_gather_points(ids + triangles, particles, static_cast<std::uint32_t>(triangles), particle_elements,
                           stream);
  }
  last_ids_ = ids;
}

void FrameOrder::check_last_order(const FrameRecords& records, const DepthPlane& plane, std::uint64_t frame,
                                  cudaStream_t stream) {
  const std::size_t n = records.size(), triangles = records.triangles;
  if (check_pending_ || !last_sorted_ || n == 0 || !last_ids_) return;
  const std::uint32_t* order = last_ids_;
  DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(bad_device_.data(), 0, bad_device_.bytes(), stream));
  if (last_separate_) {
    // keys_in holds the depths in id order: the key of each id as it went into the two sorts.
    launch_check_sorted(keys_in_.data(), triangles, keys_out_.data(), order, triangles, bad_device_.data(), stream);
    launch_check_sorted(keys_in_.data(), n, keys_out_.data() + triangles, order + triangles, n - triangles,
                        bad_device_.data() + 1, stream);
  } else {
    // The key of each id as it went into the sort: keys_in itself where the depths were in id
    // order, key_of_id where they were listed in the last order (an id out of range there got the
    // farthest key, and the check counts it). An order made without its keys (depth-bucket's, or
    // its fallback's, whose keys_out holds the same keys) is checked against the depths again.
    const float* key_of_id = keys_in_.data();
    if (last_coherent_) key_of_id = key_of_id_.data();
    if (!last_keys_sorted_) {
      launch_record_depth(records, plane, key_of_id_.data(), nullptr, stream);
      launch_check_order(key_of_id_.data(), n, order, n, bad_device_.data(), stream);
    } else {
      launch_check_sorted(key_of_id, n, keys_out_.data(), order, n, bad_device_.data(), stream);
    }
    launch_check_permutation(order, n, marks_.data(), bad_device_.data(), stream);
  }
  DEPTHSORT_CUDA_CHECK(
      cudaMemcpyAsync(bad_host_.data(), bad_device_.data(), bad_device_.bytes(), cudaMemcpyDeviceToHost, stream));
  DEPTHSORT_CUDA_CHECK(cudaEventRecord(check_event_.get(), stream));
  check_pending_ = true;
  check_frame_ = frame;
}

bool FrameOrder::poll_check(OrderCheck& check) {
  if (!check_pending_) return false;
  const cudaError_t status = cudaEventQuery(check_event_.get());
  if (status == cudaErrorNotReady) return false;
  DEPTHSORT_CUDA_CHECK(status);
  check_pending_ = false;
  check = OrderCheck{check_frame_, bad_host_[0], bad_host_[1]};
  return true;
}

bool FrameOrder::finish_check(OrderCheck& check) {
  if (!check_pending_) return false;
  DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(check_event_.get()));
  return poll_check(check);
}

}  // namespace depthsort
