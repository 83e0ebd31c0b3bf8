// The headless run (EGL, offscreen): a fixed number of frames, the camera on its path
// (--camera-path), every timing kept, then the screenshot, the summary and --json. With --panel
// the panel and the overlays are drawn into the frames as a window of that size draws them (the
// same layout and UI scale), the sort charts filled on the last.
#pragma once

#include <cstdint>
#include <memory>

#include "loop/frame_body.hpp"
#include "scene/camera.hpp"
#include "ui/overlay.hpp"
#include "ui/panel.hpp"
#include "ui/ui_text.hpp"

namespace depthsort::app {

struct RunState;

class HeadlessLoop final : private FramePlatform {
 public:
  explicit HeadlessLoop(RunState& run);
  // The exit status: 1 if any order check failed or an output could not be written, 128 + the
  // signal's number if SIGINT or SIGTERM stopped the run, else 0.
  int run();

 private:
  void take_input(std::uint64_t frame, const FrameClock& clock) override;
  float covered_left() const override;
  bool lost() const override { return false; }
  bool panel_frame(std::uint64_t frame) override;
  void draw_panel(double now) override;
  void present(std::uint64_t) override {}
  void apply(const SettingsChange&) override {}

  RunState& run_;
  const std::uint64_t frames_;
  const Camera base_;                  // the scene's framing camera, where every camera path starts
  std::uint64_t frame_ = 0;            // the frame being drawn
  std::unique_ptr<ImGuiLayer> imgui_;  // --panel
  Panel panel_;
  Overlay overlay_;
  UiText words_;
  FrameBody body_;
};

}  // namespace depthsort::app
