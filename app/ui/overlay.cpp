#include "ui/overlay.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ui/ui_text.hpp"

namespace depthsort::app {

namespace {

// The sorted mode's part of the state line: how the frame is ordered (or not), the passes, the
// colours and the wipe. True where the picture is wrong on purpose.
template <class Put>
bool sorted_mode_state(const Settings& s, const StateFacts& facts, const Put& put) noexcept {
  char sorter[96];
  const bool wrong = !s.sort || s.freeze || s.separate_passes;
  if (!s.sort) {
    put("NOT SORTED: submission order (O)");
  } else if (s.freeze) {
    put("ORDER FROZEN: the last order is kept while the camera moves (Space)");
  } else {
    // The fused order replaces the sorter on the GPU path's single order.
    const bool fused = facts.gpu_path && s.order == OrderMethod::Fused && !s.separate_passes;
    if (fused)
      std::snprintf(sorter, sizeof sorter, "sorted back to front: fused order (depth-bucket)");
    else if (facts.cycling)
      std::snprintf(sorter, sizeof sorter, "sorted back to front: every sorter in turn");
    else
      std::snprintf(sorter, sizeof sorter, "sorted back to front: %.*s%s", static_cast<int>(facts.sorter.size()),
                    facts.sorter.data(), facts.gpu_path ? ", order: sorter" : "");
    put(sorter);
  }
  if (s.separate_passes) {
    put("SEPARATE PASSES: all triangles, then all particles (P)");
  } else {
    put("one order for triangles and particles");
    put(s.colour == ColourMode::Rank      ? "colours by rank: far blue to near red"
        : s.colour == ColourMode::Segment ? "colours by segment (the sorter's buckets)"
                                          : "the scene's colours");
    if (s.wipe_on) put("wipe: unsorted | sorted");
  }
  return wrong;
}

}  // namespace

bool state_line_text(const Settings& s, const StateFacts& facts, char* out, std::size_t size) noexcept {
  if (size == 0) return false;
  out[0] = '\0';
  std::size_t used = 0;
  const auto put = [&](const char* text) {
    if (used + 1 >= size) return;
    const int n = std::snprintf(out + used, size - used, "%s%s", used == 0 ? "" : "  \xC2\xB7  ", text);
    if (n > 0) used = std::min(size - 1, used + static_cast<std::size_t>(n));
  };
  // Only the sorted mode orders primitives: the others say what they draw instead (T).
  const Transparency mode = s.transparency.mode;
  bool wrong = mode != Transparency::Reference;
  if (mode == Transparency::Sorted)
    wrong = sorted_mode_state(s, facts, put);
  else
    put(mode == Transparency::Unsorted   ? "NOT SORTED: transparency unsorted, submission order (T)"
        : mode == Transparency::Weighted ? "APPROXIMATE: weighted blended OIT, no order (T)"
                                         : "per-pixel reference: every pixel's fragments sorted (T)");
  if (s.transparency.difference) put("difference view: where it differs from the per-pixel reference");
  return wrong;
}

void Notice::show(std::string_view text, double now, double seconds) noexcept {
  length_ = std::min(text.size(), text_.size() - 1);
  std::memcpy(text_.data(), text.data(), length_);
  text_[length_] = '\0';
  until_ = now + seconds;
}

std::string_view Notice::text(double now) const noexcept {
  if (now > until_ || length_ == 0) return {};
  return {text_.data(), length_};
}

float wipe_split_x(float wipe, float covered, int width) noexcept {
  const float w = static_cast<float>(width);
  const float free_from = std::clamp(covered, 0.0f, 0.9f) * w;
  return std::clamp(std::round(free_from + wipe * (w - free_from)), 0.0f, w);
}

namespace {

// `text` in a dark box at `pos` (its top left), wrapped at `wrap` pixels; returns the box's size.
ImVec2 boxed_text(ImDrawList* draw, ImVec2 pos, float font_size, ImU32 colour, const char* text, float wrap) {
  ImFont* font = ImGui::GetFont();
  const ImVec2 size = font->CalcTextSizeA(font_size, FLT_MAX, wrap, text);
  const float pad = 0.35f * font_size;
  draw->AddRectFilled(ImVec2(pos.x - pad, pos.y - pad), ImVec2(pos.x + size.x + pad, pos.y + size.y + pad),
                      IM_COL32(0, 0, 0, 190), 0.3f * font_size);
  draw->AddText(font, font_size, pos, colour, text, nullptr, wrap);
  return size;
}

}  // namespace

void Overlay::draw(const Settings& s, const StateFacts& facts, std::array<const Notice*, 2> notices, float covered,
                   double now, UiText& words) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (display.x <= 0 || display.y <= 0) return;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const float font = ImGui::GetFontSize();
  const float left = std::clamp(covered, 0.0f, 0.9f) * display.x;
  const float margin = 0.8f * font;
  const float wrap = std::max(display.x - left - 2 * margin, 4 * font);
  ImFont* face = ImGui::GetFont();
  float y = 2.5f * margin;
  for (const Notice* notice : notices) {
    const std::string_view text = notice ? notice->text(now) : std::string_view();
    if (text.empty()) continue;
    const float size = 1.25f * font;
    const char* begin = text.data();
    const ImVec2 extent = face->CalcTextSizeA(size, FLT_MAX, wrap, begin, begin + text.size());
    const float x = std::max(left + margin, left + 0.5f * (display.x - left - extent.x));
    y += boxed_text(draw, ImVec2(x, y), size, IM_COL32(255, 214, 110, 255), begin, wrap).y + margin;
    words.add(begin);
  }
  if (s.wipe_on && !s.separate_passes) {
    const float split = wipe_split_x(s.wipe, covered, static_cast<int>(display.x));
    static constexpr const char* kUnsorted = "unsorted: submission order";
    static constexpr const char* kSorted = "sorted: back to front";
    const float w = face->CalcTextSizeA(font, FLT_MAX, 0.0f, kUnsorted).x;
    if (split - left > w + 2 * margin)
      boxed_text(draw, ImVec2(split - margin - w, y), font, IM_COL32_WHITE, kUnsorted, 0);
    if (display.x - split > face->CalcTextSizeA(font, FLT_MAX, 0.0f, kSorted).x + 2 * margin)
      boxed_text(draw, ImVec2(split + margin, y), font, IM_COL32_WHITE, kSorted, 0);
    words.add(kUnsorted);
    words.add(kSorted);
  }
  if (s.state_line) {
    const bool wrong = state_line_text(s, facts, line_.data(), line_.size());
    const ImVec2 extent = face->CalcTextSizeA(font, FLT_MAX, wrap, line_.data());
    boxed_text(draw, ImVec2(left + margin, display.y - margin - extent.y), font,
               wrong ? IM_COL32(255, 190, 70, 255) : IM_COL32(235, 235, 235, 255), line_.data(), wrap);
    words.add(line_.data());
  }
}

}  // namespace depthsort::app
