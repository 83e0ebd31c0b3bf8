// The compute part of a frame, on either path:
//   GPU: map (one cudaGraphicsMapResources for every buffer) -> simulate particles -> depth keys
//        -> sort (the registry sorter) -> gather into the GL buffers -> unmap.
//   CPU: simulate -> depth -> sort (the registry's CPU sorter) -> gather -> upload (glBufferSubData).
// With --draw-path expanded an `expand` step follows the gather (depthsort/frame/expand.hpp): every
// sorted position becomes three ready vertices in the renderer's expanded buffer, mapped with the
// others (GPU) or uploaded (CPU). It runs on frozen frames too, from the kept order, so the
// particles move and the sprites face the camera as on the pulled draw.
// By default every transparent primitive of the frame (triangles and particles) is sorted in ONE
// order of primitive ids (depth.hpp, primitive_key) and the gather writes that id stream for the
// renderer's single pulled draw. --separate-passes sorts the triangles and the
// particles apart (the same key arrays, two ranges, two sorters) and gathers two element buffers,
// drawn one after the other: the old, wrong blend where the kinds mix, kept to show the difference.
// Coherent mode computes this frame's depths in last frame's sorted order, so the
// sorter gets nearly sorted input; the order is still exact and still checked.
// Each phase is a StepTimer step (CUDA events on the GPU path, host clock on the CPU path) and an
// NVTX range of the same name. Everything is allocated in the constructor; compute() allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/particles.hpp"
#include "depthsort/sort/registry.hpp"
#include "depthsort/sort/sorter.hpp"
#include "loop/compare_all.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"
#include "loop/frame_plan.hpp"

namespace depthsort::app {

enum class CheckLight { None, Pending, Ok, Fail };

// bad_mesh counts the positions out of order in the single order of every primitive (or, with
// --separate-passes, in the triangles' order); bad_particles those of the particles' own order.
struct CheckState {
  CheckLight light = CheckLight::None;
  std::uint64_t frame = 0;  // frame whose order was checked last
  unsigned int bad_mesh = 0, bad_particles = 0;
  std::uint64_t checks = 0, failures = 0;
  // The last check that failed (valid when failures > 0), kept when later checks pass.
  std::uint64_t failed_frame = 0;
  unsigned int failed_mesh = 0, failed_particles = 0;
};

// The expansion's view of a frame (--draw-path expanded): the camera's right and up axes in world
// space (rows 0 and 1 of its rigid view matrix), its depth plane, and the plan's colours and
// sprite scale.
ExpandView expand_view(const Camera& camera, const FramePlan& plan);

// Counts one finished check of frame `frame` (positions out of order in the mesh and particle
// orders) into `state`: both paths' bookkeeping.
void record_check(CheckState& state, std::uint64_t frame, unsigned int bad_mesh, unsigned int bad_particles);
// A headless run's status from its checks: 1 if any check failed (not only the last one), else 0.
inline int check_exit_status(const CheckState& state) noexcept { return state.failures > 0 ? 1 : 0; }

// One sorter a pipeline can sort with: a registry entry and its options.
struct SorterChoice {
  const SorterInfo* info = nullptr;
  OptionValues options;
};
// The sorter the settings select (their registry index and options).
SorterChoice selected_sorter(const Settings& settings);

// The sorters --cycle-sorters goes through on this path: every available registry sorter of the
// path's backend, each with its option_variants() (defaults, then each flag flipped).
std::vector<SorterChoice> cycle_choices(Backend backend);

class FramePipeline {
 public:
  virtual ~FramePipeline() = default;
  // Runs the compute part of frame `frame_index` for `camera`.
  virtual void compute(const Camera& camera, const FramePlan& plan, std::uint64_t frame_index) = 0;
  // Picks up a finished asynchronous check, if any (never blocks).
  virtual void poll_check() = 0;
  // Blocks until every queued check is done (end of headless runs).
  virtual void finish_checks() = 0;
  virtual bool on_gpu() const = 0;
  // The sort charts' data (outside the frame loop: a button, or the end of a headless --panel run).
  // The segment starts of the last sort, copied to the host (waits for the frame); false if none.
  virtual bool segment_starts(std::vector<std::uint32_t>& starts) = 0;
  // Every GPU sorter timed on this frame's keys (the GPU path; empty on the CPU path).
  virtual std::vector<StepBar> compare_all(CompareAll& runner) = 0;
  // The sorters' workspace (both paths: the single order's sorter + the separate passes' two).
  std::size_t workspace_bytes() const;

  StepTimer& timer() noexcept { return timer_; }
  // The sorter of the last frame's order: the single order's, or with --separate-passes the
  // triangles'; particle_sorter() is the particles' own with --separate-passes, else null.
  Sorter* sorter() noexcept {
    Slot& slot = slots_[current_];
    return separate_ ? slot.mesh.get() : slot.all.get();
  }
  const Sorter* sorter() const noexcept {
    const Slot& slot = slots_[current_];
    return separate_ ? slot.mesh.get() : slot.all.get();
  }
  Sorter* particle_sorter() noexcept { return separate_ ? slots_[current_].particle.get() : nullptr; }
  // Whether the last frame ran --separate-passes, and whether its depths followed last frame's order.
  bool separate_passes() const noexcept { return separate_; }
  bool coherent() const noexcept { return coherent_; }
  const CheckState& check() const noexcept { return check_; }
  const SorterInfo& sorter_info() const noexcept { return *slots_[current_].choice.info; }
  const OptionValues& sorter_options() const noexcept { return slots_[current_].choice.options; }

  // The sorters this pipeline holds, each reserved once in the constructor; select() switches
  // between them without allocating (--cycle-sorters, every frame).
  std::size_t sorter_count() const noexcept { return slots_.size(); }
  void select(std::size_t index) noexcept { current_ = index % slots_.size(); }
  std::size_t selected() const noexcept { return current_; }

 protected:
  FramePipeline(TimerClock clock) : timer_(clock) {}
  // Creates and reserves the sorters of `choices` for `triangles` and `particles` pairs (and
  // both together).
  void make_sorters(std::span<const SorterChoice> choices, std::size_t triangles, std::size_t particles);
  // Whether this frame may compute its depths in last frame's sorted order: coherent mode, a
  // sorted frame, and a previous order made in the same mode (the separate passes keep each kind
  // in its own range; the single order mixes them). Records the mode for sorter() and the panel.
  bool use_previous_order(const FramePlan& plan) noexcept {
    if (plan.separate != separate_) have_order_ = false;
    separate_ = plan.separate;
    coherent_ = plan.coherent && plan.sort && have_order_;
    return coherent_;
  }
  // Called after a frame's sort: its output is a permutation the next frame may start from.
  void order_made() noexcept { have_order_ = true; }
  // Keeps the order an ordered frame draws (sorted, or submission order with sorting off) and its
  // segments: the expand step reads them, also on frozen frames, which draw the kept order.
  void keep_drawn_order(const std::uint32_t* ids, bool sorted) {
    drawn_ids_ = ids;
    drawn_segments_ = sorted ? sorter()->segments() : Segments{};
  }
  // The segments the expansion colours by: the kept order's with --colour segment, else none.
  Segments expand_segments(const FramePlan& plan) const;
  // The kept order (null: submission order, before the first ordered frame).
  const std::uint32_t* drawn_ids_ = nullptr;
  StepTimer timer_;
  CheckState check_;

 private:
  Segments drawn_segments_{};
  struct Slot {
    SorterChoice choice;
    std::unique_ptr<Sorter> all, mesh, particle;
  };
  bool separate_ = false, coherent_ = false, have_order_ = false;
  std::vector<Slot> slots_;
  std::size_t current_ = 0;
};

// `choices`: the sorters to hold (at least one; the first is selected). Throws CapacityError with
// sizes when the scene's buffers do not fit on the device.
std::unique_ptr<FramePipeline> make_gpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices);
std::unique_ptr<FramePipeline> make_cpu_pipeline(SceneBuffers& buffers, const Scene& scene,
                                                 std::span<const SorterChoice> choices);

// The registry entry a run uses: --sorter NAME, else hybrid (or, if it cannot run, the first usable
// GPU sorter) where CUDA works, else the CPU sorter. `why_cpu` says why the CPU path was taken, if it was.
const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu);

}  // namespace depthsort::app
