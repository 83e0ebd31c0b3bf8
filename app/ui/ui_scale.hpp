// How large the panel's fonts and widgets are drawn: a factor over ImGui's 1.0 (about 15-pixel
// text). By default it follows the window: 1.0 up to 1280x720, in quarter steps with the smaller
// of width / 1280 and height / 720 above it (1.5 at 1920x1080, 3 at 3840x2160), and never below the
// monitor's content scale (a HiDPI desktop's own factor), so that text stays about the same share
// of the screen, readable from the back of a room. --ui-scale or + and - fix it instead.
#pragma once

namespace depthsort::app {

inline constexpr float kMinUiScale = 0.75f, kMaxUiScale = 4.0f, kUiScaleStep = 0.25f;

// The factor that follows a framebuffer of width x height on a monitor of `content_scale`.
float auto_ui_scale(int width, int height, float content_scale) noexcept;
// `fixed` (the settings' ui_scale) where set (> 0), else the automatic factor.
float ui_scale_for(float fixed, int width, int height, float content_scale) noexcept;
// `current` moved by `steps` quarter steps, within [kMinUiScale, kMaxUiScale].
float stepped_ui_scale(float current, int steps) noexcept;

}  // namespace depthsort::app
