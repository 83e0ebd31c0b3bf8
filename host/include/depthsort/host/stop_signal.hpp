// How a process of depthsort's ends when the system or the shell ends it: every signal whose
// default action would end it at once (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1,
// SIGUSR2, SIGXCPU) only sets a flag, which the programs' loops see between frames or rows and
// finish as after their last one (outputs written whole, exit status 128 + the signal's number);
// SIGPIPE and SIGXFSZ are ignored, so that a write to a closed pipe or past `ulimit -f` fails
// (EPIPE, EFBIG) and its writer reports it and removes its temporary file, instead of the
// process dying with outputs lost and temporary files left. Shared by the demo and the tools.
#pragma once

namespace depthsort {

// Installs the handlers (once, at the start of main, before anything is written).
void install_stop_handler();
// The signal that asked the run to stop, a reason set by request_stop, or 0.
int stop_signal() noexcept;
void request_stop(int reason) noexcept;
// "SIGINT", "SIGTERM", "SIGHUP", ...; "a signal" for others.
const char* stop_signal_name(int signal) noexcept;

}  // namespace depthsort
