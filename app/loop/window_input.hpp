// The window's input onto the run: the mouse and the wheel on the camera (orbit, or fly), the fly
// keys (W A S D Q E), and the presenter keys (ui/controls.hpp) on the settings and the button
// presses, read from the window's queue of presses so that none is lost between two frames. A
// key that cannot act here says why in a notice over the picture (and on the console).
#pragma once

#include <array>
#include <cstdint>

#include "platform/glfw_window.hpp"
#include "scene/camera.hpp"
#include "ui/overlay.hpp"

namespace depthsort::app {

class ImGuiLayer;
class Panel;
struct RunState;

class WindowInput {
 public:
  // Two presses of Esc within this many seconds quit; so does a second press taken in the frame
  // after the first, however long that frame took (a slow frame must not swallow the window).
  static constexpr double kQuitWindow = 1.0;

  explicit WindowInput(GlfwWindow& window) : window_(window) {}

  // The presenter keys pressed since the last frame, taken at `now` (seconds) in frame `frame`.
  // While a text field has the keyboard only Esc, Ctrl+Q and F11 act.
  void take_keys(RunState& run, const ImGuiLayer& imgui, const Panel& panel, double now, std::uint64_t frame);
  // Drag, wheel and the fly keys, while ImGui does not have the mouse (or the keyboard).
  void move_camera(Camera& camera, const ImGuiLayer& imgui, float dt);
  // What a key could not do, or the hint after a first Esc: shown over the picture for a while.
  Notice& notice() noexcept { return notice_; }
  const Notice& notice() const noexcept { return notice_; }
  // After a first Esc: "Esc again within a second quits", beside any notice.
  const Notice& quit_hint() const noexcept { return quit_hint_; }

 private:
  void escape(RunState& run, const Panel& panel, double now, std::uint64_t frame);
  void colours(RunState& run, double now);
  // N: the next registry sorter that runs on this run's path (the CPU path has one).
  void next_sorter(RunState& run, double now);
  // The console's line and, where the key could not act, the notice.
  void refuse(const RunState& run, const char* why, double now);

  GlfwWindow& window_;
  std::array<PressedKey, GlfwWindow::kKeyQueue> presses_{};
  Notice notice_, quit_hint_;
  double last_escape_ = -1e9;
  std::uint64_t escape_armed_through_ = 0;  // the frame after a first Esc's (0: none yet)
  bool was_dragging_ = false;
  double last_x_ = 0, last_y_ = 0;
};

}  // namespace depthsort::app
