// Inputs for tests and benchmarks, and the CPU reference check every sorter is held to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/frame/camera_path.hpp"
#include "depthsort/frame/depth.hpp"

namespace depthsort {

enum class Distribution {
  Uniform,       // uniform in [0, 1)
  Gaussian,      // normal, mean 0, sigma 1
  Zipf,          // integer ranks with P(k) ~ 1/k over 2^20 ranks: a few keys very frequent
  Sorted,        // ascending uniform keys
  Reverse,       // descending uniform keys
  AllEqual,      // every key the same
  TwoValues,     // two distinct keys, mixed at random
  FewUnique,     // 16 distinct keys
  NearlySorted,  // ascending, then 1% of positions swapped at random
  Sawtooth,      // ascending runs of 1024 keys, repeated
  Mesh,          // view distances of consecutive vertices of a torus-knot tube mesh
  Specials,      // uniform in [-1, 1) with +-0, +-inf, NaN of both signs and denormals mixed in
  // Depth streams of real scenes that defeat splitters linear in the key range:
  Outliers,     // a narrow cluster (10 +- 0.01) with one key in 2^16 very far away (1e30, +inf)
  TwoClusters,  // two narrow clusters, 1 +- 1e-3 and 1e6 +- 1, mixed at random
  GroundPlane,  // distances to a ground plane tessellated in rings out to the horizon (1 .. 1e5)
  HalfEqual,    // half the keys equal (0.5), the rest uniform in [0, 1), mixed at random
  NanPayloads,  // a quarter NaNs of both signs with random payloads, the rest uniform in [-1, 1)
  // Nearly sorted inputs, as a frame-coherent pipeline hands them to the sorter:
  Swaps16,        // ascending, then 16 random pairs of positions swapped
  SwapsSparse,    // ascending, then n/1000 random pairs of positions swapped
  LocalDisplace,  // every key at most kLocalDisplacement positions from its sorted place
  CameraStep,     // this frame's depths of a scene, listed in the last frame's sorted order
};

// LocalDisplace: no key lies further than this from its place in the sorted order.
inline constexpr std::size_t kLocalDisplacement = 100;

std::span<const Distribution> all_distributions();
std::string_view distribution_name(Distribution d);
std::optional<Distribution> parse_distribution(std::string_view name);
std::string distribution_names();  // "uniform, gaussian, ..."

// Deterministic keys for (distribution, n, seed).
std::vector<float> make_keys(Distribution d, std::size_t n, std::uint64_t seed = 1);
void fill_keys(Distribution d, std::uint64_t seed, std::span<float> out);

// Frame sequences of the procedural scene: a mesh-like point cloud (points on the tube of the
// torus knot of torus_knot.hpp, neighbours in index order close in space) seen from the camera
// paths of camera_path.hpp, the demo's. The key of a point is its view-space z (depth.hpp's
// convention: ascending = far to near).
struct ScenePoint {
  float x, y, z;
};
std::vector<ScenePoint> make_scene(std::size_t n, std::uint64_t seed = 1);
// The camera every path starts from: the framing orbit camera of the scene's bounding box, as the
// demo frames its scene.
PathCamera scene_camera(std::span<const ScenePoint> scene);
// The depth plane of frame `frame` of a run of `frames` frames on `path` from `base`: view-space z
// of p is dot(plane.xyz, p) + plane.w.
DepthPlane camera_plane(CameraPath path, const PathCamera& base, std::uint64_t frame, std::uint64_t frames);
// keys[i] = view-space z of scene[order[i]] under plane: this frame's depths in the last frame's
// order. order.size() == keys.size(), every entry < scene.size().
void fill_depths_in_order(std::span<const ScenePoint> scene, const DepthPlane& plane,
                          std::span<const std::uint32_t> order, std::span<float> keys);
// The ids of scene sorted by their keys under plane (ties by id): the order a sorter hands on.
std::vector<std::uint32_t> sorted_order(std::span<const ScenePoint> scene, const DepthPlane& plane);

// Values are the input position scrambled by a mask, so a sorter that writes positions instead
// of moving the values it was given fails the check.
constexpr std::uint32_t kValueMask = 0x5A5A5A5Au;
constexpr std::uint32_t value_for_index(std::size_t i) { return static_cast<std::uint32_t>(i) ^ kValueMask; }
constexpr std::size_t index_for_value(std::uint32_t v) { return v ^ kValueMask; }
std::vector<std::uint32_t> make_values(std::size_t n);
void fill_values(std::span<std::uint32_t> out);

// The input's keys in the key order, as ordered bits (keys.hpp): the reference.
std::vector<std::uint32_t> reference_order(std::span<const float> keys_in);

struct CheckResult {
  bool ok = true;
  std::string message;  // empty when ok; otherwise the first problem, with its position
  explicit operator bool() const noexcept { return ok; }
};

// Passes when keys_out equals the reference order bit for bit (so -0/+0 and NaN payloads count)
// and values_out is a permutation of make_values(n) in which each value sits beside its own key.
CheckResult check_sorted_pairs(std::span<const float> keys_in, std::span<const std::uint32_t> reference,
                               std::span<const float> keys_out, std::span<const std::uint32_t> values_out);

}  // namespace depthsort
