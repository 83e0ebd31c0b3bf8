#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "render/screenshot.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace depthsort::app {

std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgba) {
  int bytes = 0;
  const std::unique_ptr<unsigned char, decltype(&std::free)> png(
      stbi_write_png_to_mem(rgba.data(), width * 4, width, height, 4, &bytes), &std::free);
  if (!png) throw std::runtime_error("cannot encode the screenshot (out of memory)");
  return std::string(reinterpret_cast<const char*>(png.get()), static_cast<std::size_t>(bytes));
}

}  // namespace depthsort::app
