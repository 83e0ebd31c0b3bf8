#include "loop/changes.hpp"

#include <cstdio>
#include <exception>

#include "loop/frame_body.hpp"
#include "loop/run_state.hpp"

namespace depthsort::app {

namespace {

// The pipeline built again for the settings' sorter (or the cycle's), and with `scene` the scene
// for the settings' counts first.
void rebuild(RunState& run, bool scene) {
  const SorterChoice selected = selected_sorter(run.settings);
  const auto choices = run.cycle.choices_or(selected);
  if (scene)
    run.stage.rebuild_scene(run.settings.scene, selected.info->backend == Backend::Cpu, choices);
  else
    run.stage.build(choices);
}

}  // namespace

void apply_changes(RunState& run, const Settings& before, FramePlatform& platform) {
  Settings& settings = run.settings;
  ButtonPresses& presses = run.presses;
  const SettingsChange change = settings_change(before, settings);
  platform.apply(change);
  if (change.camera_mode) run.camera.set_mode(settings.camera_mode);
  if (presses.reset_camera) run.camera = run.viewpoints.saved[0];
  if (presses.save_view >= 0) {
    run.viewpoints.saved[static_cast<std::size_t>(presses.save_view)] = run.camera;
    run.viewpoints.used[static_cast<std::size_t>(presses.save_view)] = true;
  }
  if (presses.load_view >= 0 && run.viewpoints.used[static_cast<std::size_t>(presses.load_view)])
    run.camera = run.viewpoints.saved[static_cast<std::size_t>(presses.load_view)];
  settings.camera_mode = run.camera.mode;
  if (change.sorter && run.cycle.active()) {
    run.cycle.end();  // a sorter chosen in the panel ends --cycle-sorters
    run.console.say("--cycle-sorters ended: a sorter was chosen in the panel");
  }
  if (presses.rebuild_scene || change.sorter) {
    try {
      rebuild(run, presses.rebuild_scene);
      run.lines.error.clear();
    } catch (const std::exception& e) {
      run.lines.error = e.what();
      std::fprintf(stderr, "depthsort: %s (kept the previous settings)\n", e.what());
      settings.sorter_index = before.sorter_index;
      settings.options = before.options;
      settings.scene = before.scene;
      rebuild(run, true);
    }
  }
  if (presses.compare_all || presses.bucket_sizes) {
    try {
      run.charts.update(run.stage.pipeline(), run.stage.scene(), presses.compare_all, presses.bucket_sizes);
    } catch (const std::exception& e) {
      run.lines.error = e.what();
    }
  }
  presses = ButtonPresses{};
}

}  // namespace depthsort::app
