// The headless loop (EGL, offscreen): a fixed number of frames, every timing kept, then the
// screenshot, the summary and --json.
#include "loop/run_state.hpp"

#include "render/gl.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "depthsort/host/output_file.hpp"
#include "render/screenshot.hpp"
#include "platform/stop_signal.hpp"
#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

int App::run_headless() {
  const std::uint64_t frames = options_.frames.value_or(60);
  Timings timings(recorded_frames());  // every sample kept: medians and --json
  steps_.reserve(StepTimer::kMaxSteps);
  const float dt = 1.0f / 60.0f;
  const Camera base = camera_;
  const bool draw = options_.draw;
  reserve_memory_samples(frames);
  if (options_.panel) imgui_ = std::make_unique<ImGuiLayer>(renderer_->width(), renderer_->height());
  float last_host_ms = 0;
  std::uint64_t frames_run = 0;  // frames, or fewer when SIGINT/SIGTERM stopped the run
  for (std::uint64_t f = 0; f < frames && !stop_signal(); ++f, ++frames_run) {
    NvtxRange frame_range("frame");
    const auto start = std::chrono::steady_clock::now();
    cycle_select(f);
    if (options_.camera_path != CameraPath::None) camera_ = camera_on_path(options_.camera_path, base, f, frames);
    const float time = dt * static_cast<float>(f);
    const bool sorted = settings_.sort && !settings_.freeze;
    camera_.fit_planes(scene_.centre, scene_.radius);
    // --panel: the scene centred in what the panel leaves free (its width known from frame 0 on).
    const FramePlan plan = frame_plan(FrameClock{static_cast<double>(time), dt}, imgui_ ? covered_left(renderer_->width()) : 0.0f);
    pipeline_->compute(camera_, plan, f);
    gl_timer_->begin_frame();
    if (draw) {
      NvtxRange range("draw");
      gl_timer_->begin_step("draw");
      renderer_->draw(scene_, camera_, plan);
      gl_timer_->end_step();
      if (imgui_) {
        if (f + 1 == frames) run_view_requests(true, true);
        gl_timer_->begin_step("ui");
        draw_headless_panel(timings, static_cast<double>(time), last_host_ms);
        gl_timer_->end_step();
      }
    }
    gl_timer_->end_frame();
    pipeline_->poll_check();
    cycle_finish(f, frames);
    const float host_ms =
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
    collect(timings, true, sorted, static_cast<double>(time), f, host_ms);
    last_host_ms = host_ms;
    note_slow_frames(f, host_ms);
  }
  const int signal = stop_signal();
  if (signal != 0)
    say(std::string("stopped by ") + stop_signal_name(signal) + " after " + std::to_string(frames_run) + " of " +
        std::to_string(frames) + " frames");
  pipeline_->finish_checks();
  DEPTHSORT_GL_CHECK(glFinish());

  // Each output on its own: one that fails is reported and does not cost the other.
  bool outputs_ok = true;
  if (!options_.screenshot.empty()) {
    outputs_ok &= write_output("--screenshot", [&] {
      if (!draw) renderer_->clear(scene_);
      std::vector<std::uint8_t> pixels;
      renderer_->read_pixels(pixels);
      write_png(options_.screenshot, renderer_->width(), renderer_->height(), pixels);
      say("screenshot: " + shown_path(options_.screenshot) + (draw ? "" : " (--no-draw: background only)"));
    });
  }
  summarize(timings, frames_run);
  report_dropped(timings);
  if (!options_.json.empty()) {
    outputs_ok &= write_output("--json", [&] {
      write_file_atomically(options_.json, timings.json_text(meta_json(frames_run)));
      say("json: " + shown_path(options_.json));
    });
  }
  const CheckState& check = pipeline_->check();
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

void App::summarize(const Timings& timings, std::uint64_t frames) const {
  std::string line = std::to_string(frames) + " frames, medians (ms):";
  char buf[96];
  for (std::size_t i = 0; i < timings.all().size(); ++i) {
    std::snprintf(buf, sizeof buf, " %s %.3f", timings.all()[i].label.c_str(),
                  static_cast<double>(timings.median(static_cast<int>(i))));
    line += buf;
  }
  say(line);
  const CheckState& c = pipeline_->check();
  if (settings_.sort)
    say("order checks: " + std::to_string(c.checks - c.failures) + "/" + std::to_string(c.checks) + " passed");
  if (!cycle_.empty()) say(memory_summary());
}

}  // namespace depthsort::app
