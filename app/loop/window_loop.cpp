// The window loop (GLFW + ImGui): frames until the window closes (or --frames), the mouse and
// wheel on the camera, the fly keys, the presenter keys (keys.hpp) and the panel.
#include "loop/run_state.hpp"

#include "render/gl.hpp"

#include <cuda_runtime.h>

#include <GLFW/glfw3.h>
#include <nlohmann/json.hpp>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "depthsort/host/output_file.hpp"
#include "ui/controls.hpp"
#include "platform/stop_signal.hpp"
#include "render/screenshot.hpp"
#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

void App::handle_input(float dt) {
  GLFWwindow* w = window_->handle();
  double x = 0, y = 0;
  glfwGetCursorPos(w, &x, &y);
  const bool dragging = !imgui_->wants_mouse() && glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  if (dragging && was_dragging_) {
    const float dx = static_cast<float>(x - last_x_), dy = static_cast<float>(y - last_y_);
    if (camera_.mode == CameraMode::Orbit) camera_.orbit(-0.005f * dx, 0.005f * dy);
    else camera_.orbit(0.003f * dx, -0.003f * dy);
  }
  was_dragging_ = dragging;
  last_x_ = x;
  last_y_ = y;
  if (!imgui_->wants_mouse()) {
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0.0f) {
      if (camera_.mode == CameraMode::Orbit) camera_.zoom(std::pow(0.9f, wheel));
      else camera_.fly(glm::vec3(0, 0, wheel * 0.1f * camera_.distance));
    }
  }
  if (!imgui_->wants_keyboard() && camera_.mode == CameraMode::Fly) {
    const float speed = 0.5f * camera_.distance * dt;
    const auto key = [&](int k) { return glfwGetKey(w, k) == GLFW_PRESS ? 1.0f : 0.0f; };
    camera_.fly(speed * glm::vec3(key(GLFW_KEY_D) - key(GLFW_KEY_A), key(GLFW_KEY_E) - key(GLFW_KEY_Q),
                                  key(GLFW_KEY_W) - key(GLFW_KEY_S)));
  }
}

// The presenter keys (keys.hpp), from the window's queue of presses: none is lost between two
// frames. While a text field has the keyboard only Esc, Ctrl+Q and F11 act.
void App::handle_keys() {
  const std::size_t n = window_->take_keys(key_presses_);
  const bool typing = imgui_->wants_keyboard();
  for (std::size_t i = 0; i < n; ++i) {
    const int key = key_presses_[i].key;
    const bool ctrl = (key_presses_[i].mods & GLFW_MOD_CONTROL) != 0;
    const auto on_off = [](bool on) { return on ? "on" : "off"; };
    if (key == GLFW_KEY_ESCAPE) {
      if (panel_.popup_open()) {
        requests_.close_popups = true;
      } else if (settings_.show_help) {
        settings_.show_help = false;
      } else {
        say("key Esc: quit");
        window_->request_close();
      }
    } else if (key == GLFW_KEY_Q && ctrl) {
      say("key Ctrl+Q: quit");
      window_->request_close();
    } else if (key == GLFW_KEY_F11) {
      settings_.fullscreen = !settings_.fullscreen;
      say(std::string("key F11: full screen ") + on_off(settings_.fullscreen));
    } else if (typing || ctrl) {
      continue;
    } else if (key == GLFW_KEY_F1) {
      settings_.show_help = !settings_.show_help;
    } else if (key == GLFW_KEY_H) {
      settings_.show_panel = !settings_.show_panel;
      say(std::string("key H: panel ") + (settings_.show_panel ? "shown" : "hidden"));
    } else if (key == GLFW_KEY_SPACE) {
      settings_.freeze = !settings_.freeze;
      say(std::string("key Space: order frozen ") + on_off(settings_.freeze));
    } else if (key == GLFW_KEY_O) {
      settings_.sort = !settings_.sort;
      say(std::string("key O: sorting ") + on_off(settings_.sort));
    } else if (key == GLFW_KEY_P) {
      settings_.separate_passes = !settings_.separate_passes;
      say(std::string("key P: separate passes ") + on_off(settings_.separate_passes));
    } else if (key == GLFW_KEY_V) {
      settings_.wipe_on = !settings_.wipe_on;
      say(std::string("key V: wipe ") + on_off(settings_.wipe_on));
    } else if (key == GLFW_KEY_C) {
      const int next = (static_cast<int>(settings_.colour) + 1) % 3;
      settings_.colour = static_cast<ColourMode>(next);
      static constexpr const char* kNames[3] = {"scene", "by rank", "by segment"};
      say(std::string("key C: colours ") + kNames[next]);
    } else if (key == GLFW_KEY_R) {
      requests_.reset_camera = true;
      say("key R: camera reset");
    } else if (key == GLFW_KEY_N) {
      next_sorter();
    }
  }
}

// N: the next registry sorter that runs on this run's path (the CPU path has one).
void App::next_sorter() {
  const auto registry = sorter_registry();
  const Backend backend = pipeline_->on_gpu() ? Backend::Gpu : Backend::Cpu;
  for (std::size_t step = 1; step <= registry.size(); ++step) {
    const std::size_t i = (static_cast<std::size_t>(settings_.sorter_index) + step) % registry.size();
    if (registry[i].backend != backend || !registry[i].is_available(nullptr)) continue;
    if (static_cast<int>(i) == settings_.sorter_index) break;
    settings_.sorter_index = static_cast<int>(i);
    settings_.options = default_options(registry[i]);
    say("key N: sorter " + std::string(registry[i].name));
    return;
  }
  say(backend == Backend::Cpu ? "key N: the CPU path has only the CPU sorter (the others need a CUDA GPU)"
                              : "key N: no other sorter runs here");
}

int App::run_windowed() {
  imgui_ = std::make_unique<ImGuiLayer>(window_->handle());
  // --json in a window records up to --frames (default 3600) frames, reserved here.
  Timings timings(recorded_frames());
  steps_.reserve(StepTimer::kMaxSteps);
  const std::uint64_t frames = options_.frames.value_or(0);
  std::uint64_t frames_run = 0;  // frames drawn (minimised ones are skipped), for --json
  reserve_memory_samples(frames != 0 ? frames : 1000000);  // a window closed by hand: the first million frames
  double last = glfwGetTime();
  double memory_polled = -10.0;
  bool outputs_ok = true;
  bool screenshot_tried = false;  // the last frame's pixels read for --screenshot
  std::size_t used = 0, total = 0;
  for (std::uint64_t f = 0; !window_->should_close() && (frames == 0 || f < frames) && !stop_signal(); ++f) {
    window_->poll_events();
    int width = 0, height = 0;
    window_->framebuffer_size(width, height);
    if (stop_signal() == kWindowGone) break;  // the sizes just read are not to be trusted
    if (width <= 0 || height <= 0) {  // minimised: neither draw nor spin
      window_->wait_events(0.1);
      last = glfwGetTime();
      frame_rate_.reset();
      continue;
    }
    try {
      renderer_->resize(width, height);
      ++frames_run;
      const double now = glfwGetTime();
      // The simulation's step is capped (a slow frame does not throw the particles far); the
      // frame rate shown is not: it counts the frames of the last second.
      const auto dt = static_cast<float>(std::min(now - last, 0.1));
      last = now;
      frame_rate_.add(now);
      const auto fps = static_cast<float>(frame_rate_.fps());
      NvtxRange frame_range("frame");
      const auto start = std::chrono::steady_clock::now();
      before_ = settings_;  // copy-assigned into a member: reuses its storage, no allocation per frame
      handle_keys();
      handle_input(dt);
      camera_.fit_planes(scene_.centre, scene_.radius);
      const bool sorted = settings_.sort && !settings_.freeze;
      cycle_select(f);
      const FramePlan plan = frame_plan(FrameClock{now, dt}, covered_left(width));
      pipeline_->compute(camera_, plan, f);
      // The draw is the frame's first GL call that asks X for the window's size (Mesa's software
      // rasteriser does): a window destroyed since the frame began gave it garbage, and its heap
      // was corrupted (a crash in about one run in twenty-five under Xvfb). A round trip first.
      if (window_->lost()) break;
      gl_timer_->begin_frame();
      {
        NvtxRange range("draw");
        gl_timer_->begin_step("draw");
        renderer_->draw(scene_, camera_, plan);
        gl_timer_->end_step();
      }

      if (pipeline_->on_gpu() && now - memory_polled > 1.0) {
        std::size_t free_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) used = total - free_bytes;
        memory_polled = now;
      }
      const PanelInfo info = panel_info(used, total, fps);
      gl_timer_->begin_step("ui");
      {
        GlDebugGroup group("ui");
        NvtxRange range("ui");
        imgui_->begin_frame();
        if (settings_.show_panel) panel_.draw(settings_, requests_, info, timings, now);
        else panel_.hidden();
        Panel::draw_help(settings_.show_help);
        imgui_->end_frame();
        gl_timer_->end_step();
        gl_timer_->end_frame();
        // The last frame, panel included: that of --frames, or the one before the window closes.
        const bool last_frame = (frames != 0 && f + 1 == frames) || window_->should_close() || stop_signal();
        // A window destroyed from outside has no pixels left to read (the read, like the draw,
        // asks X for its size first): a round trip to the X server says whether it is there.
        if (!options_.screenshot.empty() && last_frame && !window_->lost()) {
          screenshot_tried = true;
          outputs_ok &= write_output("--screenshot", [&] {
            std::vector<std::uint8_t> pixels;
            renderer_->read_pixels(pixels);
            write_png(options_.screenshot, renderer_->width(), renderer_->height(), pixels);
            say("screenshot: " + shown_path(options_.screenshot));
          });
        }
        window_->swap();
        const float host_ms =
            std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
        pipeline_->poll_check();
        cycle_finish(f, frames);
        collect(timings, false, sorted, now, f, host_ms);
        note_slow_frames(f, host_ms);
        if (!(settings_ == before_) || requests_.any()) apply_changes(before_, requests_);
      }
    } catch (const GlError&) {
      // A window destroyed from outside can fail the frame's GL calls (llvmpipe's glClear says
      // GL_OUT_OF_MEMORY) before its X error has reached the handler: if a round trip to the X
      // server finds the window gone, the run ends as for a lost window; any other GL error stands.
      if (!window_->lost()) throw;
      break;
    }
  }
  int signal = stop_signal();
  if (signal == kWindowGone) {
    say("the window was lost after " + std::to_string(frames_run) + " frames (destroyed from outside, or an X error on it)");
    if (!options_.screenshot.empty() && !screenshot_tried)
      say("screenshot: not written: the window was lost before its last frame could be read");
    signal = 0;  // as if it had been closed
  } else if (signal != 0) {
    say(std::string("stopped by ") + stop_signal_name(signal) + " after " + std::to_string(frames_run) + " frames");
  }
  if (!options_.json.empty()) {
    report_dropped(timings);
    outputs_ok &= write_output("--json", [&] {
      write_file_atomically(options_.json, timings.json_text(meta_json(frames_run)));
      say("json: " + shown_path(options_.json));
    });
  }
  if (signal != 0) return 128 + signal;
  return outputs_ok ? 0 : 1;
}

// The fraction of the width the panel covers, for centring the scene in the rest; none when the
// panel is hidden, or so wide that the rest is a sliver.
float App::covered_left(int width) const {
  if (!settings_.show_panel || width <= 0) return 0.0f;
  const float covered = panel_.right_edge() / static_cast<float>(width);
  return covered > 0.0f && covered < 0.8f ? covered : 0.0f;
}

}  // namespace depthsort::app
