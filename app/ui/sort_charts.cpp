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
  const float height = ImGui::GetTextLineHeight();
  const ImGuiStyle& style = ImGui::GetStyle();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const StepBar& bar : bars) {
    // The sorter and its total on a line of their own, the bar below at the full width: the
    // figures never run into the bar, whatever the font's size.
    if (bar.error.empty())
      ImGui::Text("%s  %.3f ms", bar.sorter.c_str(), static_cast<double>(bar.total_ms));
    else
      ImGui::Text("%s  --", bar.sorter.c_str());
    if (!bar.error.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", bar.error.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = std::max(1.0f, ImGui::GetContentRegionAvail().x);
    ImGui::Dummy(ImVec2(width, height));
    if (longest <= 0) continue;
    float x = origin.x;
    for (const TimedStep& step : bar.steps) {
      const float w = width * step.ms / longest;
      const ImVec2 a(x, origin.y), b(x + w, origin.y + height);
      draw->AddRectFilled(a, b, step_colour(step.name));
      if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("%s: %s %.3f ms", bar.sorter.c_str(), step.name.c_str(), static_cast<double>(step.ms));
      x += w;
    }
    // The legend: each step's colour, name and time, as many to a line as fit.
    const float right = ImGui::GetCursorScreenPos().x + width;
    bool first = true;
    for (const TimedStep& step : bar.steps) {
      char entry[96];
      std::snprintf(entry, sizeof entry, "%s %.3f", step.name.c_str(), static_cast<double>(step.ms));
      const float entry_width = height + style.ItemInnerSpacing.x + ImGui::CalcTextSize(entry).x;
      if (!first) {
        ImGui::SameLine(0.0f, 2.0f * style.ItemSpacing.x);
        if (ImGui::GetCursorScreenPos().x + entry_width > right) ImGui::NewLine();
      }
      first = false;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float box = 0.8f * height, inset = 0.1f * height;
      draw->AddRectFilled(ImVec2(p.x, p.y + inset), ImVec2(p.x + box, p.y + inset + box), step_colour(step.name));
      ImGui::Dummy(ImVec2(height, height));
      ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
      ImGui::TextUnformatted(entry);
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
      "##sizes", [](void* data, int i) { return static_cast<float>(static_cast<const std::uint32_t*>(data)[i]); },
      const_cast<std::uint32_t*>(histogram.counts.data()), static_cast<int>(histogram.counts.size()), 0, overlay, 0.0f,
      static_cast<float>(tallest) * 1.15f, ImVec2(ImGui::GetContentRegionAvail().x, 60));
}

}  // namespace depthsort::app
