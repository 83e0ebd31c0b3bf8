// The scripted camera paths of --camera-path: deterministic per frame, the orbit once around the
// scene, a fly-through that moves smoothly through the scene and out past it and closes its
// loop, and cuts that jump to another viewpoint exactly every kCutEvery frames and move
// smoothly in between.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>

#include "scene/camera.hpp"

namespace depthsort::app::test {
namespace {

const Camera kBase = Camera::framing(glm::vec3(-1.0f, -0.5f, -2.0f), glm::vec3(1.0f, 0.5f, 2.0f));
const float kRadius = 0.5f * glm::length(glm::vec3(2.0f, 1.0f, 4.0f));
constexpr std::uint64_t kFrames = 300;

bool finite(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

float eye_step(CameraPath path, std::uint64_t f) {
  return glm::length(camera_on_path(path, kBase, f + 1, kFrames).eye() - camera_on_path(path, kBase, f, kFrames).eye());
}
float turn_step(CameraPath path, std::uint64_t f) {
  const float d = glm::dot(camera_on_path(path, kBase, f + 1, kFrames).forward(),
                           camera_on_path(path, kBase, f, kFrames).forward());
  return std::acos(std::fmin(1.0f, d));
}

TEST(CameraPath, NamesRoundTrip) {
  for (const CameraPath p : {CameraPath::None, CameraPath::Orbit, CameraPath::FlyThrough, CameraPath::Cuts})
    EXPECT_EQ(parse_camera_path(camera_path_name(p)), p);
  EXPECT_FALSE(parse_camera_path("fly"));
  EXPECT_FALSE(parse_camera_path(""));
}

TEST(CameraPath, EveryPathIsAFunctionOfTheFrameIndex) {
  for (const CameraPath p : {CameraPath::Orbit, CameraPath::FlyThrough, CameraPath::Cuts})
    for (const std::uint64_t f : {0ull, 1ull, 29ull, 30ull, 299ull, 12345ull}) {
      const Camera a = camera_on_path(p, kBase, f, kFrames), b = camera_on_path(p, kBase, f, kFrames);
      EXPECT_EQ(a.view(), b.view()) << camera_path_name(p) << " frame " << f;
      EXPECT_TRUE(finite(a.view()) && finite(a.projection(16.0f / 9.0f))) << camera_path_name(p) << " frame " << f;
    }
  EXPECT_EQ(camera_on_path(CameraPath::None, kBase, 17, kFrames).view(), kBase.view());
  // One frame, or none: no division by zero.
  EXPECT_TRUE(finite(camera_on_path(CameraPath::FlyThrough, kBase, 0, 1).view()));
  EXPECT_TRUE(finite(camera_on_path(CameraPath::Cuts, kBase, 0, 0).view()));
}

TEST(CameraPath, OrbitGoesOnceAroundAsBefore) {
  for (const std::uint64_t f : {0ull, 75ull, 150ull}) {
    const Camera c = camera_on_path(CameraPath::Orbit, kBase, f, kFrames);
    EXPECT_FLOAT_EQ(c.yaw, kBase.yaw + 2.0f * 3.14159265358979f * static_cast<float>(f) / kFrames);
    EXPECT_FLOAT_EQ(c.distance, kBase.distance);
    EXPECT_NEAR(glm::length(c.eye() - kBase.target), kBase.distance, 1e-3f * kBase.distance);
  }
}

TEST(CameraPath, FlyThroughIsSmoothPassesThroughTheSceneAndCloses) {
  float largest_step = 0, largest_turn = 0, nearest = 1e9f, farthest = 0;
  for (std::uint64_t f = 0; f < kFrames; ++f) {
    largest_step = std::fmax(largest_step, eye_step(CameraPath::FlyThrough, f));  // f + 1 = kFrames wraps to 0
    largest_turn = std::fmax(largest_turn, turn_step(CameraPath::FlyThrough, f));
    const float d = glm::length(camera_on_path(CameraPath::FlyThrough, kBase, f, kFrames).eye() - kBase.target);
    nearest = std::fmin(nearest, d);
    farthest = std::fmax(farthest, d);
  }
  // Path length is under 8 radii: 300 even steps are each well under 0.05 radii.
  EXPECT_LT(largest_step, 0.05f * kRadius);
  EXPECT_LT(largest_turn, 0.1f);  // radians a frame
  EXPECT_LT(nearest, 0.2f * kRadius) << "passes through the middle of the scene";
  EXPECT_GT(farthest, 1.2f * kRadius) << "goes out past the scene's bounds";
  // The last frame leads smoothly back into the first (wrap-around, no jump).
  const float closing = glm::length(camera_on_path(CameraPath::FlyThrough, kBase, kFrames - 1, kFrames).eye() -
                                    camera_on_path(CameraPath::FlyThrough, kBase, 0, kFrames).eye());
  EXPECT_LT(closing, 0.05f * kRadius);
}

TEST(CameraPath, CutsJumpEveryKFramesAndMoveSmoothlyBetween) {
  ASSERT_EQ(kCutEvery, 30u);
  float largest_smooth = 0, smallest_jump = 1e9f;
  for (std::uint64_t f = 0; f + 1 < kFrames; ++f) {
    const float step = eye_step(CameraPath::Cuts, f);
    if ((f + 1) % kCutEvery == 0)
      smallest_jump = std::fmin(smallest_jump, step);
    else
      largest_smooth = std::fmax(largest_smooth, step);
  }
  EXPECT_LT(largest_smooth, 0.05f * kBase.distance);
  EXPECT_GT(smallest_jump, 0.3f * kBase.distance);
  // The first viewpoint is the orbit's.
  EXPECT_EQ(camera_on_path(CameraPath::Cuts, kBase, 10, kFrames).view(),
            camera_on_path(CameraPath::Orbit, kBase, 10, kFrames).view());
}

}  // namespace
}  // namespace depthsort::app::test
