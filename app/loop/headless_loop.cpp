#include "loop/headless_loop.hpp"

#include "render/gl.hpp"

#include <cuda_runtime.h>

#include <cstdio>
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

HeadlessLoop::HeadlessLoop(RunState& run)
    : run_(run),
      frames_(run.options.frames.value_or(60)),
      base_(run.camera),
      words_(!run.options.ui_text.empty()),
      body_(run, frames_, /*wait_for_timings=*/true, run.options.draw) {}

int HeadlessLoop::run() {
  const float dt = 1.0f / 60.0f;
  Renderer& renderer = run_.stage.renderer();
  run_.cycle.reserve_samples(frames_);
  if (run_.options.panel) {
    imgui_ = std::make_unique<ImGuiLayer>(renderer.width(), renderer.height());
    imgui_->set_scale(ui_scale_for(run_.settings.ui_scale, renderer.width(), renderer.height(), 1.0f));
  }
  std::uint64_t frames_run = 0;  // frames, or fewer when SIGINT/SIGTERM stopped the run
  for (std::uint64_t f = 0; f < frames_ && !stop_signal(); ++f, ++frames_run) {
    const float time = dt * static_cast<float>(f);
    body_.run(*this, f, FrameClock{static_cast<double>(time), dt});
  }
  const int signal = stop_signal();
  if (signal != 0)
    run_.console.say(std::string("stopped by ") + stop_signal_name(signal) + " after " + std::to_string(frames_run) +
                     " of " + std::to_string(frames_) + " frames");
  FramePipeline& pipeline = run_.stage.pipeline();
  pipeline.finish_checks();
  DEPTHSORT_GL_CHECK(glFinish());
  run_.stage.renderer().finish_stats();  // the last frame's counts, for the summary and --json

  // Each output on its own: one that fails is reported and does not cost the other.
  bool outputs_ok = true;
  const std::string& screenshot = run_.options.screenshot;
  if (!screenshot.empty()) {
    outputs_ok &= write_output("--screenshot", [&] {
      if (!run_.options.draw) run_.stage.renderer().clear(run_.stage.scene());
      std::vector<std::uint8_t> pixels;
      run_.stage.renderer().read_pixels(pixels);
      run_.outputs.screenshot.write(encode_png(run_.stage.renderer().width(), run_.stage.renderer().height(), pixels));
      run_.console.say("screenshot: " + shown_path(screenshot) +
                       (run_.options.draw ? "" : " (--no-draw: background only)"));
    });
  }
  summarize(run_, frames_run);
  report_dropped(run_.timings);
  report_over_budget(run_);
  if (!run_.options.json.empty()) outputs_ok &= write_json(run_, frames_run);
  if (!run_.options.ui_text.empty())
    outputs_ok &= write_output("--ui-text", [&] { words_.write(run_.options.ui_text); });
  const CheckState& check = pipeline.check();
  if (check_exit_status(check) != 0) {  // any failed check, not only the last
    std::fprintf(stderr,
                 "depthsort: error: the sorted order was wrong in %llu of %llu checks (last failure at frame "
                 "%llu: %u mesh, %u particle positions)\n",
                 static_cast<unsigned long long>(check.failures), static_cast<unsigned long long>(check.checks),
                 static_cast<unsigned long long>(check.failed_frame), check.failed_mesh, check.failed_particles);
    return check_exit_status(check);
  }
  if (signal != 0) return 128 + signal;
  return outputs_ok ? 0 : 1;
}

void HeadlessLoop::take_input(std::uint64_t frame, const FrameClock&) {
  frame_ = frame;
  if (run_.options.camera_path != CameraPath::None)
    run_.camera = camera_on_path(run_.options.camera_path, base_, frame, frames_);
}

// --panel: the scene centred in what the panel leaves free (its width known from frame 0 on).
float HeadlessLoop::covered_left() const {
  return imgui_ ? panel_.covered_left(run_.stage.renderer().width(), run_.settings.show_panel) : 0.0f;
}

// --panel's last frame shows the sort charts: they are filled first, outside the timed panel.
bool HeadlessLoop::panel_frame(std::uint64_t frame) {
  if (!imgui_) return false;
  if (frame + 1 == frames_) run_.charts.update(run_.stage.pipeline(), run_.stage.scene(), true, true);
  return true;
}

// The panel drawn over the frame in the offscreen target, as in a window.
void HeadlessLoop::draw_panel(double now) {
  DeviceMemory memory;
  if (run_.stage.pipeline().on_gpu()) {
    std::size_t free_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &memory.total) == cudaSuccess)
      memory.used = memory.total - free_bytes;
    else
      cudaGetLastError();
  }
  const float host_ms = body_.last_host_ms();
  PanelReadout readout = read_panel(run_, memory, host_ms > 0 ? 1000.0f / host_ms : 0.0f);
  readout.ui_scale = imgui_->scale();
  imgui_->begin_frame();
  words_.begin(frame_ + 1 == frames_ || stop_signal() != 0);
  panel_.draw(run_.settings, run_.presses, readout, run_.timings, now, words_);
  const StateFacts facts{readout.gpu_path, readout.cycling, run_.stage.pipeline().sorter_info().name};
  overlay_.draw(run_.settings, facts, {}, covered_left(), now, words_);
  words_.end();
  imgui_->end_frame();
}

}  // namespace depthsort::app
