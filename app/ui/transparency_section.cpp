#include "ui/transparency_section.hpp"

#include <imgui.h>

#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

namespace {

struct ModeHelp {
  const char* label;
  const char* tooltip;
};
constexpr ModeHelp kModes[kTransparencyModes] = {
    {"sorted primitives",
     "every triangle and particle in one back-to-front order by its centre's depth, blended "
     "in that order: exact unless primitives cross or overlap in a cycle"},
    {"unsorted", "submission order, no depth or sort step: what sorting removes"},
    {"weighted blended OIT",
     "McGuire & Bavoil 2013: one pass into weighted sums (no order), one composite; "
     "approximate, worst where alpha is high"},
    {"per-pixel reference",
     "every fragment kept in per-pixel lists (an A-buffer), each pixel's sorted by depth "
     "and blended: exact, and the costliest"},
};

}  // namespace

void transparency_section(Settings& state, const PanelReadout& info) {
  int mode = static_cast<int>(state.transparency.mode);
  for (int i = 0; i < kTransparencyModes; ++i) {
    if (i % 2 == 1) ImGui::SameLine();
    ImGui::RadioButton(kModes[i].label, &mode, i);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s (--transparency %s; key T)", kModes[i].tooltip,
                        transparency_mode_name(static_cast<Transparency>(i)));
  }
  state.transparency.mode = static_cast<Transparency>(mode);
  ImGui::Checkbox("difference view (against the reference)", &state.transparency.difference);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "the mode and the per-pixel reference drawn offscreen; pixels differing by more than %d/255 in "
        "a channel in orange (small) to yellow (64/255 and more), the rest in dim grey (--difference)",
        kDifferenceTolerance);
  if (const TransparencyStats* t = info.transparency) {
    if (state.transparency.difference && t->difference)
      ImGui::TextWrapped("%u pixels (%.3f %%) differ by more than %d/255; largest %u/255%s", t->differing_pixels,
                         100.0 * t->differing_share(), kDifferenceTolerance, t->largest_difference,
                         t->not_compared > 0 ? "; some not compared (over the budget)" : "");
    if ((state.transparency.mode == Transparency::Reference || state.transparency.difference) && t->reference) {
      ImGui::TextWrapped("a-buffer: %u fragments of a budget of %zu, deepest pixel %u", t->fragments, t->budget,
                         t->deepest_list);
      if (t->over_budget_pixels > 0)
        ImGui::TextColored(ImVec4(1.0f, 0.3f, 1.0f, 1.0f), "%u pixels over the budget (magenta stripes)",
                           t->over_budget_pixels);
    }
  }
  const TransparencyMemory& m = info.transparency_memory;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const auto mib = [](std::size_t bytes) { return byte_text(bytes, ByteUnits::MiB); };
  ImGui::TextWrapped("memory: sorted %s, wboit %s, reference %s, difference view %s more",
                     mib(info.sorted_bytes).c_str(), mib(m.wboit).c_str(), mib(m.reference).c_str(),
                     mib(m.difference).c_str());
  ImGui::PopStyleColor();
}

}  // namespace depthsort::app
