// The GPU path's compute part: one map of every buffer the frame touches, the particles, the depth
// keys, the sort, the gather into the GL buffers (or the expand step), an asynchronous order
// check now and then, one unmap; each a CUDA-event step (loop/frame_pipeline.hpp).
#include "loop/frame_pipeline.hpp"

#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/gather.hpp"
#include "depthsort/frame/order_check.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/pair_buffers.hpp"
#include "interop/gl_interop.hpp"

namespace depthsort::app {

namespace {

class GpuPipeline final : public FramePipeline {
 public:
  GpuPipeline(SceneBuffers& buffers, const Scene& scene, std::span<const SorterChoice> choices)
      : FramePipeline(TimerClock::CudaEvents), triangles_(buffers.triangles), particles_(buffers.particles),
        n_(triangles_ + particles_), fixed_particles_(!scene.fixed_particles.empty()), bad_host_(2) {
    // The scene's CUDA-side memory, checked up front so the message has the sizes.
    const std::size_t need = triangles_ * 3 * sizeof(std::uint32_t) + particles_ * sizeof(ParticleState) +
                             n_ * (5 * sizeof(float));
    std::size_t free_bytes = 0, total_bytes = 0;
    DEPTHSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes)
      throw CapacityError("scene too large for GPU memory: " + std::to_string(triangles_) + " triangles and " +
                          std::to_string(particles_) + " particles need " + byte_text(need, ByteUnits::MiB) +
                          " of CUDA buffers (plus the sorter's workspace) but " +
                          byte_text(free_bytes, ByteUnits::MiB) + " of " + byte_text(total_bytes, ByteUnits::MiB) +
                          " are free; use fewer --triangles/--copies/--particles");

    if (triangles_ > 0) {
      mesh_vertices_ =
          RegisteredBuffer(buffers.mesh_vertices.get(), cudaGraphicsRegisterFlagsReadOnly, "mesh vertices");
      mesh_elements_ = RegisteredBuffer(buffers.mesh_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                        "mesh elements");
      indices_ = DeviceBuffer<std::uint32_t>(3 * triangles_, "mesh triangle list");
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(indices_.data(), scene.mesh.indices.data(), indices_.bytes(),
                                      cudaMemcpyHostToDevice));
    }
    if (particles_ > 0) {
      particle_vertices_ = RegisteredBuffer(buffers.particle_vertices.get(), cudaGraphicsRegisterFlagsNone,
                                            "particle vertices");
      particle_elements_ = RegisteredBuffer(buffers.particle_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                            "particle elements");
      state_ = DeviceBuffer<ParticleState>(particles_, "particle state");
    }
    if (n_ > 0) {
      primitive_order_ = RegisteredBuffer(buffers.primitive_order.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                          "primitive order");
      segment_ids_ = RegisteredBuffer(buffers.segment_ids.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                      "segment ids");
      keys_ = DevicePairBuffers(n_, "primitive pairs");
      key_of_id_ = DeviceBuffer<float>(n_, "check: key of each primitive id");
      if (buffers.expanded_vertices.get())
        expanded_ = RegisteredBuffer(buffers.expanded_vertices.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                     "expanded vertices");
    }
    bad_device_ = DeviceBuffer<unsigned int>(2, "correctness counters");
    make_sorters(choices, triangles_, particles_);

    if (particles_ > 0) {  // the fountain in its steady state, or the scene's fixed particles
      RegisteredBuffer* list[] = {&particle_vertices_};
      InteropMapping mapping(list, 1, stream_.get());
      auto* vertices = static_cast<ParticleVertex*>(mapping.pointer(0));
      if (fixed_particles_)
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(vertices, scene.fixed_particles.data(),
                                             particles_ * sizeof(ParticleVertex), cudaMemcpyHostToDevice,
                                             stream_.get()));
      else
        launch_particles_init(state_.data(), vertices, particles_, scene.emitter, stream_.get());
      mapping.unmap();
    }
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  ~GpuPipeline() override { cudaStreamSynchronize(stream_.get()); }

  bool on_gpu() const override { return true; }

  bool segment_starts(std::vector<std::uint32_t>& starts) override {
    Sorter* current = sorter();
    const Segments found = current ? current->segments() : Segments{};
    if (found.count == 0 || !found.starts) return false;
    starts.resize(found.count);
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(starts.data(), found.starts, found.count * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, stream_.get()));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return true;
  }

  std::vector<StepBar> compare_all(CompareAll& runner) override {
    if (n_ == 0) return {};
    return runner.run(keys_.keys_in.data(), keys_.values_in.data(), n_, stream_.get());
  }

  void compute(const Camera& camera, const FramePlan& plan, std::uint64_t frame_index) override {
    // A check that has finished since the last poll frees the slot for this frame's check, so
    // --check-every 1 checks every frame where the GPU keeps up (headless runs always do).
    poll_check();
    const cudaStream_t stream = stream_.get();
    const DepthPlane plane = camera.depth_plane();
    const bool order = plan.order, sorting = plan.sort, simulate = plan.simulate, separate = plan.separate,
               expand = plan.expand, segments = plan.segments;
    const bool coherent = use_previous_order(plan);
    if (expand && !expanded_.resource())
      throw std::logic_error("the expanded draw needs the renderer's expanded vertex buffer (--draw-path expanded)");
    // The buffers this frame touches, mapped together in one call.
    std::array<RegisteredBuffer*, 7> list{};
    int count = 0;
    const auto add = [&](bool wanted, RegisteredBuffer& buffer) {
      if (!wanted) return -1;
      list[static_cast<std::size_t>(count)] = &buffer;
      return count++;
    };
    const int at_mesh_vertices = add(triangles_ > 0 && (order || expand), mesh_vertices_);
    const int at_particle_vertices = add(particles_ > 0 && (order || simulate || expand), particle_vertices_);
    const int at_mesh_elements = add(triangles_ > 0 && order && separate, mesh_elements_);
    const int at_particle_elements = add(particles_ > 0 && order && separate, particle_elements_);
    const int at_order = add(order && !separate && !expand, primitive_order_);
    const int at_segments = add(segments, segment_ids_);
    const int at_expanded = add(expand, expanded_);

    timer_.begin_frame(stream);
    std::optional<InteropMapping> mapping;
    {
      StepScope step(timer_, "map");
      mapping.emplace(list.data(), count, stream);
    }
    const auto pointer = [&](int at) { return at >= 0 ? mapping->pointer(at) : nullptr; };
    const auto* mesh_vertices = static_cast<const MeshVertex*>(pointer(at_mesh_vertices));
    auto* particle_vertices = static_cast<ParticleVertex*>(pointer(at_particle_vertices));
    auto* mesh_elements = static_cast<std::uint32_t*>(pointer(at_mesh_elements));
    auto* particle_elements = static_cast<std::uint32_t*>(pointer(at_particle_elements));
    auto* primitive_order = static_cast<std::uint32_t*>(pointer(at_order));
    auto* segment_ids = static_cast<std::uint32_t*>(pointer(at_segments));
    auto* expanded = static_cast<ExpandedVertex*>(pointer(at_expanded));

    // Each step starts at the last one's end (only host work lies between: the mapped pointers, the
    // kept order), except after the check's work where a frame queues it.
    StepStart next_start = StepStart::AtLastStepEnd;
    if (simulate) {
      StepScope step(timer_, "simulate", StepStart::AtLastStepEnd);
      launch_particles_step(state_.data(), particle_vertices, particles_, plan.emitter, stream);
    }
    if (order) {
      {
        StepScope step(timer_, "depth", StepStart::AtLastStepEnd);
        // Coherent: the depths in id order (the scene read in its own order), then listed in last
        // frame's sorted order (values_out, which this frame's sort overwrites only after the
        // gather has read it); key_of_id_ is then also what the order check needs.
        launch_primitive_depth(mesh_vertices, indices_.data(), triangles_, particle_vertices, particles_, plane,
                               coherent ? key_of_id_.data() : keys_.keys_in.data(),
                               coherent ? nullptr : keys_.values_in.data(), stream);
        if (coherent)
          launch_gather_keys(key_of_id_.data(), keys_.values_out.data(), n_, keys_.keys_in.data(),
                             keys_.values_in.data(), stream);
      }
      if (sorting) {
        StepScope step(timer_, "sort", StepStart::AtLastStepEnd);
        if (!separate) {
          sorter()->sort(keys_.buffers(0, n_), stream);
        } else {
          if (triangles_ > 0) sorter()->sort(keys_.buffers(0, triangles_), stream);
          if (particles_ > 0) particle_sorter()->sort(keys_.buffers(triangles_, particles_), stream);
        }
        order_made();
      }
      const std::uint32_t* ids = sorting ? keys_.values_out.data() : keys_.values_in.data();
      keep_drawn_order(ids, sorting);
      if (!expand) {  // the expanded draw has nothing to gather: its expand step reads the order
        StepScope step(timer_, "gather", StepStart::AtLastStepEnd);
        if (primitive_order)
          DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(primitive_order, ids, n_ * sizeof(std::uint32_t),
                                               cudaMemcpyDeviceToDevice, stream));
        if (mesh_elements) launch_gather_triangles(indices_.data(), ids, triangles_, mesh_elements, stream);
        if (particle_elements)
          launch_gather_points(ids + triangles_, particles_, static_cast<std::uint32_t>(triangles_),
                               particle_elements, stream);
        if (segment_ids) {
          const Segments none{};
          launch_segment_ids(sorting ? sorter()->segments() : none, n_, segment_ids, stream);
        }
      }
      if (sorting && !check_pending_ && frame_index % static_cast<std::uint64_t>(plan.check_every) == 0) {
        queue_check(frame_index, coherent, separate);
        next_start = StepStart::OwnEvent;
      }
    }
    if (expand) {
      StepScope step(timer_, "expand", next_start);
      launch_expand(mesh_vertices, indices_.data(), triangles_, particle_vertices, n_, drawn_ids_,
                    expand_segments(plan), expand_view(camera, plan), expanded, stream);
      next_start = StepStart::AtLastStepEnd;
    }
    {
      StepScope step(timer_, "unmap", next_start);
      mapping->unmap();
    }
    timer_.end_frame();
  }

  void poll_check() override {
    if (!check_pending_) return;
    const cudaError_t status = cudaEventQuery(check_event_.get());
    if (status == cudaErrorNotReady) return;
    DEPTHSORT_CUDA_CHECK(status);
    take_check();
  }

  void finish_checks() override {
    if (!check_pending_) return;
    DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(check_event_.get()));
    take_check();
  }

 private:
  void queue_check(std::uint64_t frame_index, bool coherent, bool separate) {
    const cudaStream_t stream = stream_.get();
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(bad_device_.data(), 0, bad_device_.bytes(), stream));
    // Each id's key as it went into the sort: keys_in itself when the input was in id order, else
    // the depth step's key_of_id_ (an order broken by the last frame only changes which key an
    // out-of-range id gets: -inf, and the check counts the id).
    const float* key_of_id = coherent ? key_of_id_.data() : keys_.keys_in.data();
    if (!separate) {
      launch_check_sorted(key_of_id, n_, keys_.keys_out.data(), keys_.values_out.data(), n_, bad_device_.data(),
                          stream);
    } else {
      launch_check_sorted(key_of_id, triangles_, keys_.keys_out.data(), keys_.values_out.data(), triangles_,
                          bad_device_.data(), stream);
      launch_check_sorted(key_of_id, n_, keys_.keys_out.data() + triangles_, keys_.values_out.data() + triangles_,
                          particles_, bad_device_.data() + 1, stream);
    }
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(bad_host_.data(), bad_device_.data(), bad_device_.bytes(),
                                         cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(check_event_.get(), stream));
    check_pending_ = true;
    pending_frame_ = frame_index;
    if (check_.light == CheckLight::None) check_.light = CheckLight::Pending;
  }

  void take_check() {
    check_pending_ = false;
    record_check(check_, pending_frame_, bad_host_.data()[0], bad_host_.data()[1]);
  }

  std::size_t triangles_, particles_, n_;
  bool fixed_particles_;
  CudaStream stream_;
  RegisteredBuffer mesh_vertices_, mesh_elements_, particle_vertices_, particle_elements_, primitive_order_,
      segment_ids_, expanded_;
  DeviceBuffer<std::uint32_t> indices_;
  DeviceBuffer<ParticleState> state_;
  DevicePairBuffers keys_;
  DeviceBuffer<float> key_of_id_;
  DeviceBuffer<unsigned int> bad_device_;
  PinnedBuffer<unsigned int> bad_host_;
  CudaEvent check_event_{cudaEventDisableTiming};
  bool check_pending_ = false;
  std::uint64_t pending_frame_ = 0;
};

}  // namespace

std::unique_ptr<FramePipeline> make_gpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices) {
  return std::make_unique<GpuPipeline>(buffers, scene, choices);
}


}  // namespace depthsort::app
