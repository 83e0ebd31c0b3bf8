// The window loop (GLFW + ImGui): frames until the window closes (or --frames), the mouse and the
// keys (WindowInput), the panel and the overlays at the UI's scale, the frame rate it shows, and
// at the end, however it ends (Esc, Ctrl+Q, the window closed or lost, SIGINT, SIGTERM), the
// screenshot of the last frame, the summary a headless run prints, --json and --ui-text.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loop/frame_body.hpp"
#include "loop/window_input.hpp"
#include "platform/glfw_window.hpp"
#include "ui/frame_rate.hpp"
#include "ui/overlay.hpp"
#include "ui/panel.hpp"
#include "ui/ui_text.hpp"

namespace depthsort::app {

struct RunState;

class WindowLoop final : private FramePlatform {
 public:
  WindowLoop(RunState& run, GlfwWindow& window);
  // The exit status: 1 if an output could not be written, 128 + the signal's number if SIGINT or
  // SIGTERM stopped the run, else 0 (a window lost counts as closed).
  int run();

 private:
  void take_input(std::uint64_t frame, const FrameClock& clock) override;
  float covered_left() const override;
  bool lost() const override { return window_.lost(); }
  bool panel_frame(std::uint64_t) override { return true; }
  void draw_panel(double now) override;
  void present(std::uint64_t frame) override;
  void apply(const SettingsChange& change) override;

  bool last_frame(std::uint64_t frame) const;

  RunState& run_;
  GlfwWindow& window_;
  ImGuiLayer imgui_;
  Panel panel_;
  Overlay overlay_;
  UiText words_;
  WindowInput input_;
  FrameRate frame_rate_;        // the panel's fps figure
  const std::uint64_t frames_;  // --frames, or 0: until the window closes
  FrameBody body_;
  float fps_ = 0;
  double memory_polled_ = -10.0;
  std::size_t device_used_ = 0, device_total_ = 0;
  bool outputs_ok_ = true;
  bool screenshot_tried_ = false;  // the last frame's pixels read for --screenshot
  std::uint64_t frame_ = 0;        // the frame being drawn
};

}  // namespace depthsort::app
