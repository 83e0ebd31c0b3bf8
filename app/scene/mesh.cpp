#include "scene/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "depthsort/frame/torus_knot.hpp"

namespace depthsort::app {

glm::vec3 Mesh::bounds_min() const {
  glm::vec3 m(std::numeric_limits<float>::max());
  for (const MeshVertex& v : vertices) m = glm::min(m, glm::vec3(v.x, v.y, v.z));
  return vertices.empty() ? glm::vec3(0) : m;
}
glm::vec3 Mesh::bounds_max() const {
  glm::vec3 m(std::numeric_limits<float>::lowest());
  for (const MeshVertex& v : vertices) m = glm::max(m, glm::vec3(v.x, v.y, v.z));
  return vertices.empty() ? glm::vec3(0) : m;
}

std::uint32_t pack_rgba(glm::vec4 c) {
  const auto byte = [](float x) { return static_cast<std::uint32_t>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f)); };
  return byte(c.r) | byte(c.g) << 8 | byte(c.b) << 16 | byte(c.a) << 24;
}

glm::vec4 unpack_rgba(std::uint32_t rgba) {
  return glm::vec4(rgba & 0xFF, (rgba >> 8) & 0xFF, (rgba >> 16) & 0xFF, rgba >> 24) / 255.0f;
}

glm::vec3 hsv_to_rgb(float h, float s, float v) {
  h = h - std::floor(h);
  const float i = std::floor(h * 6.0f), f = h * 6.0f - i;
  const float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (static_cast<int>(i) % 6) {
    case 0:
      return {v, t, p};
    case 1:
      return {q, v, p};
    case 2:
      return {p, v, t};
    case 3:
      return {p, q, v};
    case 4:
      return {t, p, v};
    default:
      return {v, p, q};
  }
}

KnotSize knot_size(std::size_t target_triangles) {
  // Tube of `around` segments round, `along` segments long: 2 * along * around triangles.
  const double half = std::max<double>(static_cast<double>(target_triangles) / 2.0, 64.0);
  KnotSize size;
  size.around = std::clamp(static_cast<int>(std::lround(std::sqrt(half / 40.0))), 4, 512);
  size.along = std::max(16, static_cast<int>(std::lround(half / size.around)));
  return size;
}

Mesh make_knot(std::size_t target_triangles, int p, int q) {
  const KnotSize size = knot_size(target_triangles);
  const int around = size.around, along = size.along;
  const TorusKnot knot{.p = p, .q = q};
  Mesh mesh;
  mesh.vertices.reserve(static_cast<std::size_t>(along) * around);
  mesh.indices.reserve(static_cast<std::size_t>(along) * around * 6);
  for (int i = 0; i < along; ++i) {
    const double t = static_cast<double>(i) / along;
    const KnotRing ring = knot_ring(knot, t);
    const glm::vec3 rgb = hsv_to_rgb(static_cast<float>(t * 3.0), 0.75f, 1.0f);
    for (int j = 0; j < around; ++j) {
      const double a = 2.0 * M_PI * j / around;
      const Point3d pos = ring_point(ring, a, knot.tube);
      const float shade = 0.8f + 0.2f * static_cast<float>(std::cos(a));
      mesh.vertices.push_back({static_cast<float>(pos[0]), static_cast<float>(pos[1]), static_cast<float>(pos[2]),
                               pack_rgba(glm::vec4(rgb * shade, 1.0f))});
    }
  }
  for (int i = 0; i < along; ++i)
    for (int j = 0; j < around; ++j) {
      const auto at = [&](int ii, int jj) { return static_cast<std::uint32_t>((ii % along) * around + (jj % around)); };
      const std::uint32_t a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
      mesh.indices.insert(mesh.indices.end(), {a, b, c, a, c, d});
    }
  return mesh;
}

Mesh make_test_triangles() {
  Mesh mesh;
  const struct {
    float z, dx;
    glm::vec4 colour;
  } tris[3] = {{0.0f, -0.4f, {0, 0, 1, 128 / 255.0f}},   // near, blue (first in memory)
               {-1.0f, 0.0f, {0, 1, 0, 128 / 255.0f}},   // middle, green
               {-2.0f, 0.4f, {1, 0, 0, 128 / 255.0f}}};  // far, red (last)
  for (const auto& t : tris) {
    const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
    const std::uint32_t c = pack_rgba(t.colour);
    mesh.vertices.push_back({-2.0f + t.dx, -1.5f, t.z, c});
    mesh.vertices.push_back({2.0f + t.dx, -1.5f, t.z, c});
    mesh.vertices.push_back({0.0f + t.dx, 2.0f, t.z, c});
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2});
  }
  return mesh;
}

Mesh make_intersecting_triangles() {
  Mesh mesh;
  const auto add = [&mesh](glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec3 rgb) {
    const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
    const std::uint32_t colour = pack_rgba(glm::vec4(rgb, 128 / 255.0f));
    for (const glm::vec3& p : {a, b, c}) mesh.vertices.push_back({p.x, p.y, p.z, colour});
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2});
  };
  // Two triangles through each other: the blue one's top half is in front of the red one, its
  // bottom half behind; its centroid is behind, so a sort of whole triangles draws it first.
  add({-1.65f, -1.0f, 0.0f}, {-0.25f, -1.0f, 0.0f}, {-0.95f, 1.05f, 0.0f}, {1.0f, 0.2f, 0.2f});
  add({-1.55f, -1.1f, -0.6f}, {-0.35f, -1.1f, -0.6f}, {-0.95f, 1.0f, 0.6f}, {0.2f, 0.4f, 1.0f});
  // Three sticks round a centre, each at distance r from it along its normal and running along
  // its direction d from a base of width w at t = -l to a tip at t = +l, nearer the camera as t
  // grows. Neighbouring sticks cross where one is at t = +r sqrt(3) and the next at -r sqrt(3),
  // so each is in front of the next: a cycle. Offsets of 0.04 in depth order their centroids.
  const glm::vec2 centre(0.95f, 0.0f);
  constexpr float r = 0.3f, l = 0.85f, w = 0.45f, depth = 0.35f;
  const glm::vec3 colours[3] = {{0.2f, 1.0f, 0.3f}, {1.0f, 0.9f, 0.1f}, {0.1f, 0.9f, 1.0f}};
  for (int k = 0; k < 3; ++k) {
    const float angle = 1.5707963f + 2.0943951f * static_cast<float>(k);
    const glm::vec2 d(std::cos(angle), std::sin(angle)), n(d.y, -d.x);
    const glm::vec2 middle = centre + r * n;
    const float z = 0.04f * static_cast<float>(k);
    const glm::vec2 b0 = middle - l * d + 0.5f * w * n, b1 = middle - l * d - 0.5f * w * n, tip = middle + l * d;
    add({b0, z - depth}, {b1, z - depth}, {tip, z + depth}, colours[k]);
  }
  return mesh;
}

void append(Mesh& mesh, const Mesh& other) {
  if (mesh.vertices.size() + other.vertices.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::runtime_error("scene too large: more than 2^32 vertices");
  const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
  mesh.vertices.insert(mesh.vertices.end(), other.vertices.begin(), other.vertices.end());
  mesh.indices.reserve(mesh.indices.size() + other.indices.size());
  for (const std::uint32_t i : other.indices) mesh.indices.push_back(base + i);
}

Mesh tile(const Mesh& mesh, std::size_t copies) {
  if (copies <= 1) return mesh;
  if (mesh.vertices.size() * copies > std::numeric_limits<std::uint32_t>::max())
    throw std::runtime_error("scene too large: " + std::to_string(copies) + " copies of " +
                             std::to_string(mesh.vertices.size()) + " vertices exceed 2^32 vertices");
  const glm::vec3 lo = mesh.bounds_min(), hi = mesh.bounds_max();
  const glm::vec3 centre = 0.5f * (lo + hi);
  // Per-axis spacing: copies sit close (a tenth of the largest extent apart), so they overlap in view.
  const glm::vec3 extent = glm::max(hi - lo, glm::vec3(1e-3f));
  const glm::vec3 spacing = extent + 0.1f * std::max({extent.x, extent.y, extent.z});
  const auto side = static_cast<std::size_t>(std::ceil(std::cbrt(static_cast<double>(copies)) - 1e-9));
  Mesh out;
  out.vertices.reserve(mesh.vertices.size() * copies);
  out.indices.reserve(mesh.indices.size() * copies);
  for (std::size_t k = 0; k < copies; ++k) {
    const glm::vec3 cell(static_cast<float>(k % side), static_cast<float>((k / side) % side),
                         static_cast<float>(k / (side * side)));
    const glm::vec3 offset = (cell - 0.5f * static_cast<float>(side - 1)) * spacing - centre;
    const glm::vec3 tint = 0.75f + 0.25f * hsv_to_rgb(static_cast<float>(k) * 0.137f, 1.0f, 1.0f);
    const auto base = static_cast<std::uint32_t>(out.vertices.size());
    for (const MeshVertex& v : mesh.vertices) {
      glm::vec4 c = unpack_rgba(v.rgba);
      c = glm::vec4(glm::vec3(c) * tint, c.a);
      out.vertices.push_back({v.x + offset.x, v.y + offset.y, v.z + offset.z, pack_rgba(c)});
    }
    for (const std::uint32_t i : mesh.indices) out.indices.push_back(base + i);
  }
  return out;
}

}  // namespace depthsort::app
