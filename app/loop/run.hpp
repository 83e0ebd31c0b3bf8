// The demo's frame loop, windowed (GLFW + ImGui) or headless (EGL, offscreen), on the GPU path
// (CUDA-GL interop) or the CPU path. Returns the exit status; errors are thrown (main reports them).
#pragma once

#include "cli/command_line.hpp"

namespace depthsort::app {

int run(const Config& config);

}  // namespace depthsort::app
