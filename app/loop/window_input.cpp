#include "loop/window_input.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "loop/run_state.hpp"
#include "ui/panel.hpp"
#include "ui/ui_scale.hpp"

namespace depthsort::app {

namespace {

// The keys that turn one setting on and off, and what the console says before "on" or "off".
struct ToggleKey {
  int key;
  bool Settings::*setting;
  const char* said;
};
constexpr ToggleKey kToggleKeys[] = {
    {GLFW_KEY_SPACE, &Settings::freeze, "key Space: order frozen "},
    {GLFW_KEY_O, &Settings::sort, "key O: sorting "},
    {GLFW_KEY_L, &Settings::state_line, "key L: state line "},
};

const ToggleKey* find_toggle(int key) {
  for (const ToggleKey& toggle : kToggleKeys)
    if (toggle.key == key) return &toggle;
  return nullptr;
}

// + and - on the main keys or the keypad (with Shift, + is the = key on most layouts).
int scale_steps(int key) {
  if (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) return 1;
  if (key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_SUBTRACT) return -1;
  return 0;
}

constexpr const char* kOneOrderOnly = "the separate passes draw two orders in the scene's colours; P turns them off";

// The refusal of P, V or C where what they change is not drawn ("" for other keys, and where they
// apply): the other transparency modes draw no order, and the difference view has a picture of its
// own. The separate passes (P) are a sorted picture too, and the difference view may show them.
std::string sorted_picture_refusal(const Settings& s, int key) {
  const char* name = key == GLFW_KEY_P ? "P" : key == GLFW_KEY_V ? "V" : key == GLFW_KEY_C ? "C" : nullptr;
  if (!name) return "";
  if (s.transparency.mode != Transparency::Sorted)
    return std::string("key ") + name + ": transparency " + transparency_mode_name(s.transparency.mode) +
           " draws no sorted order; T goes on to sorted";
  if (s.transparency.difference && key != GLFW_KEY_P)
    return std::string("key ") + name + ": the difference view shows the scene's colours against the reference";
  return "";
}

}  // namespace

void WindowInput::move_camera(Camera& camera, const ImGuiLayer& imgui, float dt) {
  GLFWwindow* w = window_.handle();
  double x = 0, y = 0;
  glfwGetCursorPos(w, &x, &y);
  const bool dragging = !imgui.wants_mouse() && glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  if (dragging && was_dragging_) {
    const float dx = static_cast<float>(x - last_x_), dy = static_cast<float>(y - last_y_);
    if (camera.mode == CameraMode::Orbit)
      camera.orbit(-0.005f * dx, 0.005f * dy);
    else
      camera.orbit(0.003f * dx, -0.003f * dy);
  }
  was_dragging_ = dragging;
  last_x_ = x;
  last_y_ = y;
  if (!imgui.wants_mouse()) {
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0.0f) {
      if (camera.mode == CameraMode::Orbit)
        camera.zoom(std::pow(0.9f, wheel));
      else
        camera.fly(glm::vec3(0, 0, wheel * 0.1f * camera.distance));
    }
  }
  if (!imgui.typing_text() && camera.mode == CameraMode::Fly) {
    const float speed = 0.5f * camera.distance * dt;
    const auto key = [&](int k) { return glfwGetKey(w, k) == GLFW_PRESS ? 1.0f : 0.0f; };
    camera.fly(speed * glm::vec3(key(GLFW_KEY_D) - key(GLFW_KEY_A), key(GLFW_KEY_E) - key(GLFW_KEY_Q),
                                 key(GLFW_KEY_W) - key(GLFW_KEY_S)));
  }
}

void WindowInput::refuse(const RunState& run, const char* why, double now) {
  run.console.say(why);
  notice_.show(why, now);
}

void WindowInput::escape(RunState& run, const Panel& panel, double now, std::uint64_t frame) {
  Settings& settings = run.settings;
  // What a presenter means by Esc comes first: out of full screen, then closing what is open.
  if (settings.fullscreen) {
    settings.fullscreen = false;
    run.console.say("key Esc: full screen off");
  } else if (panel.popup_open()) {
    run.presses.close_lists = true;
  } else if (settings.show_help) {
    settings.show_help = false;
  } else if (now - last_escape_ <= kQuitWindow || (escape_armed_through_ != 0 && frame <= escape_armed_through_)) {
    run.console.say("key Esc: quit");
    window_.request_close();
  } else {
    last_escape_ = now;
    escape_armed_through_ = frame + 1;
    run.console.say("key Esc: press Esc again within a second to quit");
    quit_hint_.show("Esc again within a second quits (Ctrl+Q quits at once)", now, kQuitWindow);
  }
}

void WindowInput::take_keys(RunState& run, const ImGuiLayer& imgui, const Panel& panel, double now,
                            std::uint64_t frame) {
  // The hint stays on screen for as long as a second Esc would quit.
  if (escape_armed_through_ != 0 && frame <= escape_armed_through_) quit_hint_.keep_until(now);
  Settings& settings = run.settings;
  const Console& console = run.console;
  const std::size_t n = window_.take_keys(presses_);
  const bool typing = imgui.typing_text();
  for (std::size_t i = 0; i < n; ++i) {
    const int key = presses_[i].key;
    const bool ctrl = (presses_[i].mods & GLFW_MOD_CONTROL) != 0;
    const auto on_off = [](bool on) { return on ? "on" : "off"; };
    if (key == GLFW_KEY_ESCAPE) {
      escape(run, panel, now, frame);
    } else if (key == GLFW_KEY_Q && ctrl) {
      console.say("key Ctrl+Q: quit");
      window_.request_close();
    } else if (key == GLFW_KEY_F11) {
      settings.fullscreen = !settings.fullscreen;
      console.say(std::string("key F11: full screen ") + on_off(settings.fullscreen));
    } else if (typing || ctrl) {
      continue;
    } else if (key == GLFW_KEY_F1) {
      settings.show_help = !settings.show_help;
    } else if (key == GLFW_KEY_H) {
      settings.show_panel = !settings.show_panel;
      console.say(std::string("key H: panel ") + (settings.show_panel ? "shown" : "hidden"));
    } else if (const int steps = scale_steps(key); steps != 0) {
      const float from = imgui.scale(), to = stepped_ui_scale(from, steps);
      char line[96];
      if (to == from) {
        std::snprintf(line, sizeof line, "key %s: the UI is at its %s size already (%.2fx)", steps > 0 ? "+" : "-",
                      steps > 0 ? "largest" : "smallest", static_cast<double>(to));
        refuse(run, line, now);
      } else {
        settings.ui_scale = to;
        std::snprintf(line, sizeof line, "key %s: UI scale %.2fx", steps > 0 ? "+" : "-", static_cast<double>(to));
        console.say(line);
      }
    } else if (const ToggleKey* toggle = find_toggle(key)) {
      bool& on = settings.*(toggle->setting);
      on = !on;
      console.say(std::string(toggle->said) + on_off(on));
    } else if (const std::string refusal = sorted_picture_refusal(settings, key); !refusal.empty()) {
      refuse(run, refusal.c_str(), now);
    } else if (key == GLFW_KEY_P) {
      set_separate_passes(settings, !settings.separate_passes);
      console.say(std::string("key P: separate passes ") + on_off(settings.separate_passes));
    } else if (key == GLFW_KEY_V) {
      if (settings.separate_passes) {
        refuse(run, (std::string("key V: no wipe: ") + kOneOrderOnly).c_str(), now);
      } else {
        settings.wipe_on = !settings.wipe_on;
        console.say(std::string("key V: wipe ") + on_off(settings.wipe_on));
      }
    } else if (key == GLFW_KEY_C) {
      colours(run, now);
    } else if (key == GLFW_KEY_R) {
      run.presses.reset_camera = true;
      console.say("key R: camera reset");
    } else if (key == GLFW_KEY_N) {
      next_sorter(run, now);
    } else if (key == GLFW_KEY_T) {
      const int next = (static_cast<int>(settings.transparency.mode) + 1) % kTransparencyModes;
      settings.transparency.mode = static_cast<Transparency>(next);
      console.say(std::string("key T: transparency ") + transparency_mode_name(settings.transparency.mode));
    }
  }
}

void WindowInput::colours(RunState& run, double now) {
  Settings& settings = run.settings;
  if (settings.separate_passes) {
    refuse(run, (std::string("key C: the scene's colours only: ") + kOneOrderOnly).c_str(), now);
    return;
  }
  static constexpr const char* kNames[3] = {"scene", "by rank", "by segment"};
  int next = (static_cast<int>(settings.colour) + 1) % 3;
  // By segment colours the sorter's buckets: a sorter without them would paint one flat colour.
  const FramePipeline& pipeline = run.stage.pipeline();
  const bool buckets = pipeline.sorter() && pipeline.sorter()->segments().count > 0;
  if (next == static_cast<int>(ColourMode::Segment) && !buckets) {
    next = static_cast<int>(ColourMode::Scene);
    settings.colour = ColourMode::Scene;
    refuse(run,
           pipeline.on_gpu() ? "key C: colours scene (by segment skipped: this sorter has no buckets or sublists)"
                             : "key C: colours scene (by segment skipped: the CPU sorter has no buckets; a GPU "
                               "sorter's need a CUDA GPU)",
           now);
    return;
  }
  settings.colour = static_cast<ColourMode>(next);
  run.console.say(std::string("key C: colours ") + kNames[next]);
}

void WindowInput::next_sorter(RunState& run, double now) {
  const auto registry = sorter_registry();
  const Backend backend = run.stage.pipeline().on_gpu() ? Backend::Gpu : Backend::Cpu;
  for (std::size_t step = 1; step <= registry.size(); ++step) {
    const std::size_t i = (static_cast<std::size_t>(run.settings.sorter_index) + step) % registry.size();
    if (registry[i].backend != backend || !registry[i].is_available(nullptr)) continue;
    if (static_cast<int>(i) == run.settings.sorter_index) break;
    run.settings.sorter_index = static_cast<int>(i);
    run.settings.options = default_options(registry[i]);
    run.console.say("key N: sorter " + std::string(registry[i].name));
    return;
  }
  refuse(run,
         backend == Backend::Cpu ? "key N: the CPU path has only the CPU sorter (the others need a CUDA GPU)"
                                 : "key N: no other sorter runs here",
         now);
}

}  // namespace depthsort::app
