#include "loop/window_loop.hpp"

#include "render/gl.hpp"

#include <cuda_runtime.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "depthsort/host/count_text.hpp"
#include "loop/report.hpp"
#include "loop/run_state.hpp"
#include "platform/stop_signal.hpp"
#include "render/screenshot.hpp"
#include "ui/panel_readout.hpp"
#include "ui/ui_scale.hpp"

namespace depthsort::app {

WindowLoop::WindowLoop(RunState& run, GlfwWindow& window)
    : run_(run),
      window_(window),
      imgui_(window.handle()),
      words_(!run.options.ui_text.empty()),
      input_(window),
      frames_(run.options.frames.value_or(0)),
      body_(run, frames_, /*wait_for_timings=*/false, /*draw=*/true) {}

int WindowLoop::run() {
  run_.cycle.reserve_samples(frames_ != 0 ? frames_ : 1000000);  // a window closed by hand: the first million frames
  std::uint64_t frames_run = 0;  // frames drawn (minimised ones are skipped), for --json
  double last = glfwGetTime();
  for (std::uint64_t f = 0; !window_.should_close() && (frames_ == 0 || f < frames_) && !stop_signal(); ++f) {
    window_.poll_events();
    int width = 0, height = 0;
    window_.framebuffer_size(width, height);
    if (stop_signal() == kWindowGone) break;  // the sizes just read are not to be trusted
    if (width <= 0 || height <= 0) {          // minimised: neither draw nor spin
      window_.wait_events(0.1);
      last = glfwGetTime();
      frame_rate_.reset();
      continue;
    }
    try {
      run_.stage.renderer().resize(width, height);
      // The fonts follow the window's size (a user action: a resize, F11, + or -).
      imgui_.set_scale(ui_scale_for(run_.settings.ui_scale, width, height, imgui_.content_scale()));
      ++frames_run;
      const double now = glfwGetTime();
      // The simulation's step is capped (a slow frame does not throw the particles far); the
      // frame rate shown is not: it counts the frames of the last second.
      const auto dt = static_cast<float>(std::min(now - last, 0.1));
      last = now;
      frame_rate_.add(now);
      fps_ = static_cast<float>(frame_rate_.fps());
      if (!body_.run(*this, f, FrameClock{now, dt})) break;
    } catch (const GlError&) {
      // A window destroyed from outside can fail the frame's GL calls (llvmpipe's glClear says
      // GL_OUT_OF_MEMORY) before its X error has reached the handler: if a round trip to the X
      // server finds the window gone, the run ends as for a lost window; any other GL error stands.
      if (!window_.lost()) throw;
      break;
    }
  }
  int signal = stop_signal();
  if (signal == kWindowGone) {
    run_.console.say("the window was lost after " + std::to_string(frames_run) +
                     " frames (destroyed from outside, or an X error on it)");
    if (!run_.options.screenshot.empty() && !screenshot_tried_)
      run_.console.say("screenshot: not written: the window was lost before its last frame could be read");
    signal = 0;  // as if it had been closed
  } else if (signal != 0) {
    run_.console.say(std::string("stopped by ") + stop_signal_name(signal) + " after " + std::to_string(frames_run) +
                     " frames");
  }
  // The same end as a headless run's, however the window ended: the checks still in flight
  // read, the summary, then the outputs.
  run_.stage.pipeline().finish_checks();
  summarize(run_, frames_run);
  report_dropped(run_.timings);
  if (!run_.options.json.empty()) outputs_ok_ &= write_json(run_, frames_run);
  if (!run_.options.ui_text.empty())
    outputs_ok_ &= write_output("--ui-text", [&] { words_.write(run_.options.ui_text); });
  if (signal != 0) return 128 + signal;
  return outputs_ok_ ? 0 : 1;
}

void WindowLoop::take_input(std::uint64_t frame, const FrameClock& clock) {
  frame_ = frame;
  input_.take_keys(run_, imgui_, panel_, clock.now, frame);
  input_.move_camera(run_.camera, imgui_, clock.dt);
}

float WindowLoop::covered_left() const {
  return panel_.covered_left(run_.stage.renderer().width(), run_.settings.show_panel);
}

void WindowLoop::draw_panel(double now) {
  if (run_.stage.pipeline().on_gpu() && now - memory_polled_ > 1.0) {  // device memory, once a second
    std::size_t free_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &device_total_) == cudaSuccess) device_used_ = device_total_ - free_bytes;
    memory_polled_ = now;
  }
  PanelReadout readout = read_panel(run_, DeviceMemory{device_used_, device_total_}, fps_);
  readout.ui_scale = imgui_.scale();
  imgui_.begin_frame();
  words_.begin(last_frame(frame_));
  if (run_.settings.show_panel)
    panel_.draw(run_.settings, run_.presses, readout, run_.timings, now, words_);
  else
    panel_.hidden();
  const StateFacts facts{readout.gpu_path, readout.cycling, run_.stage.pipeline().sorter_info().name};
  overlay_.draw(run_.settings, facts, {&input_.notice(), &input_.quit_hint()},
                panel_.covered_left(run_.stage.renderer().width(), run_.settings.show_panel), now, words_);
  Panel::draw_help(run_.settings.show_help, words_);
  words_.end();
  imgui_.end_frame();
}

bool WindowLoop::last_frame(std::uint64_t frame) const {
  return (frames_ != 0 && frame + 1 == frames_) || window_.should_close() || stop_signal();
}

// The last frame, panel included (that of --frames, or the one before the window closes), is the
// screenshot. A window destroyed from outside has no pixels left to read (the read, like the
// draw, asks X for its size first): a round trip to the X server says whether it is there.
void WindowLoop::present(std::uint64_t frame) {
  const std::string& screenshot = run_.options.screenshot;
  if (!screenshot.empty() && last_frame(frame) && !window_.lost()) {
    screenshot_tried_ = true;
    outputs_ok_ &= write_output("--screenshot", [&] {
      std::vector<std::uint8_t> pixels;
      run_.stage.renderer().read_pixels(pixels);
      run_.outputs.screenshot.write(encode_png(run_.stage.renderer().width(), run_.stage.renderer().height(), pixels));
      run_.console.say("screenshot: " + shown_path(screenshot));
    });
  }
  window_.swap();
}

void WindowLoop::apply(const SettingsChange& change) {
  if (change.vsync) window_.set_vsync(run_.settings.vsync);
  if (change.fullscreen && !window_.set_fullscreen(run_.settings.fullscreen)) {
    run_.settings.fullscreen = false;
    const char* why = "F11: no full screen here (the display reports no monitor to fill)";
    run_.console.say(why);
    input_.notice().show(why, glfwGetTime());
  }
}

}  // namespace depthsort::app
