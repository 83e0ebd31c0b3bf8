// The camera: orbit (around a target) or fly (free position), with saved viewpoints, and the
// scripted camera paths of headless runs (--camera-path).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "depthsort/camera_path.hpp"
#include "depthsort/depth.hpp"

namespace depthsort::app {

enum class CameraMode { Orbit, Fly };

struct Camera {
  CameraMode mode = CameraMode::Orbit;
  glm::vec3 target{0.0f};       // orbit centre
  float distance = 4.0f;        // orbit radius
  float yaw = 0.0f;             // radians, around +y; 0 looks down -z
  float pitch = 0.0f;           // radians
  glm::vec3 position{0, 0, 4};  // fly mode eye
  float fov_y = 0.9f;           // radians
  float near_plane = 0.01f, far_plane = 1000.0f;

  glm::vec3 eye() const;
  glm::vec3 forward() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;
  // Row 2 of view(): keys for the depth kernels (depth.hpp).
  DepthPlane depth_plane() const;

  void orbit(float d_yaw, float d_pitch);
  void zoom(float factor);
  // Moves in fly mode along (right, up, forward) in world units.
  void fly(glm::vec3 local_move);
  // Switches mode keeping the same eye and direction.
  void set_mode(CameraMode m);
  // Orbit camera framing a bounding box.
  static Camera framing(glm::vec3 lo, glm::vec3 hi, float fov_y = 0.9f);
};

// Up to three saved viewpoints (the panel's buttons), the first is the scene's reset view.
struct Viewpoints {
  std::array<Camera, 3> saved{};
  std::array<bool, 3> used{};
};

// The scripted paths of headless runs (--camera-path) are the frame layer's (camera_path.hpp),
// the benchmark's too.
using depthsort::CameraPath;
using depthsort::camera_path_name;
using depthsort::kCutEvery;
using depthsort::parse_camera_path;

// The camera of frame `frame` of a run of `frames` frames on `path`, from `base`, the scene's
// framing orbit camera (Camera::framing): a function of its arguments only, so runs repeat.
// None gives `base`.
Camera camera_on_path(CameraPath path, const Camera& base, std::uint64_t frame, std::uint64_t frames);

}  // namespace depthsort::app
