// The Dear ImGui panel (windowed mode): sorter combo from the registry with each sorter's options,
// sort on/off and freeze, scene and particle controls, opacity, camera, vsync, timings with
// history plots and last-second statistics, the correctness light, GPU and memory lines.
// The panel edits the run's Settings (settings.hpp) in place; the app compares them with last
// frame's copy to decide what to rebuild. Buttons set PanelRequests.
#pragma once

#include <array>
#include <span>
#include <cstddef>
#include <string>
#include <string_view>

#include <imgui.h>

#include "depthsort/sort/registry.hpp"
#include "settings.hpp"
#include "loop/compare_all.hpp"
#include "depthsort/frame/segment_ids.hpp"
#include "loop/frame_pipeline.hpp"
#include "scene/camera.hpp"
#include "loop/timings.hpp"

struct GLFWwindow;

namespace depthsort::app {

// The panel's one-shot requests (buttons): acted on after the frame, then cleared.
struct PanelRequests {
  bool rebuild = false, reset_camera = false, compare_all = false, histogram = false;
  int save_view = -1, load_view = -1;
  bool close_popups = false;  // Esc with a list open: close it (the next frame, inside it)
  bool any() const noexcept {
    return rebuild || reset_camera || compare_all || histogram || save_view >= 0 || load_view >= 0 || close_popups;
  }
};

struct PanelInfo {
  std::string_view device;   // GPU name or "CPU path: why" (views: the panel allocates nothing per frame)
  std::string_view gl;       // GL renderer
  std::string_view scene;    // description
  std::string_view notes;    // such as the CPU path's scaling down of the default scene
  std::string_view error;    // the last rebuild request that failed
  std::size_t triangles = 0, particles = 0;
  std::size_t device_bytes_used = 0, device_bytes_total = 0, workspace_bytes = 0;
  bool gpu_path = true;
  bool headless = false;     // --panel: the scene and camera controls start closed (no one to click them)
  std::size_t segments = 0;  // the current sorter's segments in the last sort (0: none)
  const char* segment_kind = "bucket";
  // Teaching views, filled on request (buttons): compare-all bars and the last histogram.
  std::span<const StepBar> compare_bars;
  const SizeHistogram* histogram = nullptr;
  std::size_t histogram_segments = 0;
  const CheckState* check = nullptr;
  const Viewpoints* views = nullptr;
  float fps = 0;
  std::string_view cpu_reason;  // the CPU path: why (no CUDA device, --cpu, ...); empty on the GPU path
};

// ImGui context + GLFW/OpenGL3 backends, torn down in reverse order.
class ImGuiLayer {
 public:
  explicit ImGuiLayer(GLFWwindow* window);
  // Headless: no window, a fixed display of width x height (headless --panel).
  ImGuiLayer(int width, int height);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;
  void begin_frame();
  void end_frame();  // renders the draw data
  bool wants_mouse() const;
  bool wants_keyboard() const;

 private:
  GLFWwindow* window_ = nullptr;
  int width_ = 0, height_ = 0;
};

// The panel's window. Its scratch (the plot buffer) is a member, not a function-local static.
class Panel {
 public:
  void draw(Settings& state, PanelRequests& requests, const PanelInfo& info, const Timings& timings, double now);
  // F1: the controls (keys.hpp) in a window of their own in the middle of the display.
  static void draw_help(bool& open);
  // After draw(): whether a list (the sorter combo) is open, and the right edge of the panel in
  // pixels (0 when it was not drawn), for centring the scene in what the panel leaves free.
  bool popup_open() const noexcept { return popup_open_; }
  float right_edge() const noexcept { return right_edge_; }
  void hidden() noexcept { right_edge_ = 0; popup_open_ = false; }

 private:
  void timing_rows(const Timings& timings, const char* group, double now);
  void sort_views(PanelRequests& requests, const PanelInfo& info, const Timings& timings, double now);
  // The current sorter's live bar (last-second means of its steps): storage reused every frame.
  std::array<StepBar, 1> live_{};
  std::array<float, TimingSeries::kHistory> plot_{};  // one series' history, in time order
  // Keeps the panel inside the display whatever the resizes: moved in, and shrunk while the
  // display is smaller than it (its size before kept, and given back when there is room again).
  void keep_inside();
  ImVec2 restore_size_{0, 0};
  bool shrunk_ = false, popup_open_ = false;
  float right_edge_ = 0;
};

}  // namespace depthsort::app
