#include "loop/frame_pipeline.hpp"

#include "render/gl.hpp"  // glad before cuda_gl_interop.h (which includes GL/gl.h)

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/gather.hpp"
#include "depthsort/frame/order_check.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/pair_buffers.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "interop/gl_interop.hpp"
#include "loop/timings.hpp"

namespace depthsort::app {

namespace {

std::unique_ptr<Sorter> make_sorter(const SorterChoice& choice, std::size_t n) {
  if (n == 0) return nullptr;
  std::unique_ptr<Sorter> sorter = choice.info->create(choice.options);
  sorter->reserve(n);
  return sorter;
}

// ------------------------------------------------------------------ GPU path

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
                          " of CUDA buffers (plus the sorter's workspace) but " + byte_text(free_bytes, ByteUnits::MiB) + " of " +
                          byte_text(total_bytes, ByteUnits::MiB) + " are free; use fewer --triangles/--copies/--particles");

    if (triangles_ > 0) {
      mesh_vertices_ = RegisteredBuffer(buffers.mesh_vertices.get(), cudaGraphicsRegisterFlagsReadOnly, "mesh vertices");
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
      keys_ = DevicePairs(n_, "primitive pairs");
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
  DevicePairs keys_;
  DeviceBuffer<float> key_of_id_;
  DeviceBuffer<unsigned int> bad_device_;
  PinnedBuffer<unsigned int> bad_host_;
  CudaEvent check_event_{cudaEventDisableTiming};
  bool check_pending_ = false;
  std::uint64_t pending_frame_ = 0;
};

// ------------------------------------------------------------------ CPU path

class CpuPipeline final : public FramePipeline {
 public:
  CpuPipeline(SceneBuffers& buffers, const Scene& scene, std::span<const SorterChoice> choices)
      : FramePipeline(TimerClock::Host), buffers_(buffers), vertices_(scene.mesh.vertices),
        indices_(scene.mesh.indices), triangles_(scene.mesh.triangles()), particles_(scene.particles),
        fixed_particles_(!scene.fixed_particles.empty()), keys_(triangles_ + particles_) {
    elements_.resize(indices_.size());
    state_.resize(particles_);
    particle_vertices_.resize(particles_);
    particle_elements_.resize(particles_);
    key_of_id_.resize(keys_.size());
    segment_ids_.resize(keys_.size());
    if (buffers_.expanded_vertices.get()) expanded_.resize(3 * keys_.size());
    if (fixed_particles_) particle_vertices_ = scene.fixed_particles;
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
      if (!expand) {  // the expanded draw has nothing to gather: its expand step reads the order
        StepScope step(timer_, "gather");
        if (separate) {
          for (std::size_t i = 0; i < triangles_; ++i) gather_triangle(indices_.data(), ids, i, elements_.data());
          for (std::size_t i = 0; i < particles_; ++i)
            particle_elements_[i] = ids[triangles_ + i] - static_cast<std::uint32_t>(triangles_);
        }
        if (segments) {
          const Segments found = sorting ? sorter()->segments() : Segments{};
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
    if (!separate) record_check(check_, frame_index, count_bad(key_of_id, keys_.size(), 0, keys_.size()), 0);
    else
      record_check(check_, frame_index, count_bad(key_of_id, triangles_, 0, triangles_),
                   count_bad(key_of_id, keys_.size(), triangles_, particles_));
  }

  SceneBuffers& buffers_;
  std::vector<MeshVertex> vertices_;
  std::vector<std::uint32_t> indices_, elements_;
  std::size_t triangles_, particles_;
  bool fixed_particles_;
  HostPairs keys_;
  std::vector<float> key_of_id_;
  std::vector<std::uint32_t> segment_ids_;
  std::vector<ParticleState> state_;
  std::vector<ParticleVertex> particle_vertices_;
  std::vector<std::uint32_t> particle_elements_;
  std::vector<ExpandedVertex> expanded_;  // --draw-path expanded: 3 a position, uploaded whole
};

}  // namespace

Segments FramePipeline::expand_segments(const FramePlan& plan) const {
  return plan.colour == ColourMode::Segment ? drawn_segments_ : Segments{};
}

ExpandView expand_view(const Camera& camera, const FramePlan& plan) {
  const glm::mat4 v = camera.view();  // column-major: v[col][row]; rigid, so rows 0 and 1 are the axes
  ExpandView e;
  for (int i = 0; i < 3; ++i) {
    e.right[i] = v[i][0];
    e.up[i] = v[i][1];
  }
  e.plane = camera.depth_plane();
  e.point_scale = plan.point_scale;
  e.colour_mode = static_cast<std::uint32_t>(plan.colour);
  return e;
}

void record_check(CheckState& state, std::uint64_t frame, unsigned int bad_mesh, unsigned int bad_particles) {
  state.frame = frame;
  state.bad_mesh = bad_mesh;
  state.bad_particles = bad_particles;
  ++state.checks;
  const bool ok = bad_mesh == 0 && bad_particles == 0;
  if (!ok) {
    ++state.failures;
    state.failed_frame = frame;
    state.failed_mesh = bad_mesh;
    state.failed_particles = bad_particles;
  }
  state.light = ok ? CheckLight::Ok : CheckLight::Fail;
}

std::size_t FramePipeline::workspace_bytes() const {
  std::size_t bytes = 0;
  for (const Slot& slot : slots_)
    bytes += (slot.all ? slot.all->workspace_bytes() : 0) + (slot.mesh ? slot.mesh->workspace_bytes() : 0) +
             (slot.particle ? slot.particle->workspace_bytes() : 0);
  return bytes;
}

void FramePipeline::make_sorters(std::span<const SorterChoice> choices, std::size_t triangles, std::size_t particles) {
  if (choices.empty()) throw std::logic_error("a frame pipeline needs at least one sorter");
  slots_.reserve(choices.size());
  for (const SorterChoice& choice : choices)
    slots_.push_back(Slot{choice, make_sorter(choice, triangles + particles), make_sorter(choice, triangles),
                          make_sorter(choice, particles)});
  current_ = 0;
}

SorterChoice selected_sorter(const Settings& settings) {
  return SorterChoice{&sorter_registry()[static_cast<std::size_t>(settings.sorter_index)], settings.options};
}

std::vector<SorterChoice> cycle_choices(Backend backend) {
  std::vector<SorterChoice> choices;
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != backend || !info.is_available(nullptr)) continue;
    for (OptionValues& options : option_variants(info)) choices.push_back(SorterChoice{&info, std::move(options)});
  }
  return choices;
}

std::unique_ptr<FramePipeline> make_gpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices) {
  return std::make_unique<GpuPipeline>(buffers, scene, choices);
}

std::unique_ptr<FramePipeline> make_cpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices) {
  return std::make_unique<CpuPipeline>(buffers, scene, choices);
}

const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu) {
  const SorterInfo* cpu = nullptr;
  for (const SorterInfo& info : sorter_registry())
    if (info.backend == Backend::Cpu && !cpu) cpu = &info;
  if (!cpu) throw std::logic_error("the sorter registry has no CPU sorter");
  std::string why;
  const bool gpu_ok = !force_cpu && cuda_device_usable(&why);
  if (force_cpu) why = "--cpu given";
  if (!requested.empty()) {
    const SorterInfo* info = find_sorter(requested);
    if (!info) throw std::invalid_argument("unknown sorter '" + requested + "'; valid sorters: " + sorter_names());
    if (info->backend == Backend::Cpu) {
      why_cpu = "--sorter " + requested + " is a CPU sorter";
      return *info;
    }
    std::string not_here;
    if (gpu_ok && info->is_available(&not_here)) return *info;
    why_cpu = "--sorter " + requested + " needs a GPU (" + (gpu_ok ? not_here : why) + "); using the CPU sorter '" +
              std::string(cpu->name) + "'";
    return *cpu;
  }
  if (gpu_ok) {
    // The demo opens with the project's headline algorithm, Sintorn & Assarsson's hybrid sort.
    if (const SorterInfo* hybrid = find_sorter("hybrid"); hybrid && hybrid->is_available(nullptr)) return *hybrid;
    for (const SorterInfo& info : sorter_registry())
      if (info.backend == Backend::Gpu && info.is_available(nullptr)) return info;
    why = "no GPU sorter is available";
  }
  why_cpu = why;
  return *cpu;
}

}  // namespace depthsort::app
