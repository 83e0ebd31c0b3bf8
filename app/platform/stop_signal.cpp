#include "platform/stop_signal.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace depthsort::app {

namespace {
// What the program is doing, for the crash handler, which can reach nothing but globals; a
// lock-free atomic pointer to a literal is safe to read there.
std::atomic<const char*> g_doing{"starting"};
static_assert(std::atomic<const char*>::is_always_lock_free);
// Whether an address-space limit (ulimit -v) was set when the handler was installed: a GL driver
// that runs out of it may crash instead of failing a call.
volatile std::sig_atomic_t g_address_limit = 0;

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kCrashSignalCount = sizeof kCrashSignals / sizeof kCrashSignals[0];
// The actions the handler replaced (the default, or a sanitizer's), restored before it returns.
struct sigaction g_previous[kCrashSignalCount];

void say(const char* text) noexcept {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t wrote = ::write(2, text, left);
    if (wrote <= 0 && errno != EINTR) return;
    if (wrote > 0) text += wrote, left -= static_cast<std::size_t>(wrote);
  }
}

extern "C" void on_crash(int signal, siginfo_t* info, void*) {
  // Only async-signal-safe calls: write(2), then the previous action again.
  say("depthsort: error: crashed (");
  say(signal == SIGSEGV  ? "SIGSEGV"
      : signal == SIGBUS ? "SIGBUS"
      : signal == SIGILL ? "SIGILL"
      : signal == SIGFPE ? "SIGFPE"
                         : "SIGABRT");
  say(") while ");
  say(g_doing.load());
  if (g_address_limit)
    say("; an address-space limit (ulimit -v) is set, and a GL driver short of it may crash: raise it");
  say("\n");
  for (int i = 0; i < kCrashSignalCount; ++i)
    if (kCrashSignals[i] == signal) ::sigaction(signal, &g_previous[i], nullptr);
  // A fault comes back when the instruction runs again, now to the previous action (which keeps
  // the faulting context, as a sanitizer wants it); a signal that was sent is sent again.
  if (info == nullptr || info->si_code <= 0) std::raise(signal);
}
}  // namespace

void install_crash_report() {
  struct rlimit limit {};
  g_address_limit = ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
  // The handler runs on its own stack: a crash from a stack overflow still reports.
  static char stack[1 << 16];
  stack_t alternate{};
  alternate.ss_sp = stack;
  alternate.ss_size = sizeof stack;
  if (::sigaltstack(&alternate, nullptr) != 0)
    std::fprintf(stderr, "depthsort: warning: sigaltstack: %s\n", std::strerror(errno));
  for (int i = 0; i < kCrashSignalCount; ++i) {
    struct sigaction action {};
    action.sa_sigaction = on_crash;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK | SA_SIGINFO;
    if (::sigaction(kCrashSignals[i], &action, &g_previous[i]) != 0)
      std::fprintf(stderr, "depthsort: warning: sigaction: %s\n", std::strerror(errno));
  }
}

void set_crash_context(const char* doing) noexcept { g_doing.store(doing); }

const char* crash_context() noexcept { return g_doing.load(); }

}  // namespace depthsort::app
