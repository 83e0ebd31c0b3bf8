#include "depthsort/frame/camera_path.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "depthsort/sort/name_table.hpp"

namespace depthsort {
namespace {

constexpr float kTwoPi = 6.28318530717958f;

Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator*(float s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
Vec3 operator/(Vec3 a, float s) { return {a.x / s, a.y / s, a.z / s}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
float length(Vec3 a) { return std::sqrt(dot(a, a)); }
Vec3 normalize(Vec3 a) { return (1.0f / std::sqrt(dot(a, a))) * a; }

// The fly-through curve at parameter t (one loop over [0, 2 pi)), in units of the scene's
// radius around its centre: through the centre at t = 0 and pi, out to 1.5 radii between.
// Its derivative never vanishes (x' = 0 needs cos t = 0, where z' = -1.6), so the camera's
// direction, taken from it, is smooth.
Vec3 fly_curve(float t) { return {1.25f * std::sin(t), 0.3f * std::sin(2.0f * t + 0.5f), 0.8f * std::sin(2.0f * t)}; }
Vec3 fly_tangent(float t) { return {1.25f * std::cos(t), 0.6f * std::cos(2.0f * t + 0.5f), 1.6f * std::cos(2.0f * t)}; }

constexpr std::array kNames{Named<CameraPath>{CameraPath::None, "none"}, Named<CameraPath>{CameraPath::Orbit, "orbit"},
                            Named<CameraPath>{CameraPath::FlyThrough, "fly-through"},
                            Named<CameraPath>{CameraPath::Cuts, "cuts"}};

}  // namespace

std::optional<CameraPath> parse_camera_path(std::string_view text) noexcept { return parse_in(kNames, text); }

// The names are literals: their views end in a NUL.
const char* camera_path_name(CameraPath path) noexcept { return name_in(kNames, path).data(); }

std::string camera_path_names() { return names_in(kNames); }

bool is_cut(CameraPath path, std::uint64_t frame) noexcept {
  return path == CameraPath::Cuts && frame > 0 && frame % kCutEvery == 0;
}

Vec3 camera_forward(const PathCamera& c) {
  return {std::sin(c.yaw) * std::cos(c.pitch), std::sin(c.pitch), -std::cos(c.yaw) * std::cos(c.pitch)};
}

Vec3 camera_eye(const PathCamera& c) { return c.fly ? c.position : c.target - c.distance * camera_forward(c); }

PathCamera framing_camera(Vec3 lo, Vec3 hi, float fov_y) {
  PathCamera c;
  c.fov_y = fov_y;
  c.target = 0.5f * (lo + hi);
  const float radius = std::max(0.5f * length(hi - lo), 1e-3f);
  c.distance = radius / std::sin(0.5f * fov_y) * 0.85f;
  c.yaw = 0.35f;
  c.pitch = -0.3f;
  c.near_plane = std::max(c.distance * 1e-3f, 1e-3f);
  c.far_plane = c.distance + 4.0f * radius;
  c.position = camera_eye(c);
  return c;
}

PathCamera camera_on_path(CameraPath path, const PathCamera& base, std::uint64_t frame, std::uint64_t frames) {
  const float turn = frames > 0 ? static_cast<float>(frame % frames) / static_cast<float>(frames) : 0.0f;
  PathCamera c = base;
  switch (path) {
    case CameraPath::None:
      return c;
    case CameraPath::Orbit:
      c.yaw = base.yaw + kTwoPi * turn;
      return c;
    case CameraPath::FlyThrough: {
      // The scene's radius, from the framing distance (the inverse of framing_camera).
      const float radius = base.distance * std::sin(0.5f * base.fov_y) / 0.85f;
      const float t = kTwoPi * turn;
      const Vec3 eye = base.target + radius * fly_curve(t);
      // Along the path, turned towards the centre so the scene stays in view; the pull has at
      // most 0.76 of the tangent's unit length, so the sum never vanishes.
      const Vec3 ahead = normalize(fly_tangent(t)) + 0.5f * (base.target - eye) / radius;
      const Vec3 f = normalize(ahead);
      c.fly = true;
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

DepthPlane view_depth_plane(const PathCamera& camera) {
  // OpenGL looks down -z: view-space z = -dot(forward, p - eye).
  const Vec3 f = normalize(camera_forward(camera));
  const Vec3 eye = camera_eye(camera);
  return {-f.x, -f.y, -f.z, dot(f, eye)};
}

}  // namespace depthsort
