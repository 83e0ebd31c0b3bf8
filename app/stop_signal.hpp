// SIGINT and SIGTERM end a run cleanly: the handler only sets a flag, the frame loops see it
// between frames and finish as after their last frame (summary, --json and screenshot written
// whole, exit status 128 + the signal's number).
#pragma once

namespace depthsort::app {

// Installs the handler for SIGINT and SIGTERM (once, at the start of main).
void install_stop_handler();
// The signal that asked the run to stop, or 0.
int stop_signal() noexcept;
// "SIGINT", "SIGTERM".
const char* stop_signal_name(int signal) noexcept;

}  // namespace depthsort::app
