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
  std::uint64_t frame = 0;  // frame whose order was checked
  unsigned int bad_mesh = 0, bad_particles = 0;
  std::uint64_t checks = 0, failures = 0;
};

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
  virtual std::size_t workspace_bytes() const = 0;

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

// The registry entry a run uses: --sorter NAME, else cub-radix (or the first usable GPU sorter)
// where CUDA works, else the CPU sorter. `why_cpu` says why the CPU path was taken, if it was.
const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu);

}  // namespace depthsort::app
