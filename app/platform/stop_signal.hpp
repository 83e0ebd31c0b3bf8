// How the demo ends when the system or the shell ends it (depthsort/host/stop_signal.hpp: the
// handlers set a flag, the frame loops see it between frames and finish as after their last frame:
// summary, --json and screenshot written whole, exit status 128 + the signal's number), and what
// it says when it crashes.
#pragma once

#include "depthsort/host/stop_signal.hpp"

namespace depthsort::app {

using depthsort::install_stop_handler;
using depthsort::request_stop;
using depthsort::stop_signal;
using depthsort::stop_signal_name;

// The window was lost: destroyed from outside the program, or an X error on it
// (platform/glfw_window.cpp's X error handler); the run ends as if the window had been closed.
inline constexpr int kWindowGone = -1;

// A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), in the program or in a library such as a GL
// driver short of address space, still says what the program was doing, in one line on stderr,
// before the signal's default action ends the process. `doing` names the step ("creating the GL
// context"): a string that lives as long as the program (a literal).
void install_crash_report();
void set_crash_context(const char* doing) noexcept;
// The step last set ("starting" before any): also what an allocation failure names.
const char* crash_context() noexcept;

}  // namespace depthsort::app
