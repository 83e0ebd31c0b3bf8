// The Dear ImGui panel (in the window, or drawn into headless --panel frames): sorter combo from
// the registry with each sorter's options, sort on/off and freeze, the sort charts, scene and
// particle controls, opacity, camera, vsync, timings with history plots and last-second
// statistics, the correctness light, GPU and memory lines. The panel edits the run's Settings
// (settings.hpp) in place; the frame loop compares them with last frame's copy to decide what to
// rebuild. Buttons set ButtonPresses; what it only shows comes in a PanelReadout.
#pragma once

#include <array>
#include <cstddef>

#include <imgui.h>

#include "loop/compare_all.hpp"
#include "loop/timings.hpp"
#include "settings.hpp"
#include "ui/panel_readout.hpp"

struct GLFWwindow;

namespace depthsort::app {

// What was pressed this frame: the panel's buttons (and Esc on an open list, R for the camera),
// acted on after the frame, then cleared. Not settings: nothing of them lasts past the frame.
struct ButtonPresses {
  bool rebuild_scene = false, reset_camera = false, compare_all = false, bucket_sizes = false;
  int save_view = -1, load_view = -1;
  bool close_lists = false;  // Esc with a list open: close it (the next frame, inside it)
  bool any() const noexcept {
    return rebuild_scene || reset_camera || compare_all || bucket_sizes || save_view >= 0 || load_view >= 0 ||
           close_lists;
  }
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
  void draw(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now);
  // F1: the controls (ui/controls.hpp) in a window of their own in the middle of the display.
  static void draw_help(bool& open);
  // After draw(): whether a list (the sorter combo) is open, and the right edge of the panel in
  // pixels (0 when it was not drawn), for centring the scene in what the panel leaves free.
  bool popup_open() const noexcept { return popup_open_; }
  float right_edge() const noexcept { return right_edge_; }
  void hidden() noexcept { right_edge_ = 0; popup_open_ = false; }
  // The fraction of a framebuffer `width` pixels wide that the panel covers, for centring the
  // scene in the rest; none when it is not `shown`, or so wide that the rest is a sliver.
  float covered_left(int width, bool shown) const noexcept;

 private:
  void timing_rows(const Timings& timings, const char* group, double now);
  // "Sort steps and buckets": the frame's sort steps as a bar, compare all, the bucket sizes.
  void sort_steps_section(ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now);
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
