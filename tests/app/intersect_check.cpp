#include "intersect_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "depthsort/frame/depth.hpp"
#include "scene/mesh.hpp"
#include "scene/scene.hpp"

namespace depthsort::app::test {

namespace {

class CpuRaster {
 public:
  CpuRaster(int width, int height) : width_(width), height_(height) {
    std::string notes;
    SceneSpec spec;
    spec.kind = SceneKind::Intersect;
    scene_ = build_scene(spec, true, notes);
    Camera camera = scene_.camera;
    camera.fit_planes(scene_.centre, scene_.radius);  // as every frame does
    const glm::mat4 clip = camera.projection(static_cast<float>(width) / static_cast<float>(height)) * camera.view();
    const Mesh& mesh = scene_.mesh;
    for (std::size_t t = 0; t < mesh.triangles(); ++t) {
      Triangle tri;
      for (int k = 0; k < 3; ++k) {
        const MeshVertex& v = mesh.vertices[mesh.indices[3 * t + static_cast<std::size_t>(k)]];
        const glm::vec4 c = clip * glm::vec4(v.x, v.y, v.z, 1.0f);
        tri.x[k] = (c.x / c.w * 0.5 + 0.5) * width;
        tri.y[k] = (c.y / c.w * 0.5 + 0.5) * height;
        tri.z[k] = c.z / c.w * 0.5 + 0.5;
        tri.rgba = v.rgba;
      }
      tri.key = primitive_key(camera.depth_plane(), mesh.vertices.data(), mesh.indices.data(), mesh.triangles(),
                              nullptr, static_cast<std::uint32_t>(t));
      triangles_.push_back(tri);
    }
    // The sorted mode's order: ascending keys, far first.
    order_.resize(triangles_.size());
    std::iota(order_.begin(), order_.end(), 0);
    const auto key = [&](int id) { return triangles_[static_cast<std::size_t>(id)].key; };
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) < key(b); });
  }

  // The triangles covering window point (x, y), far first by their depth there.
  std::vector<int> layers(double x, double y) const {
    std::vector<std::pair<double, int>> found;
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
      const Triangle& tri = triangles_[t];
      const auto edge = [&](int a, int b) {
        return (tri.x[b] - tri.x[a]) * (y - tri.y[a]) - (tri.y[b] - tri.y[a]) * (x - tri.x[a]);
      };
      const double e0 = edge(1, 2), e1 = edge(2, 0), e2 = edge(0, 1), area = e0 + e1 + e2;
      if (area == 0 || !((e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0))) continue;
      const double z = (e0 * tri.z[0] + e1 * tri.z[1] + e2 * tri.z[2]) / area;
      found.emplace_back(z, static_cast<int>(t));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> ids;
    for (const auto& f : found) ids.push_back(f.second);
    return ids;
  }

  // Whether a pixel's layers are the same over its neighbourhood (its centre and +-1 pixel):
  // no edge and no crossing of two triangles within one pixel of it.
  bool settled(int px, int py) const {
    const std::vector<int> centre = layers(px + 0.5, py + 0.5);
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (layers(px + 0.5 + dx, py + 0.5 + dy) != centre) return false;
    return true;
  }

  // The blend of `ids` in that order over black, each step rounded to 8 bits (an RGBA8 target).
  std::array<int, 3> blend(const std::vector<int>& ids) const {
    double rgb[3] = {0, 0, 0};
    for (const int id : ids) {
      const std::uint32_t c = triangles_[static_cast<std::size_t>(id)].rgba;
      const double a = static_cast<double>((c >> 24) & 255) / 255.0;
      for (int k = 0; k < 3; ++k) {
        const double s = static_cast<double>((c >> (8 * k)) & 255) / 255.0;
        rgb[k] = std::round((s * a + rgb[k] * (1 - a)) * 255.0) / 255.0;
      }
    }
    return {static_cast<int>(std::lround(rgb[0] * 255)), static_cast<int>(std::lround(rgb[1] * 255)),
            static_cast<int>(std::lround(rgb[2] * 255))};
  }

  // `ids` in the sorted mode's order (by centroid key) instead of per pixel.
  std::vector<int> primitive_order(const std::vector<int>& ids) const {
    std::vector<int> out;
    for (const int id : order_)
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) out.push_back(id);
    return out;
  }

 private:
  struct Triangle {
    double x[3], y[3], z[3];
    std::uint32_t rgba = 0;
    float key = 0;
  };
  int width_, height_;
  Scene scene_;
  std::vector<Triangle> triangles_;
  std::vector<int> order_;
};

int channel_difference(std::array<int, 4> got, std::array<int, 3> want) {
  int d = 0;
  for (std::size_t c = 0; c < 3; ++c) d = std::max(d, std::abs(got[c] - want[c]));
  return d;
}

int pixel_difference(const Image& a, const Image& b, int x, int y) {
  const std::array<int, 4> p = b.at(x, y);
  return channel_difference(a.at(x, y), {p[0], p[1], p[2]});
}

}  // namespace

IntersectCheck check_intersect(const Image& sorted, const Image& reference) {
  const int w = reference.width, h = reference.height;
  const CpuRaster cpu(w, h);
  IntersectCheck check;
  const auto fail = [&](int& count, int x, int y, const char* what) {
    if (++count <= 3) check.first_failures += "(" + std::to_string(x) + "," + std::to_string(y) + "): " + what + "\n";
  };
  for (int py = 0; py < h; ++py) {
    for (int px = 0; px < w; ++px) {
      if (!cpu.settled(px, py)) {
        ++check.skipped;
        continue;
      }
      ++check.compared;
      const std::vector<int> per_pixel = cpu.layers(px + 0.5, py + 0.5);
      const std::array<int, 3> exact = cpu.blend(per_pixel), by_primitive = cpu.blend(cpu.primitive_order(per_pixel));
      int d = 0;
      for (std::size_t c = 0; c < 3; ++c) d = std::max(d, std::abs(exact[c] - by_primitive[c]));
      const bool must_differ = d > 2;
      check.must_differ += must_differ ? 1 : 0;
      const int y = h - 1 - py;  // the screenshot's top row first
      if (channel_difference(reference.at(px, y), exact) > 2)
        fail(check.wrong_reference, px, y, "the reference is not the CPU's per-pixel blend");
      if (channel_difference(sorted.at(px, y), by_primitive) > 2)
        fail(check.wrong_sorted, px, y, "the sorted picture is not the CPU's blend in primitive order");
      if ((pixel_difference(sorted, reference, px, y) > 2) != must_differ)
        fail(check.wrong_difference, px, y,
             must_differ ? "sorted equals the reference where the CPU says it must differ"
                         : "sorted differs from the reference where the CPU says it must not");
    }
  }
  return check;
}

}  // namespace depthsort::app::test
