#include "loop/run.hpp"

#include <optional>
#include <string>
#include <utility>

#include "loop/headless_loop.hpp"
#include "loop/run_setup.hpp"
#include "loop/window_loop.hpp"
#include "platform/egl_headless.hpp"
#include "platform/glfw_window.hpp"
#include "render/gl.hpp"

namespace depthsort::app {

int run(const RunOptions& options, Settings settings) {
  const Console console(options.quiet);
  // Both outputs are checked before anything runs (exit status 1, as for other runtime errors).
  check_outputs(options, settings.scene);
  std::string notes;  // one a line, said after the path
  PathChoice path = choose_path(options, notes);

  // The context first: on the GPU path it must sit on the CUDA device.
  RunLines lines;
  std::optional<EglHeadless> egl;
  std::optional<GlfwWindow> window;
  if (options.headless) {
    egl.emplace(path.cpu());
    lines.gl = egl->device_description();
  } else {
    window.emplace(options.width, options.height, "depthsort", settings.vsync);
    lines.gl = gl_description();
  }
  confirm_path(path, options, lines, notes);
  SorterCycle cycle = cycle_for(options, path, notes);
  Scene scene = build_run_scene(options, settings, path, cycle, notes);
  check_material_files(options, settings.scene, scene.material_files);  // the MTL files are known now
  say_opening(console, options, settings, path, cycle, scene, notes, lines);
  adopt_path_and_scene(settings, path, scene);

  RunState state(options, console, std::move(settings), std::move(lines), std::move(cycle), std::move(scene));
  if (window) return WindowLoop(state, *window).run();
  return HeadlessLoop(state).run();
}

}  // namespace depthsort::app
