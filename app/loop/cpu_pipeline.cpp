// The CPU path's compute part: the particles, the depth keys, the sort (the registry's CPU sorter),
// the gather (or the expand step) and the order check on the host, then one upload of what
// changed into the GL buffers; each a host-clock step (loop/frame_pipeline.hpp).
#include "loop/frame_pipeline.hpp"

#include "render/gl.hpp"

#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/gather.hpp"
#include "depthsort/frame/order_check.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/pair_buffers.hpp"

namespace depthsort::app {

namespace {

class CpuPipeline final : public FramePipeline {
 public:
  CpuPipeline(SceneBuffers& buffers, const Scene& scene, std::span<const SorterChoice> choices)
      : FramePipeline(TimerClock::Host),
        buffers_(buffers),
        vertices_(scene.mesh.vertices),
        indices_(scene.mesh.indices),
        triangles_(scene.mesh.triangles()),
        particles_(scene.particles),
        fixed_particles_(!scene.fixed_particles.empty()),
        keys_(triangles_ + particles_) {
    elements_.resize(indices_.size());
    state_.resize(particles_);
    particle_vertices_.resize(particles_);
    particle_elements_.resize(particles_);
    key_of_id_.resize(keys_.size());
    segment_ids_.resize(keys_.size());
    if (buffers_.expanded_vertices.get()) expanded_.resize(3 * keys_.size());
    if (fixed_particles_)
      particle_vertices_ = scene.fixed_particles;
    else
      for (std::size_t i = 0; i < particles_; ++i)
        particle_init(state_[i], particle_vertices_[i], scene.emitter, static_cast<std::uint32_t>(i));
    if (particles_ > 0)
      DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffers_.particle_vertices.get(), 0,
                                              static_cast<GLsizeiptr>(particles_ * sizeof(ParticleVertex)),
                                              particle_vertices_.data()));
    make_sorters(choices, triangles_, particles_);
  }

  bool on_gpu() const override { return false; }

  bool segment_starts(std::vector<std::uint32_t>& starts) override {
    Sorter* current = sorter();
    const Segments found = current ? current->segments() : Segments{};
    if (found.count == 0 || !found.starts) return false;
    starts.assign(found.starts, found.starts + found.count);
    return true;
  }

  std::vector<StepBar> compare_all(CompareAll&) override { return {}; }

  void compute(const Camera& camera, const FramePlan& plan, std::uint64_t frame_index) override {
    const DepthPlane plane = camera.depth_plane();
    const std::size_t n = keys_.size();
    const bool order = plan.order, sorting = plan.sort, simulate = plan.simulate, separate = plan.separate,
               expand = plan.expand, segments = plan.segments;
    const bool coherent = use_previous_order(plan);
    if (expand && expanded_.size() != 3 * n)
      throw std::logic_error("the expanded draw needs the renderer's expanded vertex buffer (--draw-path expanded)");
    timer_.begin_frame(nullptr);
    if (simulate) {
      StepScope step(timer_, "simulate");
      for (std::size_t i = 0; i < particles_; ++i) particle_step(state_[i], particle_vertices_[i], plan.emitter);
    }
    if (order) {
      {
        StepScope step(timer_, "depth");
        // Coherent: ids in last frame's sorted order (values_out, overwritten only by this frame's sort).
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t id = coherent ? keys_.values_out[i] : static_cast<std::uint32_t>(i);
          keys_.keys_in[i] = id < n ? primitive_key(plane, vertices_.data(), indices_.data(), triangles_,
                                                    particle_vertices_.data(), id)
                                    : -std::numeric_limits<float>::infinity();
          keys_.values_in[i] = id;
        }
      }
      if (sorting) {
        StepScope step(timer_, "sort");
        if (!separate) {
          sorter()->sort(keys_.buffers(0, n));
        } else {
          if (triangles_ > 0) sorter()->sort(keys_.buffers(0, triangles_));
          if (particles_ > 0) particle_sorter()->sort(keys_.buffers(triangles_, particles_));
        }
        order_made();
      }
      const std::uint32_t* ids = sorting ? keys_.values_out.data() : keys_.values_in.data();
      keep_drawn_order(ids, sorting);
      // The expanded draw has nothing to gather (its expand step reads the order), nor one order
      // without segment colours (the draw reads the sorted ids): as on the GPU path, no step is
      // timed then, rather than a few clock reads that a busy machine stretches past what the
      // panel shows as "not run".
      if (!expand && (separate || segments)) {
        StepScope step(timer_, "gather");
        if (separate) {
          for (std::size_t i = 0; i < triangles_; ++i) gather_triangle(indices_.data(), ids, i, elements_.data());
          for (std::size_t i = 0; i < particles_; ++i)
            particle_elements_[i] = ids[triangles_ + i] - static_cast<std::uint32_t>(triangles_);
        }
        if (segments) {
          const Segments found = sorting ? sorter_segments() : Segments{};
          segment_ids_host(std::span<const std::uint32_t>(found.starts, found.count), n, segment_ids_);
        }
      }
      if (sorting && frame_index % static_cast<std::uint64_t>(plan.check_every) == 0)
        run_check(frame_index, coherent, separate);
    }
    if (expand) {
      StepScope step(timer_, "expand");
      const ExpandView view = expand_view(camera, plan);
      const Segments found = expand_segments(plan);
      for (std::size_t r = 0; r < n; ++r)
        expand_primitive(vertices_.data(), indices_.data(), triangles_, particle_vertices_.data(), n, drawn_ids_,
                         found.starts, found.starts ? found.count : 0u, view, r, expanded_.data() + 3 * r);
    }
    {
      StepScope step(timer_, "upload");
      const auto upload = [](const GlBuffer& buffer, const void* data, std::size_t bytes) {
        DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffer.get(), 0, static_cast<GLsizeiptr>(bytes), data));
      };
      if (simulate) upload(buffers_.particle_vertices, particle_vertices_.data(), particles_ * sizeof(ParticleVertex));
      if (order && separate) {
        if (triangles_ > 0) upload(buffers_.mesh_elements, elements_.data(), elements_.size() * sizeof(std::uint32_t));
        if (particles_ > 0)
          upload(buffers_.particle_elements, particle_elements_.data(), particles_ * sizeof(std::uint32_t));
      }
      if (expand) upload(buffers_.expanded_vertices, expanded_.data(), expanded_.size() * sizeof(ExpandedVertex));
      if (order && !separate && !expand)
        upload(buffers_.primitive_order, drawn_ids_, n * sizeof(std::uint32_t));  // kept above: order is on
      if (segments) upload(buffers_.segment_ids, segment_ids_.data(), n * sizeof(std::uint32_t));
    }
    timer_.end_frame();
  }

  void poll_check() override {}
  void finish_checks() override {}

 private:
  // Positions of [first, first + count) out of order or carrying a wrong key: the GPU check's
  // predicate (order_check.hpp), position by position.
  unsigned int count_bad(const float* key_of_id, std::size_t id_count, std::size_t first, std::size_t count) const {
    unsigned int bad = 0;
    for (std::size_t i = 0; i < count; ++i)
      bad += sorted_position_wrong(key_of_id, id_count, keys_.keys_out.data() + first, keys_.values_out.data() + first,
                                   count, i);
    return bad;
  }

  void run_check(std::uint64_t frame_index, bool coherent, bool separate) {
    const float* key_of_id = keys_.keys_in.data();
    if (coherent) {
      for (std::size_t i = 0; i < keys_.size(); ++i)
        if (keys_.values_in[i] < keys_.size()) key_of_id_[keys_.values_in[i]] = keys_.keys_in[i];
      key_of_id = key_of_id_.data();
    }
    if (!separate)
      record_check(check_, frame_index, count_bad(key_of_id, keys_.size(), 0, keys_.size()), 0);
    else
      record_check(check_, frame_index, count_bad(key_of_id, triangles_, 0, triangles_),
                   count_bad(key_of_id, keys_.size(), triangles_, particles_));
  }

  SceneBuffers& buffers_;
  std::vector<MeshVertex> vertices_;
  std::vector<std::uint32_t> indices_, elements_;
  std::size_t triangles_, particles_;
  bool fixed_particles_;
  HostPairBuffers keys_;
  std::vector<float> key_of_id_;
  std::vector<std::uint32_t> segment_ids_;
  std::vector<ParticleState> state_;
  std::vector<ParticleVertex> particle_vertices_;
  std::vector<std::uint32_t> particle_elements_;
  std::vector<ExpandedVertex> expanded_;  // --draw-path expanded: 3 a position, uploaded whole
};

}  // namespace

std::unique_ptr<FramePipeline> make_cpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices) {
  return std::make_unique<CpuPipeline>(buffers, scene, choices);
}

}  // namespace depthsort::app
