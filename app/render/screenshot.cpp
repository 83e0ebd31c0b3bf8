#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "render/screenshot.hpp"

#include <stdexcept>

namespace depthsort::app {

void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba) {
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4))
    throw std::runtime_error("cannot write screenshot " + path);
}

}  // namespace depthsort::app
