// --ui-text: the words that the last frame showed (the panel, the state line, a notice, the
// wipe's labels), through ImGui's own log of the text it draws, and where the panel's main
// controls were. What a test reads where it cannot read the pixels as text; nothing is captured
// without --ui-text, and with it only on the frame that is the last.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include <imgui.h>

namespace depthsort::app {

class UiText {
 public:
  // Whether this run writes the words (--ui-text given).
  explicit UiText(bool wanted) : wanted_(wanted) {}
  // Around a frame's UI, between the ImGui frame's start and its end: captures when `last`.
  void begin(bool last);
  void end();
  // Right after a window's Begin: its words are captured (ImGui logs one window at a time).
  void window() const;
  // Text drawn outside ImGui's windows (the overlays' draw-list text), added to the capture.
  void add(const char* text);
  // A control's rectangle in pixels (the last item drawn), under `name`, on a capturing frame.
  void mark(const char* name);
  void mark(const char* name, ImVec2 min, ImVec2 max);
  // The last capture: the words, one item a line, then "@name x0 y0 x1 y1" for each mark.
  const std::string& text() const noexcept { return text_; }
  // Writes the last capture to `path` (whole or not at all); nothing if no frame was captured.
  void write(const std::string& path) const;

 private:
  struct Mark {
    const char* name = nullptr;
    ImVec2 min{}, max{};
  };
  bool wanted_ = false, capturing_ = false, captured_ = false;
  std::string text_;
  void (*set_clipboard_)(void*, const char*) = nullptr;  // the platform's, while capturing
  void* clipboard_data_ = nullptr;
  std::array<Mark, 64> marks_{};
  std::size_t mark_count_ = 0;
};

}  // namespace depthsort::app
