#include "depthsort/host/stop_signal.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace depthsort {

namespace {
// The program's one global: a signal handler can reach nothing else (nor can Xlib's error
// handler, which sets it too). Written only by the handlers, read by the loops.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) { g_stop_signal = signal; }

constexpr int kStopSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU};
constexpr int kIgnoredSignals[] = {SIGPIPE, SIGXFSZ};

void set_action(int signal, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns to its loop, which then stops
  if (sigaction(signal, &action, nullptr) != 0)
    std::fprintf(stderr, "warning: sigaction(%s): %s\n", stop_signal_name(signal), std::strerror(errno));
}
}  // namespace

void install_stop_handler() {
  for (const int signal : kStopSignals) {
    // A signal the shell ignored for us (nohup's SIGHUP, a background job's SIGINT) stays ignored.
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    set_action(signal, on_stop_signal);
  }
  for (const int signal : kIgnoredSignals) set_action(signal, SIG_IGN);
}

int stop_signal() noexcept { return static_cast<int>(g_stop_signal); }

void request_stop(int reason) noexcept { g_stop_signal = reason; }

const char* stop_signal_name(int signal) noexcept {
  switch (signal) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGTERM:
      return "SIGTERM";
    case SIGALRM:
      return "SIGALRM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return "a signal";
  }
}

}  // namespace depthsort
