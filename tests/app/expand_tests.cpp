// The expanded draw's per-position function (depthsort/frame/expand.hpp), which the CPU path runs on
// the host and the GPU path's kernel on the device: triangles keep their corners, a particle
// becomes the triangle around its disc facing the camera, sized as the pulled draw sizes it, and
// the colour modes are primitive.vert's.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include "depthsort/frame/expand.hpp"
#include "loop/frame_pipeline.hpp"
#include "scene/camera.hpp"
#include "scene/mesh.hpp"

namespace depthsort::app::test {
namespace {

std::array<int, 4> bytes(std::uint32_t rgba) {
  return {static_cast<int>(rgba & 0xFF), static_cast<int>((rgba >> 8) & 0xFF), static_cast<int>((rgba >> 16) & 0xFF),
          static_cast<int>(rgba >> 24)};
}

// A camera turned away from every axis, so that swapped or wrongly signed axes show.
Camera turned_camera() {
  Camera camera;
  camera.target = glm::vec3(0.3f, -0.2f, 0.1f);
  camera.distance = 5.0f;
  camera.yaw = 0.7f;
  camera.pitch = 0.35f;
  return camera;
}

struct Expansion {
  Mesh mesh = make_test_triangles();  // three triangles, ids 0..2
  std::vector<ParticleVertex> particles;
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> starts;
  std::vector<ExpandedVertex> out;

  std::size_t n() const { return mesh.triangles() + particles.size(); }
  void run(const ExpandView& view) {
    out.assign(3 * n(), ExpandedVertex{});
    for (std::size_t r = 0; r < n(); ++r)
      expand_primitive(mesh.vertices.data(), mesh.indices.data(), mesh.triangles(), particles.data(), n(),
                       order.empty() ? nullptr : order.data(), starts.empty() ? nullptr : starts.data(),
                       static_cast<std::uint32_t>(starts.size()), view, r, out.data() + 3 * r);
  }
};

TEST(Expand, TrianglesKeepTheirCornersAndColoursInTheOrder) {
  Expansion e;
  e.order = {2, 0, 1};
  FramePlan controls;
  e.run(expand_view(turned_camera(), controls));
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < 3; ++k) {
      const MeshVertex& want = e.mesh.vertices[e.mesh.indices[3 * e.order[r] + k]];
      const ExpandedVertex& got = e.out[3 * r + k];
      EXPECT_EQ(got.x, want.x) << r << "," << k;
      EXPECT_EQ(got.y, want.y) << r << "," << k;
      EXPECT_EQ(got.z, want.z) << r << "," << k;
      EXPECT_EQ(got.rgba, want.rgba) << r << "," << k;
      EXPECT_EQ(got.corner[0], 0);  // (0, 0): the triangle flag of expanded.vert
      EXPECT_EQ(got.corner[1], 0);
    }
  // No order: submission order.
  e.order.clear();
  e.run(expand_view(turned_camera(), controls));
  EXPECT_EQ(e.out[3].x, e.mesh.vertices[e.mesh.indices[3]].x);
}

// The sprite lies in the plane facing the camera, its corners at the pulled draw's triangle
// (0, 2), (-sqrt 3, -1), (sqrt 3, -1) times the half-size in the camera's right/up axes, so its
// edges touch the disc of radius half-size round the particle.
TEST(Expand, ParticleIsTheCameraFacingTriangleAroundItsDisc) {
  const Camera camera = turned_camera();
  const glm::mat4 view = camera.view();
  FramePlan controls;
  controls.point_scale = 1000.0f;  // a pixel is tiny: the world size rules
  Expansion e;
  const glm::vec3 centre(0.4f, -0.3f, 0.6f);
  e.particles = {ParticleVertex{centre.x, centre.y, centre.z, 0.5f, 0x80112233u}};
  e.run(expand_view(camera, controls));
  const float half = 0.25f;
  const glm::vec2 corners[3] = {{0.0f, 2.0f}, {-std::sqrt(3.0f), -1.0f}, {std::sqrt(3.0f), -1.0f}};
  const glm::vec4 centre_view = view * glm::vec4(centre, 1.0f);
  for (int k = 0; k < 3; ++k) {
    const ExpandedVertex& v = e.out[9 + static_cast<std::size_t>(k)];
    const glm::vec4 at = view * glm::vec4(v.x, v.y, v.z, 1.0f);
    EXPECT_NEAR(at.x - centre_view.x, corners[k].x * half, 1e-5f) << "corner " << k;
    EXPECT_NEAR(at.y - centre_view.y, corners[k].y * half, 1e-5f) << "corner " << k;
    EXPECT_NEAR(at.z - centre_view.z, 0.0f, 1e-5f) << "corner " << k << " leaves the plane facing the camera";
    EXPECT_EQ(v.rgba, 0x80112233u);
    // Stored halved as normalized int16, never (0, 0): expanded.vert reads 2 * corner / 32767.
    EXPECT_NEAR(2.0f * v.corner[0] / 32767.0f, corners[k].x, 1e-4f) << "corner " << k;
    EXPECT_NEAR(2.0f * v.corner[1] / 32767.0f, corners[k].y, 1e-4f) << "corner " << k;
  }
}

// Below half a pixel the sprite keeps half a pixel (the point sprites' 1-pixel minimum):
// half-size = 0.5 * depth / point_scale.
TEST(Expand, TinyParticleKeepsHalfAPixel) {
  const Camera camera = turned_camera();
  FramePlan controls;
  controls.point_scale = 100.0f;
  Expansion e;
  e.particles = {ParticleVertex{camera.target.x, camera.target.y, camera.target.z, 1e-6f, 0xFFFFFFFFu}};
  e.run(expand_view(camera, controls));
  const ExpandedVertex& top = e.out[9];  // corner (0, 2): 2 half-sizes from the centre
  const float distance = glm::length(glm::vec3(top.x, top.y, top.z) - camera.target);
  EXPECT_NEAR(distance, 2.0f * 0.5f * camera.distance / 100.0f, 1e-5f);
}

// Rank: primitive.vert's ramp over the position (far blue, through cyan and green, near red, both
// ends bright), opaque; segment: its golden-ratio hues of the segment holding the position, alpha
// each vertex's own.
TEST(Expand, ColourModesColourByPosition) {
  Expansion e;
  e.particles = {ParticleVertex{0, 0, 0, 0.1f, 0x40FFFFFFu}};  // id 3
  e.order = {3, 1, 0, 2};
  FramePlan controls;
  controls.colour = ColourMode::Rank;
  e.run(expand_view(turned_camera(), controls));
  // t = 0, 1/3, 1: hue 0.62, 0.413, 0 at saturation 0.75: (64, 117, 255), (64, 255, 156), (255, 64, 64).
  EXPECT_EQ(bytes(e.out[0].rgba), (std::array<int, 4>{64, 117, 255, 255}));
  EXPECT_EQ(bytes(e.out[4].rgba), (std::array<int, 4>{64, 255, 156, 255}));
  EXPECT_EQ(bytes(e.out[11].rgba), (std::array<int, 4>{255, 64, 64, 255}));
  const auto alpha = [&](std::size_t r) {
    return static_cast<int>(e.mesh.vertices[e.mesh.indices[3 * e.order[r]]].rgba >> 24);
  };
  EXPECT_EQ(e.out[9].rgba, e.out[10].rgba);

  controls.colour = ColourMode::Segment;
  e.starts = {0, 2};  // positions 0-1 in segment 0, 2-3 in segment 1
  e.run(expand_view(turned_camera(), controls));
  // Segment 0: hue 0 (red); segment 1: hue 0.618 -> (0, 0.292, 1).
  EXPECT_EQ(bytes(e.out[3].rgba), (std::array<int, 4>{255, 0, 0, alpha(1)}));
  EXPECT_EQ(bytes(e.out[6].rgba), (std::array<int, 4>{0, 74, 255, alpha(2)}));
  e.starts.clear();  // no segments: all in segment 0
  e.run(expand_view(turned_camera(), controls));
  EXPECT_EQ(bytes(e.out[6].rgba), (std::array<int, 4>{255, 0, 0, alpha(2)}));
}

TEST(Expand, BrokenIdDrawsAZeroAreaTriangle) {
  Expansion e;
  e.order = {0, 7, 1};
  FramePlan controls;
  e.run(expand_view(turned_camera(), controls));
  for (std::size_t k = 3; k < 6; ++k) {
    EXPECT_EQ(e.out[k].x, e.out[3].x);
    EXPECT_EQ(e.out[k].y, e.out[3].y);
    EXPECT_EQ(e.out[k].z, e.out[3].z);
  }
}

}  // namespace
}  // namespace depthsort::app::test
