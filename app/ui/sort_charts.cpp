#include "ui/sort_charts.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace depthsort::app {
namespace {

// A colour per step name that stays the same across sorters and frames (FNV-1a of the name into
// the hue), so "sort" or "reposition" reads the same in every bar.
ImU32 step_colour(std::string_view name) {
  std::uint32_t hash = 2166136261u;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  float r = 0, g = 0, b = 0;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(hash % 360u) / 360.0f, 0.55f, 0.9f, r, g, b);
  return ImGui::GetColorU32(ImVec4(r, g, b, 1.0f));
}

}  // namespace

void draw_step_bars(std::span<const StepBar> bars) {
  float longest = 0;
  for (const StepBar& bar : bars) longest = std::max(longest, bar.total_ms);
  const float label_width = ImGui::CalcTextSize("satish-radix 00.000 ms ").x;
  const float height = ImGui::GetTextLineHeight();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const StepBar& bar : bars) {
    char label[96];
    if (bar.error.empty())
      std::snprintf(label, sizeof label, "%-12s %6.3f ms", bar.sorter.c_str(), static_cast<double>(bar.total_ms));
    else
      std::snprintf(label, sizeof label, "%-12s --", bar.sorter.c_str());
    ImGui::TextUnformatted(label);
    if (!bar.error.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", bar.error.c_str());
    ImGui::SameLine(label_width);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = std::max(1.0f, ImGui::GetContentRegionAvail().x);
    ImGui::Dummy(ImVec2(width, height));
    if (longest <= 0) continue;
    float x = origin.x;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (const TimedStep& step : bar.steps) {
      const float w = width * step.ms / longest;
      const ImVec2 a(x, origin.y), b(x + w, origin.y + height);
      draw->AddRectFilled(a, b, step_colour(step.name));
      if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("%s: %s %.3f ms", bar.sorter.c_str(), step.name.c_str(), static_cast<double>(step.ms));
      x += w;
    }
  }
}

void draw_size_histogram(const SizeHistogram& histogram, std::size_t segments, const char* kind) {
  if (histogram.counts.empty() || segments == 0) {
    ImGui::TextDisabled("no %ss: this sorter does not split its input", kind);
    return;
  }
  std::uint32_t tallest = 0;
  for (const std::uint32_t c : histogram.counts) tallest = std::max(tallest, c);
  char overlay[128];
  std::snprintf(overlay, sizeof overlay, "%zu %ss, largest %u pairs; bins of %u", segments, kind, histogram.largest,
                histogram.bin_width);
  ImGui::PlotHistogram(
      "##sizes",
      [](void* data, int i) { return static_cast<float>(static_cast<const std::uint32_t*>(data)[i]); },
      const_cast<std::uint32_t*>(histogram.counts.data()), static_cast<int>(histogram.counts.size()), 0, overlay,
      0.0f, static_cast<float>(tallest) * 1.15f, ImVec2(ImGui::GetContentRegionAvail().x, 60));
}

}  // namespace depthsort::app
