// Helpers for the demo's tests: run the depthsort binary, read its PNG screenshots, and the
// expected colours of the test scene (scene/mesh.hpp, make_test_triangles).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace depthsort::app::test {

struct CommandResult {
  int status = -1;     // exit status (or -1 if it did not exit normally)
  std::string output;  // stdout and stderr together
};

// The program under test: DEPTHSORT_BIN, or the DEPTHSORT_TEST_BIN environment variable's.
std::string depthsort_bin();

// Runs depthsort_bin() with `args` (each shell-quoted), after `prefix` (a shell word list such as
// "env -u DISPLAY" or "xvfb-run -a"), if given.
CommandResult run_depthsort(const std::vector<std::string>& args, const std::string& prefix = "");

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // top row first
  std::array<int, 4> at(int x, int y) const;
};
Image read_png(const std::string& path);  // throws if unreadable

std::string out_path(const std::string& name);  // under the test build folder
using depthsort::testing::read_text;
// Whether the shell finds the program `tool` (xvfb-run, xdotool).
bool have_tool(const char* tool);
// The SceneError message of loading the OBJ at `path`, or "(loaded without error)".
std::string obj_load_error(const std::string& path);
std::string data_path(const std::string& name);  // tests/app/data/

// The centre pixel of the test scene, blended over black with SRC_ALPHA/ONE_MINUS_SRC_ALPHA:
// `order` lists the colours drawn first to last (0 red far, 1 green middle, 2 blue near).
std::array<int, 3> expected_blend(const std::array<int, 3>& order);

}  // namespace depthsort::app::test
