// The window's input onto the run: the mouse and the wheel on the camera (orbit, or fly), the fly
// keys (W A S D Q E), and the presenter keys (ui/controls.hpp) on the settings and the button
// presses, read from the window's queue of presses so that none is lost between two frames.
#pragma once

#include <array>

#include "platform/glfw_window.hpp"
#include "scene/camera.hpp"

namespace depthsort::app {

class ImGuiLayer;
class Panel;
struct RunState;

class WindowInput {
 public:
  explicit WindowInput(GlfwWindow& window) : window_(window) {}

  // The presenter keys pressed since the last frame. While a text field has the keyboard only
  // Esc, Ctrl+Q and F11 act.
  void take_keys(RunState& run, const ImGuiLayer& imgui, const Panel& panel);
  // Drag, wheel and the fly keys, while ImGui does not have the mouse (or the keyboard).
  void move_camera(Camera& camera, const ImGuiLayer& imgui, float dt);

 private:
  // N: the next registry sorter that runs on this run's path (the CPU path has one).
  static void next_sorter(RunState& run);

  GlfwWindow& window_;
  std::array<PressedKey, GlfwWindow::kKeyQueue> presses_{};
  bool was_dragging_ = false;
  double last_x_ = 0, last_y_ = 0;
};

}  // namespace depthsort::app
