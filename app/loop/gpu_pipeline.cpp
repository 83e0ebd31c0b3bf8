// The GPU path's compute part: one map of every buffer the frame touches, the particles, the frame's
// order (the frame library's unit, depthsort/frame/frame_order.hpp: the depth pass and the sorter
// writing the ids straight into the GL draw order, or depth-bucket's fused order; the separate
// passes' gathers), the expand step, an asynchronous order check now and then, one unmap; each a
// CUDA-event step (loop/frame_pipeline.hpp).
#include "loop/frame_pipeline.hpp"

#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/frame_order.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "interop/gl_interop.hpp"

namespace depthsort::app {

namespace {

class GpuPipeline final : public FramePipeline {
 public:
  GpuPipeline(SceneBuffers& buffers, const Scene& scene, std::span<const SorterChoice> choices)
      : FramePipeline(TimerClock::CudaEvents),
        triangles_(buffers.triangles),
        particles_(buffers.particles),
        n_(triangles_ + particles_),
        fixed_particles_(!scene.fixed_particles.empty()) {
    // The scene's CUDA-side memory, checked up front so the message has the sizes: the triangle list,
    // the particles' state, the frame order's buffers (FrameOrder::bytes_for).
    const std::size_t need = triangles_ * 3 * sizeof(std::uint32_t) + particles_ * sizeof(ParticleState) +
                             FrameOrder::bytes_for(triangles_, n_);
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
      mesh_elements_ =
          RegisteredBuffer(buffers.mesh_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard, "mesh elements");
      indices_ = DeviceBuffer<std::uint32_t>(3 * triangles_, "mesh triangle list");
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpy(indices_.data(), scene.mesh.indices.data(), indices_.bytes(), cudaMemcpyHostToDevice));
    }
    if (particles_ > 0) {
      particle_vertices_ =
          RegisteredBuffer(buffers.particle_vertices.get(), cudaGraphicsRegisterFlagsNone, "particle vertices");
      particle_elements_ =
          RegisteredBuffer(buffers.particle_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard, "particle elements");
      state_ = DeviceBuffer<ParticleState>(particles_, "particle state");
    }
    if (n_ > 0) {
      // Read and written: a coherent frame lists its keys in the order the last frame left here.
      primitive_order_ =
          RegisteredBuffer(buffers.primitive_order.get(), cudaGraphicsRegisterFlagsNone, "primitive order");
      segment_ids_ = RegisteredBuffer(buffers.segment_ids.get(), cudaGraphicsRegisterFlagsWriteDiscard, "segment ids");
      if (buffers.expanded_vertices.get())
        expanded_ = RegisteredBuffer(buffers.expanded_vertices.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                     "expanded vertices");
    }
    order_.emplace(triangles_, n_);
    make_sorters(choices, triangles_, particles_);
    if (triangles_ > 0) {  // the static mesh's centroids, once: the order's depth passes read them
      RegisteredBuffer* list[] = {&mesh_vertices_};
      InteropMapping mapping(list, 1, stream_.get());
      order_->set_mesh(static_cast<const MeshVertex*>(mapping.pointer(0)), indices_.data(), triangles_, stream_.get());
      mapping.unmap();
    }

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
    // This frame's pairs in scene order (the particles where the last frame left them).
    std::array<RegisteredBuffer*, 1> list{&particle_vertices_};
    InteropMapping mapping(list.data(), particles_ > 0 ? 1 : 0, stream_.get());
    const SortBuffers pairs = order_->depth_pairs(
        order_->records(particles_ > 0 ? static_cast<const ParticleVertex*>(mapping.pointer(0)) : nullptr, particles_),
        last_plane_, stream_.get());
    std::vector<StepBar> bars = runner.run(pairs.keys_in, pairs.values_in, n_, stream_.get());
    mapping.unmap();
    return bars;
  }

  void compute(const Camera& camera, const FramePlan& plan, std::uint64_t frame_index) override {
    // A check that has finished since the last poll frees the slot for this frame's check, so
    // --check-every 1 checks every frame where the GPU keeps up (headless runs always do).
    poll_check();
    const cudaStream_t stream = stream_.get();
    const DepthPlane plane = camera.depth_plane();
    last_plane_ = plane;
    const bool order = plan.order, sorting = plan.sort, simulate = plan.simulate, separate = plan.separate,
               expand = plan.expand, segments = plan.segments;
    use_previous_order(plan);
    if (expand && !expanded_.resource())
      throw std::logic_error("the expanded draw needs the renderer's expanded vertex buffer (--draw-path expanded)");
    // The buffers this frame touches, mapped together in one call. The mesh's vertices only for the
    // expand step: the order reads the triangles' centroids, computed once.
    std::array<RegisteredBuffer*, 7> list{};
    int count = 0;
    const auto add = [&](bool wanted, RegisteredBuffer& buffer) {
      if (!wanted) return -1;
      list[static_cast<std::size_t>(count)] = &buffer;
      return count++;
    };
    const int at_mesh_vertices = add(triangles_ > 0 && expand, mesh_vertices_);
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
      const FrameRecords records = order_->records(particle_vertices, particles_);
      OrderRequest request;
      request.plane = plane;
      request.method = plan.fused ? OrderMethod::Fused : OrderMethod::Sorter;
      request.sort = sorting;
      request.coherent = plan.coherent;
      // The single order goes straight into the GL draw order (the expanded draw's stays inside:
      // its expand step reads it); the separate passes' orders are gathered into the two element
      // buffers.
      if (!separate)
        order_->order_single(records, request, sorter(), primitive_order, stream, timer_);
      else
        order_->order_separate(records, request, sorter(), particle_sorter(), indices_.data(), mesh_elements,
                               particle_elements, stream, timer_);
      if (sorting) order_made();
      const bool by_sorter = sorting && !plan.fused;
      keep_drawn_order(order_->last_ids(), by_sorter);
      if (segment_ids) {
        StepScope step(timer_, "segment ids", StepStart::AtLastStepEnd);
        const Segments none{};
        launch_segment_ids(by_sorter ? sorter_segments() : none, n_, segment_ids, stream);
      }
      if (sorting && !order_->check_pending() && frame_index % static_cast<std::uint64_t>(plan.check_every) == 0) {
        order_->check_last_order(records, plane, frame_index, stream);
        if (check_.light == CheckLight::None) check_.light = CheckLight::Pending;
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
    if (OrderCheck result; order_->poll_check(result))
      record_check(check_, result.frame, result.bad_first, result.bad_second);
  }

  void finish_checks() override {
    if (OrderCheck result; order_->finish_check(result))
      record_check(check_, result.frame, result.bad_first, result.bad_second);
  }

  std::size_t order_bytes() const override { return order_->workspace_bytes(); }
  StepTimer* sort_steps_timer() override {
    return order_->last_asked_fused() ? &order_->fused_timer() : FramePipeline::sort_steps_timer();
  }
  const FrameOrder* frame_order() const override { return &*order_; }

 private:
  std::size_t triangles_, particles_, n_;
  bool fixed_particles_;
  CudaStream stream_;
  RegisteredBuffer mesh_vertices_, mesh_elements_, particle_vertices_, particle_elements_, primitive_order_,
      segment_ids_, expanded_;
  DeviceBuffer<std::uint32_t> indices_;
  DeviceBuffer<ParticleState> state_;
  std::optional<FrameOrder> order_;
  DepthPlane last_plane_{};  // the last frame's: compare-all sorts its keys
};

}  // namespace

std::unique_ptr<FramePipeline> make_gpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices) {
  return std::make_unique<GpuPipeline>(buffers, scene, choices);
}

}  // namespace depthsort::app
