#include "loop/run_state.hpp"

#include <utility>

namespace depthsort::app {

RunState::RunState(const RunOptions& run_options, const Console& run_console, Settings initial, RunLines run_lines,
                   SorterCycle sorter_cycle, Scene scene, RunOutputs run_outputs)
    : options(run_options),
      console(run_console),
      settings(std::move(initial)),
      lines(std::move(run_lines)),
      cycle(std::move(sorter_cycle)),
      stage(Stage::Target{options.headless, options.width, options.height, settings.draw_path}, std::move(scene),
            cycle.choices_or(selected_sorter(settings))),
      camera(stage.scene().camera),
      timings(recorded_frames(options)),
      outputs(std::move(run_outputs)) {
  viewpoints.saved[0] = camera;
  viewpoints.used[0] = true;
}

std::size_t recorded_frames(const RunOptions& options) {
  if (options.headless) return options.frames.value_or(60);
  return options.json.empty() ? 0 : options.frames.value_or(3600);
}

}  // namespace depthsort::app
