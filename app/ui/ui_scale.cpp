#include "ui/ui_scale.hpp"

#include <algorithm>
#include <cmath>

namespace depthsort::app {

float auto_ui_scale(int width, int height, float content_scale) noexcept {
  const float by_size = std::min(static_cast<float>(width) / 1280.0f, static_cast<float>(height) / 720.0f);
  // Quarter steps, rounded down: a window resized by a few pixels does not rebuild the fonts.
  const float stepped = std::floor(by_size / kUiScaleStep) * kUiScaleStep;
  const float content = content_scale > 0.0f && std::isfinite(content_scale) ? content_scale : 1.0f;
  return std::clamp(std::max({stepped, content, 1.0f}), kMinUiScale, kMaxUiScale);
}

float ui_scale_for(float fixed, int width, int height, float content_scale) noexcept {
  return fixed > 0.0f ? std::clamp(fixed, kMinUiScale, kMaxUiScale) : auto_ui_scale(width, height, content_scale);
}

float stepped_ui_scale(float current, int steps) noexcept {
  const float snapped = std::round(current / kUiScaleStep) * kUiScaleStep;
  return std::clamp(snapped + static_cast<float>(steps) * kUiScaleStep, kMinUiScale, kMaxUiScale);
}

}  // namespace depthsort::app
