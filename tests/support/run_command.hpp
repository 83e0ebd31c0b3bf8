// Runs a program the way a shell would, for the tests that check whole programs (the demo, the
// benchmark, NVTX-recorded runs): each word quoted, stdout and stderr read together; and the files
// they write, read back.
#pragma once

#include <string>
#include <vector>

namespace depthsort::testing {

struct CommandOutput {
  int status = -1;     // exit status (-1: it did not exit normally)
  std::string output;  // stdout and stderr together
};

// 'text' for sh, whatever it holds.
std::string shell_quote(const std::string& text);

// Runs `words` (words[0] the program; each quoted) after `prefix`, shell words used as they are
// ("env -u DISPLAY", "xvfb-run -a"), if given. Throws if the shell cannot be started.
CommandOutput run_command(const std::vector<std::string>& words, const std::string& prefix = "");

// The whole file at `path`, as the programs under test wrote it ("" where it cannot be read).
std::string read_text(const std::string& path);

}  // namespace depthsort::testing
