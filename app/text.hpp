// Text from outside the program in messages: file content through depthsort::quote_for_message
// (escaped, cut at 60 characters), paths through shown_path.
#pragma once

#include <string>
#include <string_view>

#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

// A path as the user typed it where it is plain printable text, else quote_path's escaped and
// quoted form: no control bytes or invalid UTF-8 reach the terminal or a JSON string.
inline std::string shown_path(std::string_view path) {
  std::string quoted = quote_path(path);
  if (quoted.size() == path.size() + 2 && quoted.compare(1, path.size(), path) == 0) return std::string(path);
  return quoted;
}

}  // namespace depthsort::app
