// The camera: orbit (around a target) or fly (free position), with saved viewpoints, and the
// scripted camera paths of headless runs (--camera-path).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "depthsort/frame/camera_path.hpp"
#include "depthsort/frame/depth.hpp"

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
  // The wheel's limits on the orbit distance (Camera::framing sets them from the scene's size).
  float min_distance = 1e-3f, max_distance = 1e5f;

  glm::vec3 eye() const;
  glm::vec3 forward() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;
  // Row 2 of view(): keys for the depth kernels (depth.hpp).
  DepthPlane depth_plane() const;

  void orbit(float d_yaw, float d_pitch);
  // Orbit distance times `factor`, within [min_distance, max_distance].
  void zoom(float factor);
  // Near and far planes that hold the sphere (`centre`, `radius`) from where the eye is now:
  // far just past its far side, near just before its near side (or, with the eye inside it, a
  // fixed fraction of far), so the scene is never cut and the depth buffer's precision is spent
  // on the scene. Called every frame: the planes follow the zoom and the fly keys.
  void fit_planes(glm::vec3 centre, float radius);
  // Moves in fly mode along (right, up, forward) in world units.
  void fly(glm::vec3 local_move);
  // Switches mode keeping the same eye and direction.
  void set_mode(CameraMode m);
  // Orbit camera framing a bounding box, its zoom limited to 1/50 of the box's radius in and ten
  // times the framing distance out.
  static Camera framing(glm::vec3 lo, glm::vec3 hi, float fov_y = 0.9f);
};

// Up to three saved viewpoints (the panel's buttons), the first is the scene's reset view.
struct Viewpoints {
  std::array<Camera, 3> saved{};
  std::array<bool, 3> used{};
};

// The scripted paths of headless runs (--camera-path) are the frame layer's (camera_path.hpp),
// the benchmark's too.
using depthsort::camera_path_name;
using depthsort::CameraPath;
using depthsort::kCutEvery;
using depthsort::parse_camera_path;

// The camera of frame `frame` of a run of `frames` frames on `path`, from `base`, the scene's
// framing orbit camera (Camera::framing): a function of its arguments only, so runs repeat.
// None gives `base`.
Camera camera_on_path(CameraPath path, const Camera& base, std::uint64_t frame, std::uint64_t frames);

}  // namespace depthsort::app
