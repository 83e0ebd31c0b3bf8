// The demo's run: set up (the path, the GL context, the scene, the sorters), then the frame loop,
// windowed (GLFW + ImGui) or headless (EGL, offscreen), on the GPU path (CUDA-GL interop) or the
// CPU path. Returns the exit status; errors are thrown (main reports them).
#pragma once

#include "cli/run_options.hpp"
#include "settings.hpp"

namespace depthsort::app {

int run(const RunOptions& options, Settings settings);

}  // namespace depthsort::app
