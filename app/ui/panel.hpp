// The Dear ImGui panel (in the window, or drawn into headless --panel frames, laid out the same):
// down the window's left side, its full height. At the top, always in view: the device, the scene,
// the notes, the frame rate and the order check light; below them four tabs: Sort (the sorter
// combo from the registry with each sorter's options, sort on/off and freeze, the order method,
// the live bar of sort steps with its legend, compare all, the bucket sizes), Draw (separate
// passes, the draw path, colours, the wipe, opacity, lighting, the state line and the UI's
// size), Scene (particle and triangle counts, simulation, the camera, saved views, vsync) and
// Timings (why the frames are slow, where they are; every phase and sort step: the last second's
// figures on a line, the history plot below). A window smaller than 800x600 collapses it to a
// strip so that the scene stays visible. The panel edits the run's Settings (settings.hpp) in
// place; the frame loop compares them with last frame's copy to decide what to rebuild. Buttons
// set ButtonPresses; what it only shows comes in a PanelReadout.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include <imgui.h>

#include "loop/compare_all.hpp"
#include "loop/timings.hpp"
#include "settings.hpp"
#include "ui/panel_readout.hpp"

struct GLFWwindow;

namespace depthsort::app {

class UiText;

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

// ImGui context + GLFW/OpenGL3 backends, torn down in reverse order; the fonts and the widgets'
// sizes at the UI scale (ui/ui_scale.hpp).
class ImGuiLayer {
 public:
  explicit ImGuiLayer(GLFWwindow* window);
  // Headless: no window, a fixed display of width x height (headless --panel).
  ImGuiLayer(int width, int height);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;
  // Fonts and widgets at `scale`: rebuilt when it differs from the last (a resize across a step,
  // + or -: a user action, not the steady frame). Before begin_frame.
  void set_scale(float scale);
  float scale() const noexcept { return scale_; }
  // The monitor's content scale (the desktop's own UI factor); 1 headless.
  float content_scale() const;
  void begin_frame();
  void end_frame();  // renders the draw data
  bool wants_mouse() const;
  // A text field has the keyboard. (Not ImGui's WantCaptureKeyboard: that is also on while a
  // click is still being taken, which, where frames are slow and ImGui takes one mouse event a
  // frame, would drop the presenter keys pressed just after clicking the panel.)
  bool typing_text() const;

 private:
  void start(float scale);
  GLFWwindow* window_ = nullptr;
  int width_ = 0, height_ = 0;
  ImGuiStyle base_style_;  // the dark style at scale 1, scaled from afresh at each change
  float scale_ = 0.0f;
  bool device_objects_ = false;  // the backend's font texture exists (after the first frame)
};

// The separate passes on or off. Turning them on ends the views of the one order (the wipe,
// colours by rank or segment), so that none of them waits hidden to reappear when they end.
void set_separate_passes(Settings& state, bool on) noexcept;

// A note in the panel (what the run changed or cannot do, why its frames are slow): amber, and
// wrapped, since a note cut at the panel's edge says nothing.
void wrapped_note(std::string_view text);

// Where the panel goes in a display: down the left side, its whole height, at most 45% of the
// width; below 800x600 a strip (its title bar alone) so that the scene stays visible.
struct PanelPlace {
  ImVec2 pos{0, 0}, size{0, 0};
  bool strip = false;
};
PanelPlace panel_place(ImVec2 display, float scale) noexcept;

// The panel's window. Its scratch (the plot buffer) is a member, not a function-local static.
class Panel {
 public:
  void draw(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now,
            UiText& words);
  // F1: the controls (ui/controls.hpp) in a window of their own in the middle of the display.
  static void draw_help(bool& open, UiText& words);
  // After draw(): whether a list (the sorter combo) is open, and the right edge of the panel in
  // pixels (0 when it was not drawn or is a strip), for centring the scene in what the panel leaves free.
  bool popup_open() const noexcept { return popup_open_; }
  float right_edge() const noexcept { return right_edge_; }
  void hidden() noexcept {
    right_edge_ = 0;
    popup_open_ = false;
  }
  // The fraction of a framebuffer `width` pixels wide that the panel covers, for centring the
  // scene in the rest; none when it is not `shown`, or so wide that the rest is a sliver.
  float covered_left(int width, bool shown) const noexcept;

 private:
  void header(const Settings& state, const PanelReadout& info);
  void sort_tab(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now,
                UiText& words);
  void draw_tab(Settings& state, const PanelReadout& info);
  void scene_tab(Settings& state, ButtonPresses& presses, UiText& words);
  void timings_tab(const Settings& state, const PanelReadout& info, const Timings& timings, double now, UiText& words);
  void timing_rows(const Timings& timings, const char* group, double now, UiText& words);
  // The frame's sort steps as a bar with its legend, compare all, the bucket sizes.
  void sort_steps(ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now);
  // The current sorter's live bar (last-second means of its steps): storage reused every frame.
  std::array<StepBar, 1> live_{};
  std::array<float, TimingSeries::kHistory> plot_{};  // one series' history, in time order
  bool popup_open_ = false;
  float right_edge_ = 0;
  bool transparency_tab_chosen_ = false;  // the Draw tab chosen for another transparency mode
};

}  // namespace depthsort::app
