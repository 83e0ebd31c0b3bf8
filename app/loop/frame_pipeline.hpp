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
// The GPU path is gpu_pipeline.cpp, the CPU path cpu_pipeline.cpp; this base holds their sorters,
// the coherent mode's bookkeeping and the drawn order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/frame_order.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "loop/compare_all.hpp"
#include "loop/frame_plan.hpp"
#include "loop/order_check.hpp"
#include "loop/sorter_choice.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"

namespace depthsort::app {

// The expansion's view of a frame (--draw-path expanded): the camera's right and up axes in world
// space (rows 0 and 1 of its rigid view matrix), its depth plane, and the plan's colours and
// sprite scale.
ExpandView expand_view(const Camera& camera, const FramePlan& plan);

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
  // The frame order unit's buffers (the GPU path's; 0 on the CPU path), and the unit itself for
  // the panel's readout of the fused order (null on the CPU path).
  virtual std::size_t order_bytes() const { return 0; }
  virtual const FrameOrder* frame_order() const { return nullptr; }
  // The timer of the last frame's sort steps: the sorter's, or depth-bucket's where the frame's
  // order was fused (null where neither sorted).
  virtual StepTimer* sort_steps_timer() {
    Sorter* current = sorter();
    return current ? &current->timer() : nullptr;
  }

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
  // Either sorter is null where its order has no primitives (a scene of particles alone, with
  // --separate-passes, has no triangle sorter): the segments of the last order, or none, without
  // touching a sorter that is not there.
  Segments sorter_segments() const noexcept {
    const Sorter* current = sorter();
    return current ? current->segments() : Segments{};
  }
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
    drawn_segments_ = sorted ? sorter_segments() : Segments{};
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

}  // namespace depthsort::app
