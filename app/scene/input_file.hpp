// Input files (OBJ, MTL) read exactly once, into memory, with a stated size limit, before any
// parsing: a pipe or process substitution can be read only once, and endless input (/dev/zero)
// or a huge file must be refused before it eats memory.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace depthsort::app {

// Every failure to load a scene file: the message names the file (and the line where one is known).
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The stated limits: an OBJ of 1 GiB is already several times what one GL draw call can hold
// (scene.hpp, kMaxTriangles) once parsed; a material library is a few kilobytes.
constexpr std::size_t kMaxObjBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxMtlBytes = std::size_t{16} << 20;
// A pipe that delivers nothing for this long is refused rather than waited on forever.
constexpr int kPipeTimeoutSeconds = 10;

// Reads `path` whole: a regular file (its size checked against `limit` before reading) or a
// pipe/FIFO (read until EOF, refused past `limit` bytes or after kPipeTimeoutSeconds without data).
// Anything else (devices such as /dev/zero, directories, sockets) is refused before reading.
// `what` names the kind of file in messages ("OBJ file"). Throws SceneError.
std::string read_input_file(const std::string& path, std::size_t limit, const char* what);

// Text encoding of a file read for parsing: a UTF-8 byte-order mark is removed; UTF-16 (by its
// byte-order mark, or NUL bytes between characters) and other NUL bytes are refused with a
// message saying so. Throws SceneError naming `path`.
void check_text_encoding(std::string& text, const std::string& path);

}  // namespace depthsort::app
