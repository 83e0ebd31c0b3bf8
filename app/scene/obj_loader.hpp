// OBJ meshes through tinyobjloader, with materials' diffuse colours where present. Every failure
// (missing, unreadable, empty or malformed file) throws SceneError naming the file, and the line
// where one is known; never a crash.
#pragma once

#include <stdexcept>
#include <string>

#include "scene/mesh.hpp"

namespace depthsort::app {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Loads and triangulates `path`. Faces get their material's diffuse colour (Kd, and d/Tr as alpha
// when below 1), else a colour per shape. Vertices are expanded per face corner.
Mesh load_obj(const std::string& path);

}  // namespace depthsort::app
