// The run's console: progress and result lines on stdout (line-buffered by main, so a pipe sees
// them as they are printed), silenced by --quiet. Errors go to stderr and are never silenced.
#pragma once

#include <cstdio>
#include <string>

namespace depthsort::app {

class Console {
 public:
  explicit Console(bool quiet) noexcept : quiet_(quiet) {}
  void say(const std::string& line) const {
    if (!quiet_) std::printf("%s\n", line.c_str());
  }

 private:
  bool quiet_;
};

}  // namespace depthsort::app
