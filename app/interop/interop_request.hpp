// The --interop choice, apart from gl_interop.hpp so that the command line needs no CUDA header.
#pragma once

#include <optional>
#include <string_view>

namespace depthsort::app {

// auto: external memory where it works here, else map/unmap; external: external memory or an
// error saying why not; map: cudaGraphicsMapResources every frame (interop/gl_interop.hpp).
enum class InteropRequest { Auto, External, Map };

constexpr std::optional<InteropRequest> parse_interop_request(std::string_view text) noexcept {
  if (text == "auto") return InteropRequest::Auto;
  if (text == "external") return InteropRequest::External;
  if (text == "map") return InteropRequest::Map;
  return std::nullopt;
}

constexpr const char* interop_request_name(InteropRequest request) noexcept {
  switch (request) {
    case InteropRequest::Auto: return "auto";
    case InteropRequest::External: return "external";
    case InteropRequest::Map: return "map";
  }
  return "?";
}

}  // namespace depthsort::app
