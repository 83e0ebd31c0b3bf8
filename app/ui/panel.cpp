#include "ui/panel.hpp"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>

#include "depthsort/host/count_text.hpp"
#include "ui/controls.hpp"
#include "platform/stop_signal.hpp"
#include "ui/sort_charts.hpp"
#include "ui/transparency_section.hpp"

namespace depthsort::app {

ImGuiLayer::ImGuiLayer(GLFWwindow* window) : window_(window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini dropped in the working folder
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450 core");
}

// Headless (--panel): no platform backend; the display size and the clock are set by hand and
// the OpenGL3 backend draws into whatever framebuffer is bound (the offscreen target).
ImGuiLayer::ImGuiLayer(int width, int height) : width_(width), height_(height) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
    ImGui::DestroyContext();
    throw std::runtime_error("--panel: the ImGui OpenGL3 backend could not start on this GL context");
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (window_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  if (window_) {
    ImGui_ImplGlfw_NewFrame();
    // A window destroyed from outside in the middle of a frame leaves the backend's size reads
    // unanswered (GLFW returns what its stack held: any size, negative or huge); the frame loop
    // stops after this frame, which draws no panel then. The X error those reads raise has
    // reached the handler by now (they wait for the server's answer).
    ImGuiIO& io = ImGui::GetIO();
    if (stop_signal() == kWindowGone || !(io.DisplaySize.x >= 0.0f) || !(io.DisplaySize.y >= 0.0f)) {
      io.DisplaySize = ImVec2(0.0f, 0.0f);
      io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    }
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui::NewFrame();
}

void ImGuiLayer::end_frame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool ImGuiLayer::wants_mouse() const { return ImGui::GetIO().WantCaptureMouse; }
bool ImGuiLayer::wants_keyboard() const { return ImGui::GetIO().WantCaptureKeyboard; }

void Panel::timing_rows(const Timings& timings, const char* group, double now) {
  for (const TimingSeries& s : timings.all()) {
    if (s.group != group) continue;
    const TimingSeries::Stats st = s.last_second(now);
    const int n = s.ordered(plot_.data());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "%-10s %7.3f ms  (%.3f..%.3f)", s.name.c_str(), static_cast<double>(st.mean),
                  static_cast<double>(st.min), static_cast<double>(st.max));
    ImGui::PushID(s.label.c_str());
    const float width = ImGui::GetContentRegionAvail().x;
    const float left = ImGui::GetCursorScreenPos().x;
    ImGui::PlotLines("##history", plot_.data(), n, 0, overlay, 0.0f, st.max > 0 ? st.max * 1.3f : 1.0f,
                     ImVec2(width, 34));
    // The quantity, its unit and the sample's age in place of ImGui's bare "index: value".
    if (n > 0 && ImGui::IsItemHovered()) {
      const float t = std::clamp((ImGui::GetIO().MousePos.x - left) / std::max(width, 1.0f), 0.0f, 0.9999f);
      const int i = std::min(static_cast<int>(t * static_cast<float>(n - 1) + 0.5f), n - 1);
      const int back = n - 1 - i;  // 0: the newest
      const int slot = (s.head - 1 - back + 2 * TimingSeries::kHistory) % TimingSeries::kHistory;
      ImGui::SetTooltip("%s: %.3f ms, %.1f s ago (frame %llu of the plot's last %d)", s.label.c_str(),
                        static_cast<double>(plot_[static_cast<std::size_t>(i)]),
                        now - s.at[static_cast<std::size_t>(slot)],
                        static_cast<unsigned long long>(s.last_frame - static_cast<std::uint64_t>(back)), n);
    }
    ImGui::PopID();
  }
}

void Panel::sort_steps_section(ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now) {
  if (!ImGui::CollapsingHeader("Sort steps and buckets", ImGuiTreeNodeFlags_DefaultOpen)) return;
  // The live bar: the last second's mean of each step of the frame's (first) sort.
  StepBar& bar = live_[0];
  bar.sorter = "this frame";  // assign reuses the string's storage after the first frame
  std::size_t steps = 0;
  bar.total_ms = 0;
  for (const TimingSeries& s : timings.all()) {
    if (s.group != "sort") continue;
    if (steps == bar.steps.size()) bar.steps.emplace_back();  // grows once, to the sorter's step count
    TimedStep& step = bar.steps[steps++];
    step.name = s.name;
    step.ms = s.last_second(now).mean;
    bar.total_ms += step.ms;
  }
  bar.steps.resize(steps);
  if (steps > 0) draw_step_bars(live_);
  // On the CPU path the GPU-only charts are shown, greyed, with the reason in the line itself.
  if (!info.gpu_path) ImGui::BeginDisabled();
  if (ImGui::Button(info.gpu_path ? "compare all" : "compare all: needs a CUDA GPU")) presses.compare_all = true;
  if (!info.gpu_path) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("every GPU sorter sorts this frame's keys; their steps side by side");
  if (!info.compare_bars.empty()) draw_step_bars(info.compare_bars);
  const bool buckets = info.segments > 0 || info.histogram;
  if (!buckets) ImGui::BeginDisabled();
  if (ImGui::Button(buckets         ? "bucket sizes"
                    : info.gpu_path ? "bucket sizes: no buckets"
                                    : "bucket sizes: needs a CUDA GPU"))
    presses.bucket_sizes = true;
  if (!buckets) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(buckets ? "the sizes of the last sort's buckets or sublists"
                              : "this sorter has no buckets or sublists (the GPU sorters of the papers have)");
  if (info.histogram) draw_size_histogram(*info.histogram, info.histogram_segments, info.segment_kind);
}

void Panel::draw(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings,
                 double now) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(400, std::max(200.0f, ImGui::GetIO().DisplaySize.y - 20)), ImGuiCond_FirstUseEver);
  ImGui::Begin("depthsort");
  keep_inside();
  popup_open_ = false;
  ImGui::TextWrapped("%.*s", static_cast<int>(info.device.size()), info.device.data());
  ImGui::TextWrapped("GL: %.*s", static_cast<int>(info.gl.size()), info.gl.data());
  ImGui::TextWrapped("%.*s", static_cast<int>(info.scene.size()), info.scene.data());
  if (!info.error.empty())
    ImGui::TextColored(ImVec4(1.0f, 0.3f, 0.3f, 1.0f), "%.*s", static_cast<int>(info.error.size()), info.error.data());
  if (!info.notes.empty()) {  // wrapped: a note cut at the panel's edge says nothing
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
    ImGui::TextWrapped("%.*s", static_cast<int>(info.notes.size()), info.notes.data());
    ImGui::PopStyleColor();
  }
  if (info.fps > 0)
    ImGui::Text("%.1f fps (%.1f ms a frame, over the last second)", static_cast<double>(info.fps),
                1000.0 / static_cast<double>(info.fps));
  if (info.gpu_path)
    ImGui::Text("GPU memory: %s used of %s; sorter workspace %s",
                byte_text(info.device_bytes_used, ByteUnits::MiB).c_str(),
                byte_text(info.device_bytes_total, ByteUnits::MiB).c_str(),
                byte_text(info.workspace_bytes, ByteUnits::MiB).c_str());

  // Correctness light.
  if (info.check) {
    const CheckState& c = *info.check;
    ImVec4 colour(0.5f, 0.5f, 0.5f, 1);
    char text[200] = "order check: off (sorting off: the submission order is drawn)";
    if (state.sort && state.freeze)
      std::snprintf(text, sizeof text, "order check: paused (order frozen; the last one checked was at frame %llu)",
                    static_cast<unsigned long long>(c.frame));
    if (state.sort && !state.freeze) {
      switch (c.light) {
        case CheckLight::None:
        case CheckLight::Pending:
          std::snprintf(text, sizeof text, "order check (is the sorted order back to front?): pending");
          break;
        case CheckLight::Ok:
          colour = ImVec4(0.2f, 0.9f, 0.3f, 1);
          std::snprintf(text, sizeof text,
                        "order check: OK, frame %llu's sorted order is back to front (%llu checks, %llu failed)",
                        static_cast<unsigned long long>(c.frame), static_cast<unsigned long long>(c.checks),
                        static_cast<unsigned long long>(c.failures));
          break;
        case CheckLight::Fail:
          colour = ImVec4(1.0f, 0.2f, 0.2f, 1);
          if (state.separate_passes)
            std::snprintf(text, sizeof text, "ORDER CHECK FAILED at frame %llu: %u mesh, %u particle positions wrong",
                          static_cast<unsigned long long>(c.frame), c.bad_mesh, c.bad_particles);
          else
            std::snprintf(text, sizeof text, "ORDER CHECK FAILED at frame %llu: %u positions wrong",
                          static_cast<unsigned long long>(c.frame), c.bad_mesh);
          break;
      }
    }
    // The light: a filled circle drawn with the draw list (the default font has no such glyph).
    const float r = ImGui::GetTextLineHeight() * 0.45f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r, p.y + ImGui::GetTextLineHeight() * 0.5f), r,
                                                ImGui::GetColorU32(colour));
    ImGui::Dummy(ImVec2(2 * r, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
  }

  // A headless screenshot is for the sort charts: they come first, before the long option list
  // that would push them off a 720-pixel image; a transparency mode or the difference view, when
  // asked for, before them.
  const bool transparency_first =
      info.headless && (state.transparency.mode != Transparency::Sorted || state.transparency.difference);
  if (transparency_first) transparency_section(state, info);
  if (info.headless) sort_steps_section(presses, info, timings, now);

  if (ImGui::CollapsingHeader("Sorting", ImGuiTreeNodeFlags_DefaultOpen)) {
    const auto registry = sorter_registry();
    const SorterInfo& current = registry[static_cast<std::size_t>(state.sorter_index)];
    if (ImGui::BeginCombo("sorter", std::string(current.name).c_str())) {
      popup_open_ = true;
      if (presses.close_lists) {  // Esc
        ImGui::CloseCurrentPopup();
        presses.close_lists = false;
      }
      for (std::size_t i = 0; i < registry.size(); ++i) {
        std::string why;
        bool usable = registry[i].is_available(&why);
        // The CPU path runs only the CPU sorter, even where a GPU exists (--cpu).
        if (usable && !info.gpu_path && registry[i].backend == Backend::Gpu) {
          usable = false;
          why = "this run is on the CPU path: " + std::string(info.cpu_reason);
        }
        if (!usable) ImGui::BeginDisabled();
        const std::string item =
            usable ? std::string(registry[i].name)
                   : std::string(registry[i].name) +
                         (registry[i].backend == Backend::Gpu ? "  (needs a CUDA GPU)" : "  (cannot run here)");
        if (ImGui::Selectable(item.c_str(), static_cast<int>(i) == state.sorter_index)) {
          state.sorter_index = static_cast<int>(i);
          state.options = default_options(registry[i]);
        }
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
          ImGui::SetTooltip("%s\n%s%s", std::string(registry[i].origin).c_str(),
                            std::string(registry[i].description).c_str(), usable ? "" : ("\n" + why).c_str());
        if (!usable) ImGui::EndDisabled();
      }
      ImGui::EndCombo();
    }
    ImGui::TextWrapped("%.*s", static_cast<int>(current.origin.size()), current.origin.data());
    if (!info.gpu_path) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("CPU path: the GPU sorters and their options (shuffle, bucket counts), compare all and "
                         "the bucket sizes need a CUDA GPU");
      ImGui::PopStyleColor();
    }
    for (const OptionSpec& spec : registry[static_cast<std::size_t>(state.sorter_index)].options) {
      const std::string name(spec.name);
      int& value = state.options[name];
      if (spec.is_flag()) {
        bool on = value != 0;
        if (ImGui::Checkbox(name.c_str(), &on)) value = on ? 1 : 0;
      } else {
        ImGui::SliderInt(name.c_str(), &value, spec.min_value, spec.max_value);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(spec.help).c_str());
    }
    ImGui::Checkbox("sort", &state.sort);
    ImGui::SameLine();
    ImGui::Checkbox("freeze order", &state.freeze);
    ImGui::SliderInt("check every", &state.check_every, 1, 600, "%d frames");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("frames between the checks that the sorted order is back to front");
    ImGui::Checkbox("coherent (start from last frame's order)", &state.coherent);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("depths computed in last frame's sorted order: the sorter gets nearly sorted input");
    // The fused order (the GPU path; the separate passes sort with the sorter).
    const bool fused_here = info.gpu_path && !state.separate_passes;
    if (!fused_here) ImGui::BeginDisabled();
    bool fused = state.order == OrderMethod::Fused;
    if (ImGui::Checkbox("fused order (depth-bucket)", &fused)) state.order = fused ? OrderMethod::Fused : OrderMethod::Sorter;
    if (!fused_here) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", fused_here ? "depthsort's own order: the depths computed inside a sample sort's first "
                                           "pass with the last frame's splitters, the ids written straight into the "
                                           "draw order (the sorter above is not used)"
                                         : info.gpu_path ? "the separate passes sort with the sorter"
                                                         : "the fused order needs a CUDA GPU");
  }

  if (ImGui::CollapsingHeader("Drawing", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Checkbox("separate passes (meshes, then particles: wrong)", &state.separate_passes);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("off: one back-to-front order of every triangle and particle, one draw");
    if (state.separate_passes) ImGui::BeginDisabled();
    const bool expanded = state.draw_path == DrawPath::Expanded;
    ImGui::Text("draw path: %s", draw_path_name(state.draw_path));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(expanded ? "3 ready vertices a primitive, written after the sort (--draw-path)"
                                 : "the vertex shader reads order, triangle list and vertices (--draw-path)");
    if (expanded) ImGui::BeginDisabled();  // its sprites are always triangles
    ImGui::Checkbox("particles as one triangle (3 vertices, not 6)", &state.triangle_sprites);
    if (expanded) ImGui::EndDisabled();
    int colour = static_cast<int>(state.colour);
    ImGui::RadioButton("colours", &colour, static_cast<int>(ColourMode::Scene));
    ImGui::SameLine();
    ImGui::RadioButton("by rank", &colour, static_cast<int>(ColourMode::Rank));
    ImGui::SameLine();
    ImGui::RadioButton("by segment", &colour, static_cast<int>(ColourMode::Segment));
    state.colour = static_cast<ColourMode>(colour);
    if (state.colour == ColourMode::Segment && info.segments == 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped(info.gpu_path
                             ? "this sorter has no buckets or sublists: one colour"
                             : "the CPU sorter has no buckets or sublists: one colour (by rank shows the order)");
      ImGui::PopStyleColor();
    }
    ImGui::Checkbox("wipe: unsorted | sorted", &state.wipe_on);
    if (state.wipe_on) {
      ImGui::SameLine();
      ImGui::SliderFloat("##wipe", &state.wipe, 0.0f, 1.0f);
    }
    if (state.separate_passes) ImGui::EndDisabled();
  }

  if (!transparency_first) transparency_section(state, info);

  if (!info.headless) sort_steps_section(presses, info, timings, now);

  if (info.headless) ImGui::SetNextItemOpen(false, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::SliderFloat("opacity", &state.opacity, 0.02f, 1.0f);
    ImGui::Checkbox("lighting", &state.lighting);
    ImGui::SameLine();
    ImGui::Checkbox("simulate particles", &state.simulate);
    // The counts as built (the run fills them in), edited as ImGui's int fields.
    int particles = static_cast<int>(state.scene.particles.value_or(0));
    ImGui::InputInt("particles", &particles, 1000, 100000);
    state.scene.particles = static_cast<std::size_t>(std::max(particles, 0));
    if (state.scene.kind == SceneKind::Knot && state.scene.meshes.empty() && state.scene.triangles) {
      int triangles = static_cast<int>(*state.scene.triangles);
      ImGui::InputInt("knot triangles", &triangles, 10000, 1000000);
      state.scene.triangles = static_cast<std::size_t>(std::max(triangles, 64));
    }
    if (ImGui::Button("rebuild scene")) presses.rebuild_scene = true;
  }

  if (info.headless) ImGui::SetNextItemOpen(false, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) {
    int mode = state.camera_mode == CameraMode::Orbit ? 0 : 1;
    ImGui::RadioButton("orbit (drag, wheel)", &mode, 0);
    ImGui::SameLine();
    ImGui::RadioButton("fly (drag, WASD QE)", &mode, 1);
    state.camera_mode = mode == 0 ? CameraMode::Orbit : CameraMode::Fly;
    if (ImGui::Button("reset")) presses.reset_camera = true;
    for (int i = 0; i < 3; ++i) {
      ImGui::SameLine();
      char label[32];
      std::snprintf(label, sizeof label, "view %d", i + 1);
      if (ImGui::Button(label)) presses.load_view = i;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("load (right-click: save the current view)");
      if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) presses.save_view = i;
    }
    ImGui::Checkbox("vsync", &state.vsync);
  }

  if (ImGui::CollapsingHeader("Timings (ms: last-second mean, min..max)", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("frame phases%s",
                        info.gpu_path ? " (CUDA events / GL timer queries, read back late)" : " (host clock)");
    timing_rows(timings, "frame", now);
    ImGui::TextDisabled(state.separate_passes ? "sort steps (mesh)" : "sort steps (every primitive, one order)");
    timing_rows(timings, "sort", now);
    if (state.separate_passes) {
      ImGui::TextDisabled("sort steps (particles)");
      timing_rows(timings, "particle sort", now);
    }
    ImGui::PopTextWrapPos();
  }
  right_edge_ = ImGui::IsWindowCollapsed() ? 0.0f : ImGui::GetWindowPos().x + ImGui::GetWindowSize().x;
  ImGui::End();
}

float Panel::covered_left(int width, bool shown) const noexcept {
  if (!shown || width <= 0) return 0.0f;
  const float covered = right_edge_ / static_cast<float>(width);
  return covered > 0.0f && covered < 0.8f ? covered : 0.0f;
}

void Panel::keep_inside() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 pos = ImGui::GetWindowPos();
  ImVec2 size = ImGui::GetWindowSize();
  if (shrunk_) {  // give back the size it had, as far as the display allows
    size = ImVec2(std::min(restore_size_.x, display.x), std::min(restore_size_.y, display.y));
    shrunk_ = size.x < restore_size_.x || size.y < restore_size_.y;
    ImGui::SetWindowSize(size);
  } else if (size.x > display.x || size.y > display.y) {
    restore_size_ = size;
    shrunk_ = true;
    size = ImVec2(std::min(size.x, display.x), std::min(size.y, display.y));
    ImGui::SetWindowSize(size);
  }
  // ImGui keeps a minimum size, so the size read back may still exceed a tiny display: the top
  // left corner (title bar, left edge) is what stays inside then.
  const ImVec2 inside(std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - size.x)),
                      std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - size.y)));
  if (inside.x != pos.x || inside.y != pos.y) ImGui::SetWindowPos(inside);
}

void Panel::draw_help(bool& open) {
  if (!open) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  ImGui::Begin("controls (F1 or Esc closes)", &open,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
  if (ImGui::BeginTable("controls", 2)) {
    for (const ControlHelp& c : kControls) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.control);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace depthsort::app
