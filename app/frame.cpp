#include "frame.hpp"

#include "render/gl.hpp"  // glad before cuda_gl_interop.h (which includes GL/gl.h)

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "depthsort/cuda_handles.hpp"
#include "depthsort/depth.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "depthsort/keys.hpp"
#include "interop/gl_interop.hpp"
#include "timings.hpp"

namespace depthsort::app {

namespace {

// ------------------------------------------------------------------ pinned host memory

template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t count) {
    DEPTHSORT_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count * sizeof(T), cudaHostAllocDefault));
    std::memset(static_cast<void*>(data_), 0, count * sizeof(T));
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* data() noexcept { return data_; }

 private:
  T* data_ = nullptr;
};

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
        bad_host_(2) {
    // The scene's CUDA-side memory, checked up front so the message has the sizes.
    const std::size_t need = triangles_ * (3 * sizeof(std::uint32_t) + 4 * sizeof(float)) +
                             particles_ * (sizeof(ParticleState) + 4 * sizeof(float));
    std::size_t free_bytes = 0, total_bytes = 0;
    DEPTHSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes)
      throw CapacityError("scene too large for GPU memory: " + std::to_string(triangles_) + " triangles and " +
                          std::to_string(particles_) + " particles need " + mib(need) +
                          " of CUDA buffers (plus the sorter's workspace) but " + mib(free_bytes) + " of " +
                          mib(total_bytes) + " are free; use fewer --triangles/--copies/--particles");

    if (triangles_ > 0) {
      mesh_vertices_ = RegisteredBuffer(buffers.mesh_vertices.get(), cudaGraphicsRegisterFlagsReadOnly, "mesh vertices");
      mesh_elements_ = RegisteredBuffer(buffers.mesh_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                        "mesh elements");
      indices_ = DeviceBuffer<std::uint32_t>(3 * triangles_, "mesh triangle list");
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(indices_.data(), scene.mesh.indices.data(), indices_.bytes(),
                                      cudaMemcpyHostToDevice));
      mesh_keys_ = SortSet(triangles_, "mesh keys");
    }
    if (particles_ > 0) {
      particle_vertices_ = RegisteredBuffer(buffers.particle_vertices.get(), cudaGraphicsRegisterFlagsNone,
                                            "particle vertices");
      particle_elements_ = RegisteredBuffer(buffers.particle_elements.get(), cudaGraphicsRegisterFlagsWriteDiscard,
                                            "particle elements");
      state_ = DeviceBuffer<ParticleState>(particles_, "particle state");
      particle_keys_ = SortSet(particles_, "particle keys");
    }
    bad_device_ = DeviceBuffer<unsigned int>(2, "correctness counters");
    make_sorters(choices, triangles_, particles_);

    if (particles_ > 0) {  // the fountain in its steady state
      RegisteredBuffer* list[] = {&particle_vertices_};
      InteropMapping mapping(list, 1, stream_.get());
      launch_particles_init(state_.data(), static_cast<ParticleVertex*>(mapping.pointer(0)), particles_,
                            scene.emitter, stream_.get());
      mapping.unmap();
    }
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  ~GpuPipeline() override { cudaStreamSynchronize(stream_.get()); }

  bool on_gpu() const override { return true; }

  void compute(const Camera& camera, const FrameControls& controls, std::uint64_t frame_index) override {
    const cudaStream_t stream = stream_.get();
    const DepthPlane plane = camera.depth_plane();
    const bool order = !controls.freeze;
    const bool simulate = particles_ > 0 && controls.simulate;
    // The buffers this frame touches, mapped together in one call.
    std::array<RegisteredBuffer*, 4> list{};
    int count = 0, at_mesh_vertices = -1, at_mesh_elements = -1, at_particle_vertices = -1,
        at_particle_elements = -1;
    if (triangles_ > 0 && order) {
      at_mesh_vertices = count;
      list[static_cast<std::size_t>(count++)] = &mesh_vertices_;
      at_mesh_elements = count;
      list[static_cast<std::size_t>(count++)] = &mesh_elements_;
    }
    if (particles_ > 0 && (order || simulate)) {
      at_particle_vertices = count;
      list[static_cast<std::size_t>(count++)] = &particle_vertices_;
    }
    if (particles_ > 0 && order) {
      at_particle_elements = count;
      list[static_cast<std::size_t>(count++)] = &particle_elements_;
    }

    timer_.begin_frame(stream);
    std::optional<InteropMapping> mapping;
    {
      StepScope step(timer_, "map");
      mapping.emplace(list.data(), count, stream);
    }
    const auto* mesh_vertices =
        at_mesh_vertices >= 0 ? static_cast<const MeshVertex*>(mapping->pointer(at_mesh_vertices)) : nullptr;
    auto* mesh_elements =
        at_mesh_elements >= 0 ? static_cast<std::uint32_t*>(mapping->pointer(at_mesh_elements)) : nullptr;
    auto* particle_vertices =
        at_particle_vertices >= 0 ? static_cast<ParticleVertex*>(mapping->pointer(at_particle_vertices)) : nullptr;
    auto* particle_elements =
        at_particle_elements >= 0 ? static_cast<std::uint32_t*>(mapping->pointer(at_particle_elements)) : nullptr;

    if (simulate) {
      StepScope step(timer_, "simulate");
      launch_particles_step(state_.data(), particle_vertices, particles_, controls.emitter, stream);
    }
    if (order) {
      {
        StepScope step(timer_, "depth");
        if (mesh_vertices)
          launch_triangle_depth(mesh_vertices, indices_.data(), triangles_, plane, mesh_keys_.keys_in.data(),
                                mesh_keys_.values_in.data(), stream);
        if (particle_vertices)
          launch_point_depth(particle_vertices, particles_, plane, particle_keys_.keys_in.data(),
                             particle_keys_.values_in.data(), stream);
      }
      if (controls.sort) {
        StepScope step(timer_, "sort");
        if (Sorter* sorter = mesh_sorter()) sorter->sort(mesh_keys_.buffers(), stream);
        if (Sorter* sorter = particle_sorter()) sorter->sort(particle_keys_.buffers(), stream);
      }
      {
        StepScope step(timer_, "gather");
        if (mesh_elements)
          launch_gather_triangles(indices_.data(), controls.sort ? mesh_keys_.values_out.data() : mesh_keys_.values_in.data(),
                                  triangles_, mesh_elements, stream);
        if (particle_elements)
          launch_gather_points(controls.sort ? particle_keys_.values_out.data() : particle_keys_.values_in.data(),
                               particles_, particle_elements, stream);
      }
      if (controls.sort && !check_pending_ && frame_index % static_cast<std::uint64_t>(controls.check_every) == 0)
        queue_check(frame_index);
    }
    {
      StepScope step(timer_, "unmap");
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
  struct SortSet {
    SortSet() = default;
    SortSet(std::size_t n, const std::string& owner)
        : keys_in(n, owner + " (in)"), keys_out(n, owner + " (out)"), values_in(n, owner + " values (in)"),
          values_out(n, owner + " values (out)") {}
    SortBuffers buffers() {
      return SortBuffers{keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), keys_in.size()};
    }
    DeviceBuffer<float> keys_in, keys_out;
    DeviceBuffer<std::uint32_t> values_in, values_out;
  };

  void queue_check(std::uint64_t frame_index) {
    const cudaStream_t stream = stream_.get();
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(bad_device_.data(), 0, bad_device_.bytes(), stream));
    if (triangles_ > 0)
      launch_check_sorted(mesh_keys_.keys_in.data(), mesh_keys_.keys_out.data(), mesh_keys_.values_out.data(),
                          triangles_, bad_device_.data(), stream);
    if (particles_ > 0)
      launch_check_sorted(particle_keys_.keys_in.data(), particle_keys_.keys_out.data(),
                          particle_keys_.values_out.data(), particles_, bad_device_.data() + 1, stream);
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

  std::size_t triangles_, particles_;
  CudaStream stream_;
  RegisteredBuffer mesh_vertices_, mesh_elements_, particle_vertices_, particle_elements_;
  DeviceBuffer<std::uint32_t> indices_;
  DeviceBuffer<ParticleState> state_;
  SortSet mesh_keys_, particle_keys_;
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
        indices_(scene.mesh.indices), mesh_(scene.mesh.triangles()), particles_(scene.particles) {
    elements_.resize(indices_.size());
    state_.resize(particles_.n);
    particle_vertices_.resize(particles_.n);
    particle_elements_.resize(particles_.n);
    for (std::size_t i = 0; i < particles_.n; ++i)
      particle_init(state_[i], particle_vertices_[i], scene.emitter, static_cast<std::uint32_t>(i));
    if (particles_.n > 0)
      DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffers_.particle_vertices.get(), 0,
                                              static_cast<GLsizeiptr>(particles_.n * sizeof(ParticleVertex)),
                                              particle_vertices_.data()));
    make_sorters(choices, mesh_.n, particles_.n);
  }

  bool on_gpu() const override { return false; }

  void compute(const Camera& camera, const FrameControls& controls, std::uint64_t frame_index) override {
    const DepthPlane plane = camera.depth_plane();
    const bool order = !controls.freeze;
    const bool simulate = particles_.n > 0 && controls.simulate;
    timer_.begin_frame(nullptr);
    if (simulate) {
      StepScope step(timer_, "simulate");
      for (std::size_t i = 0; i < particles_.n; ++i) particle_step(state_[i], particle_vertices_[i], controls.emitter);
    }
    if (order) {
      {
        StepScope step(timer_, "depth");
        for (std::size_t t = 0; t < mesh_.n; ++t) {
          mesh_.keys_in[t] = triangle_key(plane, vertices_.data(), indices_.data(), t);
          mesh_.values_in[t] = static_cast<std::uint32_t>(t);
        }
        for (std::size_t i = 0; i < particles_.n; ++i) {
          const ParticleVertex& p = particle_vertices_[i];
          particles_.keys_in[i] = point_key(plane, p.x, p.y, p.z);
          particles_.values_in[i] = static_cast<std::uint32_t>(i);
        }
      }
      if (controls.sort) {
        StepScope step(timer_, "sort");
        if (Sorter* sorter = mesh_sorter()) sorter->sort(mesh_.buffers());
        if (Sorter* sorter = particle_sorter()) sorter->sort(particles_.buffers());
      }
      {
        StepScope step(timer_, "gather");
        const std::uint32_t* mesh_order = controls.sort ? mesh_.values_out.data() : mesh_.values_in.data();
        for (std::size_t i = 0; i < mesh_.n; ++i) gather_triangle(indices_.data(), mesh_order, i, elements_.data());
        const std::uint32_t* particle_order =
            controls.sort ? particles_.values_out.data() : particles_.values_in.data();
        std::copy_n(particle_order, particles_.n, particle_elements_.data());
      }
      if (controls.sort && frame_index % static_cast<std::uint64_t>(controls.check_every) == 0) run_check(frame_index);
    }
    {
      StepScope step(timer_, "upload");
      if (order && mesh_.n > 0)
        DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffers_.mesh_elements.get(), 0,
                                                static_cast<GLsizeiptr>(elements_.size() * sizeof(std::uint32_t)),
                                                elements_.data()));
      if (simulate)
        DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffers_.particle_vertices.get(), 0,
                                                static_cast<GLsizeiptr>(particles_.n * sizeof(ParticleVertex)),
                                                particle_vertices_.data()));
      if (order && particles_.n > 0)
        DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffers_.particle_elements.get(), 0,
                                                static_cast<GLsizeiptr>(particles_.n * sizeof(std::uint32_t)),
                                                particle_elements_.data()));
    }
    timer_.end_frame();
  }

  void poll_check() override {}
  void finish_checks() override {}

 private:
  struct HostSet {
    explicit HostSet(std::size_t count) : n(count), keys_in(count), keys_out(count), values_in(count), values_out(count) {}
    SortBuffers buffers() { return SortBuffers{keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n}; }
    unsigned int count_bad() const {
      unsigned int bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i + 1 < n && key_less(keys_out[i + 1], keys_out[i])) ++bad;
        const std::uint32_t v = values_out[i];
        if (v >= n || ordered_key(keys_in[v]) != ordered_key(keys_out[i])) ++bad;
      }
      return bad;
    }
    std::size_t n;
    std::vector<float> keys_in, keys_out;
    std::vector<std::uint32_t> values_in, values_out;
  };

  void run_check(std::uint64_t frame_index) {
    record_check(check_, frame_index, mesh_.count_bad(), particles_.count_bad());
  }

  SceneBuffers& buffers_;
  std::vector<MeshVertex> vertices_;
  std::vector<std::uint32_t> indices_, elements_;
  HostSet mesh_, particles_;
  std::vector<ParticleState> state_;
  std::vector<ParticleVertex> particle_vertices_;
  std::vector<std::uint32_t> particle_elements_;
};

}  // namespace

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
    bytes += (slot.mesh ? slot.mesh->workspace_bytes() : 0) + (slot.particle ? slot.particle->workspace_bytes() : 0);
  return bytes;
}

void FramePipeline::make_sorters(std::span<const SorterChoice> choices, std::size_t triangles, std::size_t particles) {
  if (choices.empty()) throw std::logic_error("a frame pipeline needs at least one sorter");
  slots_.reserve(choices.size());
  for (const SorterChoice& choice : choices)
    slots_.push_back(Slot{choice, make_sorter(choice, triangles), make_sorter(choice, particles)});
  current_ = 0;
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
