// One frame, the same for the window and the headless run: last frame's settings kept for the
// diff, the input, the sorter of a --cycle-sorters frame, the camera's planes, the frame's plan,
// the compute part (map, depth, sort, gather, unmap on the GPU path), the draw and the panel under
// GL timers and NVTX ranges, the order check, the timings, and acting on what changed. What
// differs between the two runs is behind FramePlatform: the input, the panel, presenting the
// frame, the window's own settings. The steady frame allocates nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "depthsort/sort/step_timer.hpp"
#include "loop/frame_plan.hpp"
#include "settings.hpp"

namespace depthsort::app {

struct RunState;

// The part of a frame that is the platform's: the window's or the headless run's.
class FramePlatform {
 public:
  // Before the frame's compute part: the window's keys and mouse, or the headless camera path.
  virtual void take_input(std::uint64_t frame, const FrameClock& clock) = 0;
  // The fraction of the width the panel covers, from the left (the scene is centred in the rest).
  virtual float covered_left() const = 0;
  // Whether the window was lost since the frame began: the draw would ask X for its size.
  virtual bool lost() const = 0;
  // Whether this frame draws the panel (the headless run fills its sort charts first, on its last).
  virtual bool panel_frame(std::uint64_t frame) = 0;
  virtual void draw_panel(double now) = 0;
  // After the frame: the window's screenshot of its last frame, and the swap.
  virtual void present(std::uint64_t frame) = 0;
  // The changed settings that are the window's: vsync, full screen.
  virtual void apply(const SettingsChange& change) = 0;

 protected:
  ~FramePlatform() = default;
};

class FrameBody {
 public:
  // `frames`: the run's frame count (0: until the window closes); `wait_for_timings`: headless
  // runs wait for every timer of the frame (the window reads them a few frames later); `draw`:
  // false for --no-draw (the compute part alone).
  FrameBody(RunState& run, std::uint64_t frames, bool wait_for_timings, bool draw);

  // Runs frame `frame`; false if the window was lost before its draw (the run ends).
  bool run(FramePlatform& platform, std::uint64_t frame, FrameClock clock);
  // The host time of the last frame (0 before the first).
  float last_host_ms() const noexcept { return last_host_ms_; }

 private:
  void collect(bool sorted, double now, std::uint64_t frame, float host_ms);
  void note_slow_frame(std::uint64_t frame, float host_ms);

  RunState& run_;
  std::uint64_t frames_;
  bool wait_for_timings_, draw_;
  Settings before_;  // the settings as the frame started: last frame's, or a copy after a change
  std::vector<StepTime> steps_;
  float last_host_ms_ = 0;
  bool slow_noted_ = false;
};

}  // namespace depthsort::app
