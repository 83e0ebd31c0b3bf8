// PNG screenshots: encoded in memory by stb_image_write (Debian's libstb-dev, compiled from its
// header here), then written whole or not at all (depthsort/host/output_file.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace depthsort::app {

// Writes RGBA8 pixels (top row first) as PNG through an OutputFile; throws OutputError naming the
// file and the OS reason (a full disk, /dev/full), leaving no partial file.
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba);

}  // namespace depthsort::app
