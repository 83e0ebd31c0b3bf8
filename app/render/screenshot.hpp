// PNG screenshots: encoded in memory by stb_image_write (Debian's libstb-dev, compiled from its
// header here), then written whole or not at all by their output (depthsort/host/output_file.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace depthsort::app {

// RGBA8 pixels (top row first) as a PNG file's bytes, for an output written whole; throws
// std::runtime_error where memory runs out.
std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgba);

}  // namespace depthsort::app
