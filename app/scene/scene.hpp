// What a run draws: the mesh (OBJ files, the procedural knot or the test triangles, tiled), the
// particle emitter, and the look (camera, opacity, background), built from the Config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <glm/vec3.hpp>

#include "cli.hpp"
#include "depthsort/particles.hpp"
#include "scene/camera.hpp"
#include "scene/mesh.hpp"

namespace depthsort::app {

struct Scene {
  Mesh mesh;
  std::size_t particles = 0;
  EmitterParams emitter;
  Camera camera;
  float opacity = 0.35f;
  bool lighting = true;
  glm::vec3 background{0.06f, 0.065f, 0.08f};
  std::string description;  // one line for the console and the panel
};

// The knot's default size on each path: the GPU path draws millions; the CPU path (software GL,
// CPU sort) scales itself down to stay interactive.
constexpr std::size_t kKnotTrianglesGpu = 2'000'000;
constexpr std::size_t kKnotTrianglesCpu = 20'000;

// The largest scenes a run accepts: glDrawElements takes its index count as a GLsizei (int32),
// three indices per triangle and one per particle.
constexpr std::size_t kMaxTriangles = INT32_MAX / 3;
constexpr std::size_t kMaxParticles = INT32_MAX;

// Throws SceneError (scene/obj_loader.hpp) for bad OBJ files and for triangle or particle counts
// above kMaxTriangles / kMaxParticles (before building anything that large). `notes` receives lines to print
// (such as the CPU path's scaling down).
Scene build_scene(const Config& config, bool cpu_path, std::string& notes);

}  // namespace depthsort::app
