// Inside run() (app.hpp): everything a run holds, and its parts, each in a file of its own:
//   app.cpp             setting up (path, scene, sorters), building and rebuilding the pipeline,
//                       acting on changed settings, the timing record;
//   headless_runner.cpp the headless loop and its outputs;
//   window_loop.cpp     the window loop, the mouse and the presenter keys;
//   panel_view.cpp      what the panel shows (PanelInfo) and its requests;
//   report.cpp          the console lines, the --json meta data and the memory summary.
// Internal to the app's sources; nothing outside app/ includes it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cli/run_options.hpp"
#include "loop/frame_plan.hpp"
#include "loop/compare_all.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "loop/frame_pipeline.hpp"
#include "ui/frame_rate.hpp"
#include "scene/memory_estimate.hpp"
#include "platform/egl_headless.hpp"
#include "platform/glfw_window.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"
#include "settings.hpp"
#include "loop/timings.hpp"
#include "ui/panel.hpp"

namespace depthsort::app {

// Torn down in reverse order of construction (pipeline before renderer before the GL context).
class App {
 public:
  App(const RunOptions& options, const Settings& settings) : options_(options), settings_(settings) {}
  int run();

 private:
  // app.cpp
  std::size_t recorded_frames() const;
  void build(const SorterInfo& info, const OptionValues& options);
  void rebuild(const Settings& settings, bool scene);
  FramePlan frame_plan(FrameClock clock, float covered_left) const;
  void apply_changes(const Settings& before, PanelRequests& requests);
  void cycle_select(std::uint64_t f);
  void cycle_finish(std::uint64_t f, std::uint64_t frames);
  void reserve_memory_samples(std::uint64_t frames);
  void collect(Timings& timings, bool wait, bool sorted, double now, std::uint64_t frame, float host_ms);
  void say(const std::string& line) const;
  void note_slow_frames(std::uint64_t frame, float host_ms);
  template <class Write>
  static bool write_output(const char* flag, Write&& write);

  // headless_runner.cpp
  int run_headless();
  void summarize(const Timings& timings, std::uint64_t frames) const;

  // window_loop.cpp
  int run_windowed();
  void handle_input(float dt);
  void handle_keys();
  void next_sorter();
  float covered_left(int width) const;

  // panel_view.cpp
  PanelInfo panel_info(std::size_t device_used, std::size_t device_total, float fps);
  void run_view_requests(bool compare, bool histogram);
  void draw_headless_panel(const Timings& timings, double now, float host_ms);

  // report.cpp
  std::string draw_line() const;
  std::string dropped_options_note(const SorterInfo& running) const;
  std::string memory_summary() const;
  void report_dropped(const Timings& timings) const;
  std::string cycle_names() const;
  nlohmann::ordered_json meta_json(std::uint64_t frames) const;

  // Memory samples of a --cycle-sorters run: every kMemoryEvery frames and at the last, reserved
  // before the frame loop.
  static constexpr std::uint64_t kMemoryEvery = 1000;

  const RunOptions& options_;
  Settings settings_, before_;  // before_: last frame's copy, a member so the copy reuses its storage
  PanelRequests requests_;
  Scene scene_;
  Panel panel_;
  Camera camera_;
  Viewpoints views_;
  std::string gl_line_, device_line_, notes_, panel_error_;
  // Declaration order = construction order; destruction runs backwards (pipeline first).
  std::optional<EglHeadless> egl_;
  std::optional<GlfwWindow> window_;
  std::unique_ptr<ImGuiLayer> imgui_;
  std::optional<Renderer> renderer_;
  std::unique_ptr<FramePipeline> pipeline_;
  std::optional<GlTimerRing> gl_timer_;
  std::vector<StepTime> steps_;
  std::vector<SorterChoice> cycle_;           // --cycle-sorters: the sorters gone through, in order
  std::vector<MemorySample> memory_samples_;  // --cycle-sorters: reserved before the frame loop
  // The sorting views (filled on request, not per frame).
  CompareAll compare_runner_;
  std::vector<StepBar> compare_bars_;
  std::vector<std::uint32_t> segment_starts_;
  SizeHistogram histogram_;
  std::size_t histogram_segments_ = 0;
  std::array<PressedKey, GlfwWindow::kKeyQueue> key_presses_{};
  bool slow_noted_ = false;
  FrameRate frame_rate_;  // the panel's fps figure (windowed)
  bool was_dragging_ = false;
  double last_x_ = 0, last_y_ = 0;
};

// Runs `write` (one output file); a failure is reported and returns false, so that the other
// output is still written.
template <class Write>
bool App::write_output(const char* flag, Write&& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "depthsort: error: %s: %s\n", flag, e.what());
    return false;
  }
}

}  // namespace depthsort::app
