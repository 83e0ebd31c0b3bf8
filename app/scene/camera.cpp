#include "scene/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace depthsort::app {

glm::vec3 Camera::forward() const {
  return {std::sin(yaw) * std::cos(pitch), std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
}

glm::vec3 Camera::eye() const {
  return mode == CameraMode::Orbit ? target - forward() * distance : position;
}

glm::mat4 Camera::view() const {
  const glm::vec3 e = eye();
  return glm::lookAt(e, e + forward(), glm::vec3(0, 1, 0));
}

glm::mat4 Camera::projection(float aspect) const {
  return glm::perspective(fov_y, aspect > 0 ? aspect : 1.0f, near_plane, far_plane);
}

DepthPlane Camera::depth_plane() const {
  const glm::mat4 v = view();  // column-major: v[col][row]
  return {v[0][2], v[1][2], v[2][2], v[3][2]};
}

void Camera::orbit(float d_yaw, float d_pitch) {
  yaw += d_yaw;
  pitch = std::clamp(pitch + d_pitch, -1.5f, 1.5f);
}

void Camera::zoom(float factor) { distance = std::clamp(distance * factor, min_distance, max_distance); }

void Camera::fit_planes(glm::vec3 centre, float radius) {
  // Ratio far / near at most kDepthRange: a 24-bit depth buffer keeps about 2^24 / kDepthRange
  // steps over the scene's depth.
  constexpr float kDepthRange = 4000.0f;
  const float r = std::max(radius, 1e-4f);
  const float to_centre = glm::length(eye() - centre);
  far_plane = (to_centre + r) * 1.01f;
  near_plane = std::max((to_centre - r) * 0.99f, far_plane / kDepthRange);
}

void Camera::fly(glm::vec3 m) {
  const glm::vec3 f = forward();
  const glm::vec3 r = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
  const glm::vec3 u = glm::cross(r, f);
  position += r * m.x + u * m.y + f * m.z;
}

void Camera::set_mode(CameraMode m) {
  if (m == mode) return;
  if (m == CameraMode::Fly) {
    position = eye();
  } else {
    target = position + forward() * distance;
  }
  mode = m;
}

Camera Camera::framing(glm::vec3 lo, glm::vec3 hi, float fov_y) {
  Camera c;
  c.fov_y = fov_y;
  c.target = 0.5f * (lo + hi);
  const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
  c.distance = radius / std::sin(0.5f * fov_y) * 0.85f;
  c.yaw = 0.35f;
  c.pitch = -0.3f;
  c.near_plane = std::max(c.distance * 1e-3f, 1e-3f);
  c.far_plane = c.distance + 4.0f * radius;
  c.min_distance = 0.02f * radius;
  c.max_distance = 10.0f * c.distance;
  c.position = c.eye();
  return c;
}

std::optional<CameraPath> parse_camera_path(std::string_view text) noexcept {
  if (text == "none") return CameraPath::None;
  if (text == "orbit") return CameraPath::Orbit;
  if (text == "fly-through") return CameraPath::FlyThrough;
  if (text == "cuts") return CameraPath::Cuts;
  return std::nullopt;
}

const char* camera_path_name(CameraPath path) noexcept {
  switch (path) {
    case CameraPath::None: return "none";
    case CameraPath::Orbit: return "orbit";
    case CameraPath::FlyThrough: return "fly-through";
    case CameraPath::Cuts: return "cuts";
  }
  return "?";
}

namespace {

constexpr float kTwoPi = 6.28318530717958f;

// The fly-through curve at parameter t (one loop over [0, 2 pi)), in units of the scene's
// radius around its centre: through the centre at t = 0 and pi, out to 1.5 radii between.
// Its derivative never vanishes (x' = 0 needs cos t = 0, where z' = -1.6), so the camera's
// direction, taken from it, is smooth.
glm::vec3 fly_curve(float t) {
  return {1.25f * std::sin(t), 0.3f * std::sin(2.0f * t + 0.5f), 0.8f * std::sin(2.0f * t)};
}
glm::vec3 fly_tangent(float t) {
  return {1.25f * std::cos(t), 0.6f * std::cos(2.0f * t + 0.5f), 1.6f * std::cos(2.0f * t)};
}

}  // namespace

Camera camera_on_path(CameraPath path, const Camera& base, std::uint64_t frame, std::uint64_t frames) {
  const float turn = frames > 0 ? static_cast<float>(frame % frames) / static_cast<float>(frames) : 0.0f;
  Camera c = base;
  switch (path) {
    case CameraPath::None:
      return c;
    case CameraPath::Orbit:
      c.yaw = base.yaw + kTwoPi * turn;
      return c;
    case CameraPath::FlyThrough: {
      // The scene's radius, from the framing distance (the inverse of Camera::framing).
      const float radius = base.distance * std::sin(0.5f * base.fov_y) / 0.85f;
      const float t = kTwoPi * turn;
      const glm::vec3 eye = base.target + radius * fly_curve(t);
      // Along the path, turned towards the centre so the scene stays in view; the pull has at
      // most 0.76 of the tangent's unit length, so the sum never vanishes.
      const glm::vec3 ahead = glm::normalize(fly_tangent(t)) + 0.5f * (base.target - eye) / radius;
      const glm::vec3 f = glm::normalize(ahead);
      c.mode = CameraMode::Fly;
      c.position = eye;
      c.yaw = std::atan2(f.x, -f.z);
      c.pitch = std::asin(std::clamp(f.y, -1.0f, 1.0f));
      // Inside the scene: nearer near plane; the far plane covers the scene from the curve's
      // farthest point (1.51 radii out).
      c.near_plane = std::max(radius * 1e-3f, 1e-4f);
      c.far_plane = std::max(base.far_plane, 3.0f * radius);
      return c;
    }
    case CameraPath::Cuts: {
      // Viewpoint k = frame / kCutEvery: the golden angle apart in yaw (no two alike), pitch and
      // distance cycling; within a viewpoint the orbit goes on as on the orbit path.
      const std::uint64_t k = frame / kCutEvery;
      constexpr std::array<float, 4> kPitch{-0.3f, 0.55f, -0.95f, 0.2f};
      constexpr std::array<float, 3> kDistance{1.0f, 0.6f, 1.35f};
      c.yaw = base.yaw + kTwoPi * turn + 2.39996323f * static_cast<float>(k % 1000);
      c.pitch = kPitch[k % kPitch.size()];
      c.distance = base.distance * kDistance[k % kDistance.size()];
      c.far_plane = std::max(base.far_plane, base.far_plane - base.distance + c.distance);
      return c;
    }
  }
  return c;
}

}  // namespace depthsort::app
