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

void Camera::zoom(float factor) { distance = std::clamp(distance * factor, 1e-3f, 1e5f); }

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
  c.position = c.eye();
  return c;
}

}  // namespace depthsort::app
