// What only the command line sets, fixed for the whole run: the panel edits the Settings
// (settings.hpp), never these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scene/camera.hpp"

namespace depthsort::app {

struct RunOptions {
  // Sorting
  std::string sorter;          // --sorter NAME (empty: the default for the path)
  std::string sorter_options;  // --sorter-options a=1,b=0
  bool force_cpu = false;      // --cpu
  bool cycle_sorters = false;  // --cycle-sorters (every frame the next sorter/options)
  // Running
  bool headless = false;                      // --headless
  std::optional<std::uint64_t> frames;        // --frames N (headless default 60; windowed: until closed)
  int width = 1280, height = 720;             // --size WxH
  CameraPath camera_path = CameraPath::None;  // --camera-path orbit|fly-through|cuts|none
  std::string screenshot;                     // --screenshot FILE.png
  std::string json;                           // --json FILE
  bool draw = true;                           // --no-draw
  bool quiet = false;                         // --quiet
  bool panel = false;                         // --panel: headless screenshots show the panel
  std::string ui_text;                        // --ui-text FILE: the words of the last frame's panel and overlays
};

}  // namespace depthsort::app
