// The compute part of a frame, on either path:
//   GPU: map (one cudaGraphicsMapResources for every buffer) -> simulate particles -> depth keys
//        -> sort (the registry sorter) -> gather into the element buffers -> unmap.
//   CPU: simulate -> depth -> sort (the registry's CPU sorter) -> gather -> upload (glBufferSubData).
// Each phase is a StepTimer step (CUDA events on the GPU path, host clock on the CPU path) and an
// NVTX range of the same name. Everything is allocated in the constructor; compute() allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "depthsort/particles.hpp"
#include "depthsort/registry.hpp"
#include "depthsort/sorter.hpp"
#include "depthsort/step_timer.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"

namespace depthsort::app {

struct FrameControls {
  bool sort = true;         // off: draw in submission order
  bool freeze = false;      // keep last frame's order (depth, sort and gather skipped)
  bool simulate = true;     // advance the particles
  int check_every = 30;     // frames between correctness checks
  EmitterParams emitter;    // time and dt set per frame
};

enum class CheckLight { None, Pending, Ok, Fail };

struct CheckState {
  CheckLight light = CheckLight::None;
  std::uint64_t frame = 0;  // frame whose order was checked last
  unsigned int bad_mesh = 0, bad_particles = 0;
  std::uint64_t checks = 0, failures = 0;
  // The last check that failed (valid when failures > 0), kept when later checks pass.
  std::uint64_t failed_frame = 0;
  unsigned int failed_mesh = 0, failed_particles = 0;
};

// Counts one finished check of frame `frame` (positions out of order in the mesh and particle
// orders) into `state`: both paths' bookkeeping.
void record_check(CheckState& state, std::uint64_t frame, unsigned int bad_mesh, unsigned int bad_particles);
// A headless run's status from its checks: 1 if any check failed (not only the last one), else 0.
inline int check_exit_status(const CheckState& state) noexcept { return state.failures > 0 ? 1 : 0; }

class FramePipeline {
 public:
  virtual ~FramePipeline() = default;
  // Runs the compute part of frame `frame_index` for `camera`.
  virtual void compute(const Camera& camera, const FrameControls& controls, std::uint64_t frame_index) = 0;
  // Picks up a finished asynchronous check, if any (never blocks).
  virtual void poll_check() = 0;
  // Blocks until every queued check is done (end of headless runs).
  virtual void finish_checks() = 0;
  virtual bool on_gpu() const = 0;
  // The sorters' workspace (both paths: mesh sorter + particle sorter).
  std::size_t workspace_bytes() const;

  StepTimer& timer() noexcept { return timer_; }
  Sorter* mesh_sorter() noexcept { return mesh_sorter_.get(); }
  Sorter* particle_sorter() noexcept { return particle_sorter_.get(); }
  const CheckState& check() const noexcept { return check_; }
  const SorterInfo& sorter_info() const noexcept { return *info_; }

 protected:
  FramePipeline(TimerClock clock, const SorterInfo& info) : timer_(clock), info_(&info) {}
  StepTimer timer_;
  const SorterInfo* info_;
  std::unique_ptr<Sorter> mesh_sorter_, particle_sorter_;
  CheckState check_;
};

// Throws CapacityError with sizes when the scene's buffers do not fit on the device.
std::unique_ptr<FramePipeline> make_gpu_pipeline(SceneBuffers& buffers, const Scene& scene, const SorterInfo& info,
                                                 const OptionValues& options);
std::unique_ptr<FramePipeline> make_cpu_pipeline(SceneBuffers& buffers, const Scene& scene, const SorterInfo& info,
                                                 const OptionValues& options);

// The registry entry a run uses: --sorter NAME, else hybrid (or, if it cannot run, the first usable
// GPU sorter) where CUDA works, else the CPU sorter. `why_cpu` says why the CPU path was taken, if it was.
const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu);

}  // namespace depthsort::app
