// Text from outside the program (file content, paths, arguments) made safe to print: a hostile
// OBJ must not reach the terminal with escape sequences, and a 10 MB token must not become a
// 10 MB message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace depthsort::app {

// Control bytes, DEL and bytes that are not part of valid UTF-8 as \xNN (backslash as \\); valid
// UTF-8 sequences kept. The result is valid UTF-8 without control characters.
std::string escape_text(std::string_view text);

// File content for a message: escaped, at most `max_chars` characters of the input, in single
// quotes, with "... (N bytes)" when cut.
std::string quote_content(std::string_view text, std::size_t max_chars = 60);

// A path for a message or a JSON string: escaped (a path may hold any byte but '\0'), never cut.
inline std::string printable_path(std::string_view path) { return escape_text(path); }

}  // namespace depthsort::app
