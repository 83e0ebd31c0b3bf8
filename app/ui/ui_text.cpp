#include "ui/ui_text.hpp"

#include <cstdio>

#include "depthsort/host/output_file.hpp"

namespace depthsort::app {

void UiText::begin(bool last) {
  capturing_ = wanted_ && last;
  if (!capturing_) return;
  text_.clear();
  mark_count_ = 0;
  // ImGui hands a window's log to the clipboard when the window ends: caught here (and appended),
  // the desktop's clipboard left alone, until end().
  ImGuiIO& io = ImGui::GetIO();
  set_clipboard_ = io.SetClipboardTextFn;
  clipboard_data_ = io.ClipboardUserData;
  io.SetClipboardTextFn = [](void* self, const char* text) {
    auto& words = static_cast<UiText*>(self)->text_;
    words += text;
    words += '\n';
  };
  io.ClipboardUserData = this;
}

void UiText::window() const {
  if (capturing_) ImGui::LogToClipboard();
}

void UiText::end() {
  if (!capturing_) return;
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = set_clipboard_;
  io.ClipboardUserData = clipboard_data_;
  for (std::size_t i = 0; i < mark_count_; ++i) {
    char line[160];
    std::snprintf(line, sizeof line, "@%s %.0f %.0f %.0f %.0f\n", marks_[i].name, static_cast<double>(marks_[i].min.x),
                  static_cast<double>(marks_[i].min.y), static_cast<double>(marks_[i].max.x),
                  static_cast<double>(marks_[i].max.y));
    text_ += line;
  }
  capturing_ = false;
  captured_ = true;
}

void UiText::add(const char* text) {
  if (!capturing_) return;
  text_ += text;
  text_ += '\n';
}

void UiText::mark(const char* name) { mark(name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

void UiText::mark(const char* name, ImVec2 min, ImVec2 max) {
  if (!capturing_ || mark_count_ == marks_.size()) return;
  marks_[mark_count_++] = Mark{name, min, max};
}

void UiText::write(const std::string& path) const {
  if (!captured_) return;
  write_file_atomically(path, text_);
}

}  // namespace depthsort::app
