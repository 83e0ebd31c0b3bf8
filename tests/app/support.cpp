#include "support.hpp"

#include "scene/obj_loader.hpp"
#include "support/run_command.hpp"

#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_image.h>
#pragma GCC diagnostic pop

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace depthsort::app::test {

std::string depthsort_bin() {
  // DEPTHSORT_TEST_BIN runs the tests against another build of the program (an older one, to see
  // which tests it fails).
  const char* other = std::getenv("DEPTHSORT_TEST_BIN");
  return other && *other ? other : DEPTHSORT_BIN;
}

CommandResult run_depthsort(const std::vector<std::string>& args, const std::string& prefix) {
  std::vector<std::string> words{depthsort_bin()};
  words.insert(words.end(), args.begin(), args.end());
  const depthsort::testing::CommandOutput run = depthsort::testing::run_command(words, prefix);
  return CommandResult{run.status, run.output};
}

std::array<int, 4> Image::at(int x, int y) const {
  const std::size_t i =
      (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
}

Image read_png(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
  if (!data) throw std::runtime_error("cannot read PNG " + path);
  image.rgba.assign(data, data + static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 4);
  stbi_image_free(data);
  return image;
}

std::string obj_load_error(const std::string& path) {
  try {
    load_obj(path);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "(loaded without error)";
}

bool have_tool(const char* tool) {
  return std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) == 0;
}

std::string out_path(const std::string& name) {
  // Created on demand: where only the bin folder was copied to a GPU machine, the build tree is not there.
  std::filesystem::create_directories(DEPTHSORT_TEST_OUT);
  return std::string(DEPTHSORT_TEST_OUT) + "/" + name;
}
std::string data_path(const std::string& name) { return std::string(DEPTHSORT_TEST_DATA) + "/" + name; }

std::array<int, 3> expected_blend(const std::array<int, 3>& order) {
  const double alpha = 128.0 / 255.0;
  const double colours[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double rgb[3] = {0, 0, 0};
  for (const int layer : order)
    for (int c = 0; c < 3; ++c) rgb[c] = colours[layer][c] * alpha + rgb[c] * (1.0 - alpha);
  return {static_cast<int>(std::lround(rgb[0] * 255)), static_cast<int>(std::lround(rgb[1] * 255)),
          static_cast<int>(std::lround(rgb[2] * 255))};
}

}  // namespace depthsort::app::test
