// The presenter's keys and the mouse, one table for the window loop's help overlay (F1), --help
// and the README. None is on the fly keys (W A S D Q E) except Ctrl+Q.
#pragma once

#include <array>

namespace depthsort::app {

struct ControlHelp {
  const char* control;
  const char* action;
};

inline constexpr std::array<ControlHelp, 18> kControls{{
    {"drag (left button)", "orbit the scene (fly mode: look around)"},
    {"wheel", "zoom (fly mode: move forward and back)"},
    {"W A S D, Q E", "fly mode: move (forward, left, back, right), down and up"},
    {"Esc", "leave full screen, or close an open list or the help; otherwise press twice within a second to quit"},
    {"Ctrl+Q", "quit"},
    {"F1", "show or hide the controls, over the picture"},
    {"F11", "full screen on and off"},
    {"H", "hide or show the panel (the state line stays)"},
    {"L", "the state line over the picture on and off"},
    {"+ and -", "larger and smaller text and widgets"},
    {"Space", "freeze the order (keep the last frame's) on and off"},
    {"O", "sorting on and off (off: submission order)"},
    {"N", "next sorter that runs on this path"},
    {"C", "colours: scene, by rank (far blue to near red), by segment (where the sorter has buckets)"},
    {"P", "separate passes (the wrong blend) on and off"},
    {"R", "reset the camera"},
    {"T", "transparency: sorted, unsorted, weighted blended OIT, per-pixel reference"},
    {"V", "wipe (unsorted | sorted) on and off"},
}};

}  // namespace depthsort::app
