// The panel's "Transparency" section: the mode (sorted primitives, unsorted, weighted blended OIT,
// the per-pixel reference), the difference view against the reference with its count, share and
// largest difference, the A-buffer's budget and what went over it, and each mode's memory.
#pragma once

#include "settings.hpp"
#include "ui/panel_readout.hpp"

namespace depthsort::app {

void transparency_section(Settings& state, const PanelReadout& info);

}  // namespace depthsort::app
