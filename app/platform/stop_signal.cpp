#include "platform/stop_signal.hpp"

#include <csignal>

namespace depthsort::app {

namespace {
// The program's one global: a signal handler can reach nothing else (nor can Xlib's error
// handler, which sets it too). Written only by the handlers, read by the frame loops.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) { g_stop_signal = signal; }
}  // namespace

void install_stop_handler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns to the loop, which then stops
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int stop_signal() noexcept { return static_cast<int>(g_stop_signal); }

void request_stop(int reason) noexcept { g_stop_signal = reason; }

const char* stop_signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace depthsort::app
