// Triangle meshes on the host: what goes into the GL vertex buffer (MeshVertex) and the static
// triangle list (three indices per triangle) the depth and gather kernels read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "depthsort/frame/depth.hpp"

namespace depthsort::app {

struct Mesh {
  std::vector<MeshVertex> vertices;
  std::vector<std::uint32_t> indices;  // 3 per triangle
  std::size_t triangles() const noexcept { return indices.size() / 3; }
  glm::vec3 bounds_min() const;
  glm::vec3 bounds_max() const;
};

std::uint32_t pack_rgba(glm::vec4 colour);
glm::vec4 unpack_rgba(std::uint32_t rgba);
glm::vec3 hsv_to_rgb(float h, float s, float v);

// A (p, q) torus-knot tube of about `target_triangles` triangles, coloured along its length.
Mesh make_knot(std::size_t target_triangles, int p = 3, int q = 7);
// What make_knot(target_triangles) builds, known before it is built: its tube's segments along
// and around, and so its triangles (2 x along x around, at least kKnotMinTriangles) and vertices.
struct KnotSize {
  int along = 0, around = 0;
  std::size_t triangles() const noexcept { return 2 * static_cast<std::size_t>(along) * around; }
  std::size_t vertices() const noexcept { return static_cast<std::size_t>(along) * around; }
};
KnotSize knot_size(std::size_t target_triangles);
constexpr std::size_t kKnotMinTriangles = 2 * 16 * 4;
// The test scene: three large overlapping camera-facing triangles at view depths 3, 4 and 5 from
// the test camera (eye (0,0,3)), submitted nearest first: blue (z=0), green (z=-1), red (z=-2),
// each with alpha 128. Sorted back to front the centre pixel is (red, then green, then blue).
Mesh make_test_triangles();
// The scene no order of whole primitives draws right (--scene intersect), for the test camera:
// on the left a triangle facing the camera (red, z = 0) crossed by one tilted through it (blue:
// its bottom behind, its top in front, its centroid behind the red one's); on the right three
// long thin triangles (green, yellow, cyan) in a cycle, each over the next where they cross and
// under the one before, their centroids a little apart in depth. Each with alpha 128.
Mesh make_intersecting_triangles();
// `copies` copies of `mesh` on a 3D grid (a tenth of its size apart), each slightly tinted.
Mesh tile(const Mesh& mesh, std::size_t copies);
// Appends `other` to `mesh` (indices rebased). Throws if the result exceeds 2^32 vertices.
void append(Mesh& mesh, const Mesh& other);

}  // namespace depthsort::app
