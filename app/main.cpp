// depthsort: transparent meshes and particles sorted back to front every frame.
#include <cstdio>
#include <exception>
#include <new>
#include <utility>

#include "cli/command_line.hpp"
#include "loop/run.hpp"
#include "platform/stop_signal.hpp"
#include "scene/scene.hpp"

int main(int argc, char** argv) {
  using namespace depthsort::app;
  // Progress lines reach a pipe (depthsort | tee log) as they are printed, not at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CliResult cli;
  try {
    cli = parse_command_line(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "depthsort: %s\n(see depthsort --help)\n", e.what());
    return 2;
  }
  if (cli.action == CliAction::Help) {
    std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  if (cli.action == CliAction::Version) {
    std::printf("%s\n", version_text().c_str());
    return 0;
  }
  install_stop_handler();
  install_crash_report();
  try {
    return run(cli.run, std::move(cli.settings));
  } catch (const UsageError& e) {  // an output that is also an input
    std::fprintf(stderr, "depthsort: %s\n(see depthsort --help)\n", e.what());
    return 2;
  } catch (const SceneLimitError& e) {  // a fixed limit found once the scene's files were read
    std::fprintf(stderr, "depthsort: %s\n(see depthsort --help)\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // What the memory estimate did not foresee: the step it happened in is the lead to follow.
    std::fprintf(stderr, "depthsort: error: out of memory while %s; a smaller scene or --size needs less\n",
                 crash_context());
    const int signal = stop_signal();
    return signal > 0 ? 128 + signal : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "depthsort: error: %s\n", e.what());
    // A signal that ended a wait before the first frame (an input or output FIFO) ends the run
    // as a signal does.
    const int signal = stop_signal();
    return signal > 0 ? 128 + signal : 1;
  }
}
