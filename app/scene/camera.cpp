#include "scene/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace depthsort::app {

glm::vec3 Camera::forward() const {
  return {std::sin(yaw) * std::cos(pitch), std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
}

glm::vec3 Camera::eye() const { return mode == CameraMode::Orbit ? target - forward() * distance : position; }

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

namespace {

// The frame layer's camera (camera_path.hpp) and back: the paths are computed there.
PathCamera to_path_camera(const Camera& c) {
  return PathCamera{c.mode == CameraMode::Fly,
                    {c.target.x, c.target.y, c.target.z},
                    c.distance,
                    c.yaw,
                    c.pitch,
                    {c.position.x, c.position.y, c.position.z},
                    c.fov_y,
                    c.near_plane,
                    c.far_plane};
}

Camera from_path_camera(const PathCamera& p) {
  Camera c;
  c.mode = p.fly ? CameraMode::Fly : CameraMode::Orbit;
  c.target = {p.target.x, p.target.y, p.target.z};
  c.distance = p.distance;
  c.yaw = p.yaw;
  c.pitch = p.pitch;
  c.position = {p.position.x, p.position.y, p.position.z};
  c.fov_y = p.fov_y;
  c.near_plane = p.near_plane;
  c.far_plane = p.far_plane;
  return c;
}

}  // namespace

Camera Camera::framing(glm::vec3 lo, glm::vec3 hi, float fov_y) {
  Camera c = from_path_camera(framing_camera({lo.x, lo.y, lo.z}, {hi.x, hi.y, hi.z}, fov_y));
  const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
  c.min_distance = 0.02f * radius;
  c.max_distance = 10.0f * c.distance;
  return c;
}

Camera camera_on_path(CameraPath path, const Camera& base, std::uint64_t frame, std::uint64_t frames) {
  Camera c = from_path_camera(depthsort::camera_on_path(path, to_path_camera(base), frame, frames));
  c.min_distance = base.min_distance;
  c.max_distance = base.max_distance;
  return c;
}

}  // namespace depthsort::app
