// What a scene is built from (build_scene, scene/scene.hpp): the command line fills it, the panel
// edits its counts (the particles, the knot's triangles) and its "rebuild scene" builds it again.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace depthsort::app {

enum class SceneKind { Knot, Test, Mixed, Intersect, None };

struct SceneSpec {
  SceneKind kind = SceneKind::Knot;      // --scene: the procedural knot, the test triangles, ...
  std::vector<std::string> meshes;       // --mesh FILE (several allowed); replaces the knot
  std::optional<std::size_t> copies;     // --copies N: the meshes (or the knot) tiled N times
  std::optional<std::size_t> triangles;  // --triangles N: the meshes tiled to about N, or the knot's size
  std::optional<std::size_t> particles;  // --particles N: the fountain's
  std::optional<float> opacity;          // --opacity A (else the scene's own)

  bool operator==(const SceneSpec&) const = default;
};

}  // namespace depthsort::app
