#include "loop/frame_body.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

#include "depthsort/host/count_text.hpp"
#include "loop/changes.hpp"
#include "loop/run_state.hpp"

namespace depthsort::app {

FrameBody::FrameBody(RunState& run, std::uint64_t frames, bool wait_for_timings, bool draw)
    : run_(run), frames_(frames), wait_for_timings_(wait_for_timings), draw_(draw), before_(run.settings) {
  steps_.reserve(StepTimer::kMaxSteps);
}

bool FrameBody::run(FramePlatform& platform, std::uint64_t frame, FrameClock clock) {
  NvtxRange frame_range("frame");
  const auto start = std::chrono::steady_clock::now();
  // This frame's settings as they start, for the diff after it: copied only when the last frame
  // changed them (a user action), so a steady frame allocates nothing (the copy of a sorter's
  // options would: their names may not fit a string's inline buffer).
  if (!(before_ == run_.settings)) before_ = run_.settings;
  platform.take_input(frame, clock);
  Stage& stage = run_.stage;
  FramePipeline& pipeline = stage.pipeline();
  run_.cycle.select(pipeline, frame);
  run_.camera.fit_planes(stage.scene().centre, stage.scene().radius);
  const float sprite_scale = point_scale(run_.camera, stage.renderer().height());
  const FramePlan plan =
      plan_frame(run_.settings, stage.scene(), clock, sprite_scale, platform.covered_left(), run_.cycle.active());
  pipeline.compute(run_.camera, plan, frame);
  // The draw is the frame's first GL call that asks X for the window's size (Mesa's software
  // rasteriser does): a window destroyed since the frame began gave it garbage, and its heap
  // was corrupted (a crash in about one run in twenty-five under Xvfb). A round trip first.
  if (platform.lost()) return false;
  GlTimerRing& gl_timer = stage.gl_timer();
  gl_timer.begin_frame();
  if (draw_) {
    {
      NvtxRange range("draw");
      // The renderer times each phase of the transparency mode ("draw" for the blended draw).
      stage.renderer().draw(stage.scene(), run_.camera, plan, gl_timer);
    }
    if (platform.panel_frame(frame)) {
      gl_timer.begin_step("ui");
      {
        GlDebugGroup group("ui");
        NvtxRange range("ui");
        platform.draw_panel(clock.now);
      }
      gl_timer.end_step();
    }
  }
  gl_timer.end_frame();
  pipeline.poll_check();
  run_.cycle.finish(pipeline, frame, frames_);
  platform.present(frame);
  const float host_ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  collect(plan.sort, clock.now, frame, host_ms);
  last_host_ms_ = host_ms;
  note_slow_frame(frame, host_ms);
  if (!(run_.settings == before_) || run_.presses.any()) apply_changes(run_, before_, platform);
  return true;
}

// Every timer of the frame into the timing record: waited for (headless: each frame complete,
// so phases do not overlap), or polled (a window: read back a few frames later, never stalling).
void FrameBody::collect(bool sorted, double now, std::uint64_t frame, float host_ms) {
  FramePipeline& pipeline = run_.stage.pipeline();
  GlTimerRing& gl_timer = run_.stage.gl_timer();
  Timings& timings = run_.timings;
  if (wait_for_timings_) {
    for (const StepTime& s : pipeline.timer().wait_last()) timings.add("frame", s.name, s.ms, now, frame);
    timings.add("frame", "compute", pipeline.timer().last_frame_ms(), now, frame);
    if (StepTimer* sort = pipeline.sort_steps_timer(); sorted && sort)
      for (const StepTime& s : sort->wait_last()) timings.add("sort", s.name, s.ms, now, frame);
    if (sorted && pipeline.particle_sorter())
      for (const StepTime& s : pipeline.particle_sorter()->timer().wait_last())
        timings.add("particle sort", s.name, s.ms, now, frame);
    if (gl_timer.wait_last(steps_))
      for (const StepTime& s : steps_) timings.add("frame", s.name, s.ms, now, frame);
  } else {
    if (pipeline.timer().poll(steps_)) {
      // poll() gives the steps, not the first-to-last event span that headless runs record as
      // "compute": the sum of the steps has its own name.
      float total = 0;
      for (const StepTime& s : steps_) {
        timings.add("frame", s.name, s.ms, now, frame);
        total += s.ms;
      }
      timings.add("frame", "step sum", total, now, frame);
    }
    if (StepTimer* sort = pipeline.sort_steps_timer(); sort && sort->poll(steps_))
      for (const StepTime& s : steps_) timings.add("sort", s.name, s.ms, now, frame);
    if (pipeline.particle_sorter() && pipeline.particle_sorter()->timer().poll(steps_))
      for (const StepTime& s : steps_) timings.add("particle sort", s.name, s.ms, now, frame);
    if (gl_timer.poll(steps_))
      for (const StepTime& s : steps_) timings.add("frame", s.name, s.ms, now, frame);
  }
  timings.add("frame", "host frame", host_ms, now, frame);
}

// A scene too large to be interactive runs as asked, but says so once (on the console and in
// the panel's note), naming the phase that takes the time (the draw, on the CPU path's software
// GL, more often than the sort) and what would be interactive: the second frame is timed (the
// first pays for first-use costs), and the primitives scaled to a 50 ms frame, as that work is
// about linear in them. Where the pixels are the work (a large --size on software GL), fewer
// primitives would not help: a smaller --size is the advice then, never "about 0 primitives".
void FrameBody::note_slow_frame(std::uint64_t frame, float host_ms) {
  constexpr float kInteractiveMs = 100.0f, kTargetMs = 50.0f;
  constexpr std::size_t kFullHdPixels = 1920 * 1080;
  if (slow_noted_ || frame != 1 || host_ms <= kInteractiveMs) return;
  slow_noted_ = true;
  const Scene& scene = run_.stage.scene();
  const bool gpu = run_.stage.pipeline().on_gpu();
  const double scale = static_cast<double>(kTargetMs / host_ms);
  const auto scaled = [&](std::size_t n) {
    return format_count(static_cast<std::size_t>(static_cast<double>(n) * scale));
  };
  // The frame's slowest phase among those timed this frame (the totals left out).
  const TimingSeries* slowest = nullptr;
  for (const TimingSeries& s : run_.timings.all()) {
    if (s.group != "frame" || s.count == 0 || s.last_frame != frame || s.name == "host frame" || s.name == "compute" ||
        s.name == "step sum")
      continue;
    if (!slowest || s.last > slowest->last) slowest = &s;
  }
  char ms[96];
  std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(host_ms));
  const std::size_t primitives = scene.mesh.triangles() + scene.particles;
  const std::size_t pixels =
      static_cast<std::size_t>(run_.options.width) * static_cast<std::size_t>(run_.options.height);
  // Advice by primitives only where a scaled count stays a real scene (of each kind there is).
  const bool fewer = static_cast<double>(primitives) * scale >= 1000.0 &&
                     (scene.particles == 0 || static_cast<double>(scene.particles) * scale >= 1.0) &&
                     (scene.mesh.triangles() == 0 || static_cast<double>(scene.mesh.triangles()) * scale >= 1.0);
  std::string line = std::string("note: a frame takes ") + ms + " ms on the " + (gpu ? "GPU" : "CPU") +
                     " path, too slow to be interactive";
  if (slowest) {
    std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(slowest->last));
    line += std::string("; the ") + slowest->name + " takes " + ms + " ms of it";
    if (slowest->name == "draw" && !gpu)
      line += " (the CPU path's OpenGL is Mesa's software rasteriser: a GPU draws this in a few milliseconds)";
    else if (slowest->name == "sort" && !gpu)
      line += " (a CUDA GPU sorts millions in a few milliseconds)";
  }
  line += "; ";
  if (fewer) {
    line += "about " + scaled(primitives) + " primitives would be interactive (";
    if (scene.particles > 0) line += "--particles " + scaled(scene.particles);
    if (scene.particles > 0 && scene.mesh.triangles() > 0) line += " ";
    if (scene.mesh.triangles() > 0) line += "--triangles " + scaled(scene.mesh.triangles());
    line += ")";
  }
  if (!fewer || pixels > kFullHdPixels)
    line += std::string(fewer ? ", or " : "") + "a smaller --size than " + std::to_string(run_.options.width) + "x" +
            std::to_string(run_.options.height) + " would be";
  run_.console.say(line);
  run_.lines.slow_frame = std::move(line);
}

}  // namespace depthsort::app
