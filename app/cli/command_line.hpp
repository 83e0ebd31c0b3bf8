// The command line of `depthsort` (CLI11), parsed once into the run's options and the settings it
// starts with; errors name the flag.
#pragma once

#include <stdexcept>
#include <string>

#include "cli/run_options.hpp"
#include "settings.hpp"

namespace depthsort::app {

// A command-line mistake: main prints it with a pointer to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class CliAction { Run, Help, Version };

struct CliResult {
  CliAction action = CliAction::Run;
  RunOptions run;     // fixed for the run
  Settings settings;  // the settings it starts with (the panel edits them)
};

// Throws UsageError naming the offending argument. Sorter names are checked against the registry
// here (unknown names list the valid ones); counts use depthsort/host/count_text.hpp (K, M, G binary).
CliResult parse_command_line(int argc, const char* const* argv);
std::string help_text();
std::string version_text();

}  // namespace depthsort::app
