// SIGINT and SIGTERM end a run cleanly: the handler only sets a flag, the frame loops see it
// between frames and finish as after their last frame (summary, --json and screenshot written
// whole, exit status 128 + the signal's number).
#pragma once

namespace depthsort::app {

// Installs the handler for SIGINT and SIGTERM (once, at the start of main).
void install_stop_handler();
// The signal that asked the run to stop, kWindowGone, or 0.
int stop_signal() noexcept;
// The window was lost: destroyed from outside the program, or an X error on it
// (platform/glfw_window.cpp's X error handler); the run ends as if the window had been closed.
inline constexpr int kWindowGone = -1;
void request_stop(int reason) noexcept;
// "SIGINT", "SIGTERM".
const char* stop_signal_name(int signal) noexcept;

}  // namespace depthsort::app
