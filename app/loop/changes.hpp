// Acting on what changed after a frame: the settings that differ from last frame's copy and the
// buttons pressed. The window's own settings go to the platform (vsync, full screen); the camera
// takes its mode and the saved viewpoints; a sorter chosen in the panel ends --cycle-sorters; another
// sorter or its options rebuild the pipeline, "rebuild scene" the scene; the sort charts are
// filled on request. Rebuilding is a user action outside the steady frame loop: it may allocate,
// and a request that cannot be met (GPU memory, a sorter's options) is reported and undone.
#pragma once

namespace depthsort::app {

class FramePlatform;
struct RunState;
struct Settings;

void apply_changes(RunState& run, const Settings& before, FramePlatform& platform);

}  // namespace depthsort::app
