// The panel's tabs (Sort, Draw, Scene, Timings) and what they are made of: the timing rows, the sort steps' bar.
#include "ui/panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/controls.hpp"
#include "ui/sort_charts.hpp"
#include "ui/transparency_section.hpp"
#include "ui/ui_text.hpp"

namespace depthsort::app {

namespace {

// Greyed text that says why the controls above it cannot act, readable (not the faint disabled grey).
void reason(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.75f, 0.35f, 1.0f));
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

// A heading between groups of controls within a tab.
void section(const char* text) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1.0f), "%s", text);
  ImGui::Separator();
}

// A tooltip over the last item, greyed or not.
void tooltip(const char* text) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text);
}

// A series' recent samples as they are shown: "not run" where the phase did no work (no samples, or
// none above what three decimals show).
bool ran(const TimingSeries::Stats& st) { return st.samples > 0 && st.max >= 0.0005f; }

}  // namespace

void Panel::timing_rows(const Timings& timings, const char* group, double now, UiText& words) {
  const float plot_height = 1.8f * ImGui::GetTextLineHeight();
  for (const TimingSeries& s : timings.all()) {
    if (s.group != group) continue;
    const TimingSeries::Stats st = timings.recent(s, now);
    ImGui::PushID(s.label.c_str());
    if (!ran(st)) {
      ImGui::TextDisabled("%-12s not run", s.name.c_str());
      ImGui::PopID();
      continue;
    }
    // The figures on a line of their own: a plot's line never crosses them.
    ImGui::Text("%-12s %7.3f ms  (%.3f..%.3f)", s.name.c_str(), static_cast<double>(st.mean),
                static_cast<double>(st.min), static_cast<double>(st.max));
    words.mark("timing-figures");
    const int n = s.ordered(plot_.data());
    const float width = ImGui::GetContentRegionAvail().x;
    const float left = ImGui::GetCursorScreenPos().x;
    ImGui::PlotLines("##history", plot_.data(), n, 0, nullptr, 0.0f, st.max * 1.3f, ImVec2(width, plot_height));
    words.mark("timing-plot");
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

void Panel::sort_steps(ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now) {
  section("sort steps (last-second means)");
  // The live bar: the last second's mean of each step of the frame's (first) sort (the newest
  // frame's, where a frame takes longer).
  StepBar& bar = live_[0];
  bar.sorter = "this frame";  // assign reuses the string's storage after the first frame
  std::size_t steps = 0;
  bar.total_ms = 0;
  for (const TimingSeries& s : timings.all()) {
    if (s.group != "sort") continue;
    if (steps == bar.steps.size()) bar.steps.emplace_back();  // grows once, to the sorter's step count
    TimedStep& step = bar.steps[steps++];
    step.name = s.name;
    step.ms = timings.recent(s, now).mean;
    bar.total_ms += step.ms;
  }
  bar.steps.resize(steps);
  if (steps > 0)
    draw_step_bars(live_);
  else
    ImGui::TextDisabled("no sort in the last second (sorting off or the order frozen)");
  // On the CPU path the GPU-only charts are shown, greyed, with the reason in the line itself.
  if (!info.gpu_path) ImGui::BeginDisabled();
  if (ImGui::Button(info.gpu_path ? "compare all" : "compare all: needs a CUDA GPU")) presses.compare_all = true;
  if (!info.gpu_path) ImGui::EndDisabled();
  tooltip("every GPU sorter sorts this frame's keys; their steps side by side");
  if (!info.compare_bars.empty()) draw_step_bars(info.compare_bars);
  const bool buckets = info.segments > 0 || info.histogram;
  if (!buckets) ImGui::BeginDisabled();
  if (ImGui::Button(buckets         ? "bucket sizes"
                    : info.gpu_path ? "bucket sizes: this sorter has none"
                                    : "bucket sizes: needs a CUDA GPU"))
    presses.bucket_sizes = true;
  if (!buckets) ImGui::EndDisabled();
  tooltip(buckets ? "the sizes of the last sort's buckets or sublists"
                  : "this sorter has no buckets or sublists (the GPU sorters of the papers have)");
  if (info.histogram) draw_size_histogram(*info.histogram, info.histogram_segments, info.segment_kind);
}

void Panel::sort_tab(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings,
                     double now, UiText& words) {
  const auto registry = sorter_registry();
  const SorterInfo& current = registry[static_cast<std::size_t>(state.sorter_index)];
  const bool open = ImGui::BeginCombo("sorter", std::string(current.name).c_str());
  words.mark("sorter-list");
  if (open) {
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
  if (!info.gpu_path)
    reason(
        "CPU path: the GPU sorters and their options (shuffle, bucket counts), compare all and the bucket sizes "
        "need a CUDA GPU");
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
  ImGui::Checkbox("sort (O)", &state.sort);
  ImGui::SameLine();
  ImGui::Checkbox("freeze order (Space)", &state.freeze);
  ImGui::SliderInt("check every", &state.check_every, 1, 600, "%d frames");
  tooltip("frames between the checks that the sorted order is back to front");
  ImGui::Checkbox("coherent (start from last frame's order)", &state.coherent);
  tooltip("depths computed in last frame's sorted order: the sorter gets nearly sorted input");
  // The fused order (the GPU path; the separate passes sort with the sorter).
  const bool fused_here = info.gpu_path && !state.separate_passes;
  if (!fused_here) ImGui::BeginDisabled();
  bool fused = state.order == OrderMethod::Fused;
  if (ImGui::Checkbox("fused order (depth-bucket)", &fused))
    state.order = fused ? OrderMethod::Fused : OrderMethod::Sorter;
  if (!fused_here) ImGui::EndDisabled();
  tooltip(fused_here
              ? "depthsort's own order: the depths computed inside a sample sort's first pass with the last "
                "frame's splitters, the ids written straight into the draw order (the sorter above is not used).\n"
                "On an H200, 5M triangles + 10M particles: 0.57 ms a frame orbiting, cub-radix 0.62; on a "
                "fly-through cub-radix is cheaper (0.65 against 0.68)"
          : info.gpu_path ? "the separate passes sort with the sorter"
                          : "the fused order needs a CUDA GPU");
  sort_steps(presses, info, timings, now);
}

void Panel::draw_tab(Settings& state, const PanelReadout& info) {
  section("transparency (T)");
  transparency_section(state, info);
  section("the sorted picture");
  // The other modes draw no order: the controls of the sorted picture wait, greyed, with the reason.
  const bool other_mode = state.transparency.mode != Transparency::Sorted;
  if (other_mode) {
    reason("these controls change the sorted mode's picture; this mode draws no order");
    ImGui::BeginDisabled();
  }
  bool separate = state.separate_passes;
  if (ImGui::Checkbox("separate passes (P): meshes, then particles (wrong)", &separate))
    set_separate_passes(state, separate);
  tooltip("off: one back-to-front order of every triangle and particle, one draw");
  if (state.separate_passes)
    reason(
        "separate passes draw two orders in the scene's colours: colours by rank or segment and the wipe show "
        "the one order (P turns the passes off)");
  if (state.separate_passes) ImGui::BeginDisabled();
  const bool expanded = state.draw_path == DrawPath::Expanded;
  ImGui::Text("draw path: %s", draw_path_name(state.draw_path));
  tooltip(expanded ? "3 ready vertices a primitive, written after the sort (--draw-path)"
                   : "the vertex shader reads order, triangle list and vertices (--draw-path)");
  if (expanded) ImGui::BeginDisabled();  // its sprites are always triangles
  ImGui::Checkbox("particles as one triangle (3 vertices, not 6)", &state.triangle_sprites);
  if (expanded) ImGui::EndDisabled();
  ImGui::TextUnformatted("colours (C):");
  int colour = static_cast<int>(state.colour);
  ImGui::RadioButton("scene", &colour, static_cast<int>(ColourMode::Scene));
  ImGui::SameLine();
  ImGui::RadioButton("by rank", &colour, static_cast<int>(ColourMode::Rank));
  tooltip("each primitive coloured by its place in the sorted order: far blue to near red, on both sides of the wipe");
  ImGui::SameLine();
  // By segment shows a sorter's buckets: greyed where the sorter has none (the CPU sorter).
  const bool segments = info.segments > 0 || info.gpu_path;
  if (!segments) ImGui::BeginDisabled();
  ImGui::RadioButton("by segment", &colour, static_cast<int>(ColourMode::Segment));
  if (!segments) ImGui::EndDisabled();
  tooltip(segments ? "each primitive in the colour of the bucket or sublist the sorter put it in"
                   : "the CPU sorter has no buckets or sublists: a GPU sorter's buckets need a CUDA GPU");
  state.colour = static_cast<ColourMode>(colour);
  if (!segments)
    reason("by segment: the CPU sorter has no buckets (a GPU sorter's need a CUDA GPU)");
  else if (state.colour == ColourMode::Segment && info.segments == 0)
    reason("this sorter has no buckets or sublists: one colour");
  ImGui::Checkbox("wipe (V): unsorted | sorted", &state.wipe_on);
  if (state.wipe_on) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##wipe", &state.wipe, 0.0f, 1.0f);
  }
  if (state.separate_passes) ImGui::EndDisabled();
  if (other_mode) ImGui::EndDisabled();
  ImGui::SliderFloat("opacity", &state.opacity, 0.02f, 1.0f);
  ImGui::Checkbox("lighting", &state.lighting);
  section("presenting");
  ImGui::Checkbox("state line over the picture (L)", &state.state_line);
  bool auto_scale = state.ui_scale <= 0.0f;
  if (ImGui::Checkbox("UI size from the window", &auto_scale)) state.ui_scale = auto_scale ? 0.0f : info.ui_scale;
  if (!auto_scale) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##ui scale", &state.ui_scale, 0.75f, 4.0f, "%.2fx");
  }
  ImGui::TextDisabled("+ and - change the UI's size");
}

void Panel::scene_tab(Settings& state, ButtonPresses& presses, UiText& words) {
  ImGui::Checkbox("simulate particles", &state.simulate);
  // The counts as built (the run fills them in); - and + halve and double, and rebuild at once.
  int particles = static_cast<int>(state.scene.particles.value_or(0));
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000000").x + 2 * ImGui::GetStyle().FramePadding.x);
  ImGui::InputInt("##particles", &particles, 0, 0);
  ImGui::SameLine();
  if (ImGui::Button("-##particles")) {
    particles /= 2;
    presses.rebuild_scene = true;
  }
  words.mark("particles-minus");
  ImGui::SameLine();
  if (ImGui::Button("+##particles")) {
    particles = particles == 0 ? 1024 : std::min(particles, 1 << 29) * 2;
    presses.rebuild_scene = true;
  }
  words.mark("particles-plus");
  ImGui::SameLine();
  ImGui::TextUnformatted("particles");
  tooltip("- halves, + doubles (and the scene is rebuilt); type a count and press rebuild scene");
  state.scene.particles = static_cast<std::size_t>(std::max(particles, 0));
  if (state.scene.kind == SceneKind::Knot && state.scene.meshes.empty() && state.scene.triangles) {
    int triangles = static_cast<int>(*state.scene.triangles);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000000").x + 2 * ImGui::GetStyle().FramePadding.x);
    ImGui::InputInt("knot triangles", &triangles, 0, 0);
    state.scene.triangles = static_cast<std::size_t>(std::max(triangles, 64));
  }
  if (ImGui::Button("rebuild scene")) presses.rebuild_scene = true;
  section("camera");
  int mode = state.camera_mode == CameraMode::Orbit ? 0 : 1;
  ImGui::RadioButton("orbit (drag, wheel)", &mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("fly (drag, WASD QE)", &mode, 1);
  state.camera_mode = mode == 0 ? CameraMode::Orbit : CameraMode::Fly;
  if (ImGui::Button("reset (R)")) presses.reset_camera = true;
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

void Panel::timings_tab(const Settings& state, const PanelReadout& info, const Timings& timings, double now,
                        UiText& words) {
  if (!info.slow_frame.empty()) wrapped_note(info.slow_frame);
  // Wrapped: the legend is cut at the edge of a narrow panel otherwise.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped(
      "ms: the last second's mean (min..max), or the last frame's where a frame takes longer; frame "
      "phases %s",
      info.gpu_path ? "by CUDA events and GL timer queries, read back late" : "by the host clock");
  ImGui::PopStyleColor();
  timing_rows(timings, "frame", now, words);
  section(state.separate_passes ? "sort steps (mesh)" : "sort steps (every primitive, one order)");
  timing_rows(timings, "sort", now, words);
  if (state.separate_passes) {
    section("sort steps (particles)");
    timing_rows(timings, "particle sort", now, words);
  }
}

}  // namespace depthsort::app
