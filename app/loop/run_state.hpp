// What a run holds once it is set up, shared by the frame body, the two frame loops, acting on
// changed settings, the panel's readout and the reports. Each part is a class with its own job;
// this struct only owns them, in the order they are built, and is torn down backwards (the
// stage's pipeline before its renderer; the GL context, which outlives them all, is run()'s).
#pragma once

#include <cstddef>
#include <string>

#include "cli/run_options.hpp"
#include "depthsort/host/output_file.hpp"
#include "loop/chart_data.hpp"
#include "loop/console.hpp"
#include "loop/sorter_cycle.hpp"
#include "loop/stage.hpp"
#include "loop/timings.hpp"
#include "scene/camera.hpp"
#include "settings.hpp"
#include "ui/panel.hpp"

namespace depthsort::app {

// The lines that describe the run: printed at its start, shown at the top of the panel.
struct RunLines {
  std::string gl;      // the GL context: renderer and version
  std::string device;  // the CUDA device, or "CPU path (...): why"
  std::string notes;   // what the run changed or cannot do here, one a line
  std::string error;   // the last panel request that failed (a rebuild)
  // Why the frames are too slow to be interactive and what would be (found after frame 1): in
  // the Timings tab, not among the notes above the tabs, whose place must not move once shown.
  std::string slow_frame;
  void add_note(const std::string& line) { notes += (notes.empty() ? "" : "\n") + line; }
};

// --screenshot and --json, resolved and found writable before anything runs
// (depthsort/host/output_file.hpp), written at the end.
struct RunOutputs {
  PlannedOutput screenshot, json;
};

struct RunState {
  // Builds the stage (renderer and pipeline) for `scene` and the settings' sorter (or the
  // cycle's), the camera framing the scene, and the timing record.
  RunState(const RunOptions& run_options, const Console& run_console, Settings initial, RunLines run_lines,
           SorterCycle sorter_cycle, Scene scene, RunOutputs run_outputs);
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  const RunOptions& options;
  const Console console;
  Settings settings;
  ButtonPresses presses;
  RunLines lines;
  SorterCycle cycle;
  Stage stage;
  Camera camera;
  Viewpoints viewpoints;  // the first is the scene's framing view, which "reset" goes back to
  ChartData charts;
  Timings timings;
  RunOutputs outputs;
};

// Frames whose timings are kept: every frame headless (medians, --json), up to --frames (default
// 3600) in a window with --json.
std::size_t recorded_frames(const RunOptions& options);

}  // namespace depthsort::app
