// PNG screenshots through stb_image_write (Debian's libstb-dev, compiled from its header here).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace depthsort::app {

// Writes RGBA8 pixels (top row first) as PNG; throws naming the file on failure.
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba);

}  // namespace depthsort::app
