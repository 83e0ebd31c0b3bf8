// The scripted camera paths of the demo (--camera-path) and of the benchmark's frame sequences
// (--sequence): one implementation, so that both run the same frames. Host code, no GL and no
// GLM: the demo converts its Camera to and from PathCamera.
//
//   orbit        once around the scene over the run
//   fly-through  a smooth closed curve through the middle of the scene and out beyond its bounds
//   cuts         the orbit, but every kCutEvery frames the camera jumps to another viewpoint: the
//                sorted order of one frame says little about the next one's
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "depthsort/frame/depth.hpp"

namespace depthsort {

enum class CameraPath { None, Orbit, FlyThrough, Cuts };
inline constexpr std::uint64_t kCutEvery = 30;

std::optional<CameraPath> parse_camera_path(std::string_view text) noexcept;
const char* camera_path_name(CameraPath path) noexcept;
std::string camera_path_names();  // "none, orbit, fly-through, cuts"
// True where frame `frame` of `path` is a cut (the view unrelated to the previous frame's).
bool is_cut(CameraPath path, std::uint64_t frame) noexcept;

struct Vec3 {
  float x = 0, y = 0, z = 0;
};

// A camera as the paths move it: orbiting a target (eye = target - forward * distance) or flying
// (eye = position); forward from yaw (around +y, 0 looks down -z) and pitch, in radians.
struct PathCamera {
  bool fly = false;
  Vec3 target{};
  float distance = 4.0f;
  float yaw = 0.0f;
  float pitch = 0.0f;
  Vec3 position{0, 0, 4};
  float fov_y = 0.9f;
  float near_plane = 0.01f, far_plane = 1000.0f;
};

Vec3 camera_forward(const PathCamera& camera);
Vec3 camera_eye(const PathCamera& camera);
// The orbit camera framing the box [lo, hi]: the start of every path.
PathCamera framing_camera(Vec3 lo, Vec3 hi, float fov_y = 0.9f);
// The camera of frame `frame` of a run of `frames` frames on `path`, from `base`, a framing orbit
// camera: a function of its arguments only, so runs repeat. None gives `base`.
PathCamera camera_on_path(CameraPath path, const PathCamera& base, std::uint64_t frame, std::uint64_t frames);
// Row 2 of the camera's look-at view matrix (y up): the depth keys of depth.hpp.
DepthPlane view_depth_plane(const PathCamera& camera);

}  // namespace depthsort
