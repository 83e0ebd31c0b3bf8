// The panel's font: DejaVu Sans (fonts-dejavu-core), built into the binary so that the program
// draws the same text on any machine, in one sans-serif face that stays readable when the UI is
// scaled up for a room (ImGui's built-in font is a 13-pixel bitmap face). Empty where the build
// found no font file; ImGui's own font is used then.
#pragma once

#include <span>

namespace depthsort::app {

std::span<const unsigned char> ui_font_file() noexcept;

}  // namespace depthsort::app
