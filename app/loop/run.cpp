#include "loop/run.hpp"

#include <optional>
#include <string>
#include <utility>

#include "loop/headless_loop.hpp"
#include "loop/run_setup.hpp"
#include "loop/window_loop.hpp"
#include "platform/egl_headless.hpp"
#include "platform/glfw_window.hpp"
#include "platform/stop_signal.hpp"
#include "render/gl.hpp"

namespace depthsort::app {

int run(const RunOptions& options, Settings settings) {
  const Console console(options.quiet);
  // Both outputs are resolved and checked before anything runs (exit status 1, as for other
  // runtime errors).
  set_crash_context("checking the outputs");
  RunOutputs outputs = check_outputs(options, settings.scene);
  std::string notes;  // one a line, said after the path
  PathChoice path = choose_path(options, notes);

  // The context first: on the GPU path it must sit on the CUDA device.
  RunLines lines;
  std::optional<EglHeadless> egl;
  std::optional<GlfwWindow> window;
  set_crash_context(options.headless ? "creating the GL context (EGL)" : "opening the window (GLFW)");
  if (options.headless) {
    egl.emplace(path.cpu());
    lines.gl = egl->device_description();
  } else {
    window.emplace(options.width, options.height, "depthsort", settings.vsync);
    lines.gl = gl_description();
  }
  confirm_path(path, options, lines, notes);
  SorterCycle cycle = cycle_for(options, path, notes);
  set_crash_context("building the scene");
  Scene scene = build_run_scene(options, settings, path, cycle, notes);
  check_material_files(options, settings.scene, scene.material_files);  // the MTL files are known now
  say_opening(console, options, settings, path, cycle, scene, notes, lines);
  adopt_path_and_scene(settings, path, scene);

  set_crash_context("setting up the renderer (GL buffers, shaders)");
  RunState state(options, console, std::move(settings), std::move(lines), std::move(cycle), std::move(scene),
                 std::move(outputs));
  set_crash_context("running the frames");
  if (window) return WindowLoop(state, *window).run();
  return HeadlessLoop(state).run();
}

}  // namespace depthsort::app
