// What is drawn over the picture beside the panel, for the audience: the state line (one line
// saying what the picture shows: sorted or not, frozen, the sorter and the order method, one
// order or the separate passes, the colours, the wipe), a notice (why a key could not act, the
// hint after a first Esc), and the wipe's labels over each side. Drawn in the window and in
// headless --panel frames alike; with the panel hidden (H) the state line stays, unless turned off
// (L, --no-state-line). Fixed buffers: nothing is allocated per frame.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

#include "settings.hpp"

namespace depthsort::app {

class UiText;

// What the state line says beside the settings.
struct StateFacts {
  bool gpu_path = false;
  bool cycling = false;     // --cycle-sorters: the sorter changes every frame
  std::string_view sorter;  // the settings' sorter's name
};

// The state line's text for `s` into `out` (always terminated); returns whether the picture is
// not what sorting shows (sorting off, the order frozen, the separate passes), which the line
// marks in amber.
bool state_line_text(const Settings& s, const StateFacts& facts, char* out, std::size_t size) noexcept;

// A message shown over the picture for a few seconds.
class Notice {
 public:
  void show(std::string_view text, double now, double seconds = 3.0) noexcept;
  void clear() noexcept { until_ = -1.0; }
  // Shown at least until `now`, if it has been shown.
  void keep_until(double now) noexcept {
    if (length_ > 0) until_ = std::max(until_, now);
  }
  // The text while it is shown at `now`, else empty.
  std::string_view text(double now) const noexcept;

 private:
  std::array<char, 240> text_{};
  std::size_t length_ = 0;
  double until_ = -1.0;
};

// The split of the wipe in pixels from the left: the fraction `wipe` of the part of a `width`-pixel
// framebuffer that the panel leaves free (`covered`, a fraction from the left), as the renderer draws it.
float wipe_split_x(float wipe, float covered, int width) noexcept;

class Overlay {
 public:
  // Draws, in the current ImGui frame's foreground, over a display of the ImGui display size:
  // the notices shown at `now` (at most two, one under the other), the wipe's labels (when the
  // wipe is on), and the state line (when on). `covered`: the fraction of the width that the
  // panel covers from the left.
  void draw(const Settings& s, const StateFacts& facts, std::array<const Notice*, 2> notices, float covered, double now,
            UiText& words);

 private:
  std::array<char, 400> line_{};
};

}  // namespace depthsort::app
