#include "depthsort/harness/workload.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/name_table.hpp"
#include "depthsort/frame/torus_knot.hpp"

namespace depthsort {
namespace {

using NamedDistribution = Named<Distribution>;

constexpr std::array kDistributions{
    NamedDistribution{Distribution::Uniform, "uniform"},
    NamedDistribution{Distribution::Gaussian, "gaussian"},
    NamedDistribution{Distribution::Zipf, "zipf"},
    NamedDistribution{Distribution::Sorted, "sorted"},
    NamedDistribution{Distribution::Reverse, "reverse"},
    NamedDistribution{Distribution::AllEqual, "all-equal"},
    NamedDistribution{Distribution::TwoValues, "two-values"},
    NamedDistribution{Distribution::FewUnique, "16-unique"},
    NamedDistribution{Distribution::NearlySorted, "nearly-sorted"},
    NamedDistribution{Distribution::Sawtooth, "sawtooth"},
    NamedDistribution{Distribution::Mesh, "mesh"},
    NamedDistribution{Distribution::Specials, "specials"},
    NamedDistribution{Distribution::Outliers, "outliers"},
    NamedDistribution{Distribution::TwoClusters, "two-clusters"},
    NamedDistribution{Distribution::GroundPlane, "ground-plane"},
    NamedDistribution{Distribution::HalfEqual, "half-equal"},
    NamedDistribution{Distribution::NanPayloads, "nan-payloads"},
    NamedDistribution{Distribution::Swaps16, "swaps-16"},
    NamedDistribution{Distribution::SwapsSparse, "sparse-swaps"},
    NamedDistribution{Distribution::LocalDisplace, "local-displace"},
    NamedDistribution{Distribution::CameraStep, "camera-step"},
};

constexpr std::array<Distribution, kDistributions.size()> kDistributionList = [] {
  std::array<Distribution, kDistributions.size()> list{};
  for (std::size_t i = 0; i < kDistributions.size(); ++i) list[i] = kDistributions[i].value;
  return list;
}();

// SplitMix64: fast, deterministic, and good enough for test inputs.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 24 random bits, so every value is an exact float.
  float unit() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }
  std::size_t below(std::size_t bound) { return static_cast<std::size_t>(next() % bound); }

 private:
  std::uint64_t state_;
};

void fill_uniform(Random& random, std::span<float> out) {
  for (float& key : out) key = random.unit();
}

void fill_gaussian(Random& random, std::span<float> out) {
  for (std::size_t i = 0; i < out.size(); i += 2) {
    const double u1 = (static_cast<double>(random.next() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(random.next() >> 11) * 0x1.0p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    out[i] = static_cast<float>(radius * std::cos(2.0 * std::numbers::pi * u2));
    if (i + 1 < out.size()) out[i + 1] = static_cast<float>(radius * std::sin(2.0 * std::numbers::pi * u2));
  }
}

// P(rank k) ~ 1/k over 2^20 ranks, by inverting the continuous CDF ln(k)/ln(K).
void fill_zipf(Random& random, std::span<float> out) {
  const double log_ranks = std::log(static_cast<double>(1u << 20));
  for (float& key : out) key = static_cast<float>(std::floor(std::exp(random.unit() * log_ranks)));
}

// Distances from a camera to the vertices of a torus-knot tube, in the vertex buffer's order
// (rings along the knot, 32 vertices around each ring): consecutive keys are close, as in real
// meshes, which is what makes bucket counters collide (paper 003, section 5.1).
void fill_mesh(std::span<float> out) {
  constexpr std::size_t kAround = 32;
  const TorusKnot knot;
  const std::size_t rings = std::max<std::size_t>(1, (out.size() + kAround - 1) / kAround);
  const Point3d camera = {0.1, 1.3, 3.0};
  KnotRing ring{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i % kAround == 0) ring = knot_ring(knot, static_cast<double>(i / kAround) / static_cast<double>(rings));
    const Point3d p = ring_point(ring, 2.0 * std::numbers::pi * static_cast<double>(i % kAround) / kAround, knot.tube);
    double squared = 0.0;
    for (int axis = 0; axis < 3; ++axis) squared += (p[axis] - camera[axis]) * (p[axis] - camera[axis]);
    out[i] = static_cast<float>(std::sqrt(squared));
  }
}

void fill_specials(Random& random, std::span<float> out) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::array<float, 14> specials{0.0f,
                                       -0.0f,
                                       kInf,
                                       -kInf,
                                       std::bit_cast<float>(0x7FC00000u),
                                       std::bit_cast<float>(0xFFC00000u),  // quiet NaNs
                                       std::bit_cast<float>(0x7F800001u),
                                       std::bit_cast<float>(0xFF812345u),  // other payloads
                                       std::numeric_limits<float>::denorm_min(),
                                       -std::numeric_limits<float>::denorm_min(),
                                       std::bit_cast<float>(0x007FFFFFu),
                                       std::bit_cast<float>(0x807FFFFFu),  // largest denormals
                                       std::numeric_limits<float>::max(),
                                       std::numeric_limits<float>::lowest()};
  for (float& key : out) {
    const std::uint64_t bits = random.next();
    key = (bits & 7) == 0 ? specials[(bits >> 8) % specials.size()] : random.unit() * 2.0f - 1.0f;
  }
}

// Distances from an eye 1.7 above a ground plane to vertices of a ring tessellation whose ring
// radii grow geometrically (as terrain LOD rings do) from 0.5 to 1e5: most keys are near, a long
// tail runs to the horizon, so a range-linear splitter puts nearly everything in its first bins.
void fill_ground_plane(Random& random, std::span<float> out) {
  const double log_min = std::log(0.5), log_max = std::log(1.0e5);
  for (float& key : out) {
    const double radius = std::exp(log_min + (log_max - log_min) * random.unit());
    key = static_cast<float>(std::sqrt(radius * radius + 1.7 * 1.7));
  }
}

void fill_outliers(Random& random, std::span<float> out) {
  constexpr float kFar[] = {1.0e30f, std::numeric_limits<float>::infinity(), 3.0e38f, 1.0e20f};
  for (float& key : out) {
    const std::uint64_t bits = random.next();
    key = (bits & 0xFFFF) == 0 ? kFar[(bits >> 16) & 3] : 10.0f + 0.01f * (random.unit() * 2.0f - 1.0f);
  }
}

void fill_nan_payloads(Random& random, std::span<float> out) {
  for (float& key : out) {
    const std::uint64_t bits = random.next();
    if ((bits & 3) == 0) {
      // Exponent all ones, a non-zero random 23-bit payload, either sign.
      const std::uint32_t payload = static_cast<std::uint32_t>(bits >> 8) & 0x7FFFFFu;
      const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 32) & 0x80000000u;
      key = std::bit_cast<float>(sign | 0x7F800000u | (payload ? payload : 1u));
    } else {
      key = random.unit() * 2.0f - 1.0f;
    }
  }
}

void fill_sorted_with_swaps(Random& random, std::size_t swaps, std::span<float> out) {
  fill_uniform(random, out);
  std::sort(out.begin(), out.end());
  if (out.size() < 2) return;
  for (; swaps > 0; --swaps) std::swap(out[random.below(out.size())], out[random.below(out.size())]);
}

// key_i = i + d * u_i with u_i uniform in [0, 1): every key j < i - d is below key i and every
// j > i + d above it, so no key lies more than d positions from its sorted place, and the
// displacements cross any tile boundary (no aligned windows).
void fill_local_displace(Random& random, std::span<float> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<float>(static_cast<double>(i) +
                                static_cast<double>(kLocalDisplacement) * static_cast<double>(random.unit()));
}

// Two consecutive orbit frames: frame 1's depths in frame 0's sorted order.
void fill_camera_step(std::uint64_t seed, std::span<float> out) {
  // Two frames of an orbit of 600 frames: 0.6 degrees apart.
  const std::vector<ScenePoint> scene = make_scene(out.size(), seed);
  const PathCamera base = scene_camera(scene);
  const std::vector<std::uint32_t> order = sorted_order(scene, camera_plane(CameraPath::Orbit, base, 0, 600));
  fill_depths_in_order(scene, camera_plane(CameraPath::Orbit, base, 1, 600), order, out);
}

}  // namespace

std::span<const Distribution> all_distributions() { return kDistributionList; }

std::string_view distribution_name(Distribution d) { return name_in(kDistributions, d); }

std::optional<Distribution> parse_distribution(std::string_view name) { return parse_in(kDistributions, name); }

std::string distribution_names() { return names_in(kDistributions); }

void fill_keys(Distribution d, std::uint64_t seed, std::span<float> out) {
  Random random(seed);
  switch (d) {
    case Distribution::Uniform:
      fill_uniform(random, out);
      break;
    case Distribution::Gaussian:
      fill_gaussian(random, out);
      break;
    case Distribution::Zipf:
      fill_zipf(random, out);
      break;
    case Distribution::Sorted:
      fill_uniform(random, out);
      std::sort(out.begin(), out.end());
      break;
    case Distribution::Reverse:
      fill_uniform(random, out);
      std::sort(out.begin(), out.end(), std::greater<>());
      break;
    case Distribution::AllEqual:
      std::fill(out.begin(), out.end(), 0.5f);
      break;
    case Distribution::TwoValues:
      for (float& key : out) key = (random.next() & 1) ? 0.25f : 0.75f;
      break;
    case Distribution::FewUnique:
      for (float& key : out) key = static_cast<float>(random.next() & 15) * 0.0625f;
      break;
    case Distribution::NearlySorted: {
      fill_uniform(random, out);
      std::sort(out.begin(), out.end());
      for (std::size_t swaps = out.size() / 100; swaps > 0; --swaps)
        std::swap(out[random.below(out.size())], out[random.below(out.size())]);
      break;
    }
    case Distribution::Sawtooth:
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(i % 1024) / 1024.0f;
      break;
    case Distribution::Mesh:
      fill_mesh(out);
      break;
    case Distribution::Specials:
      fill_specials(random, out);
      break;
    case Distribution::Outliers:
      fill_outliers(random, out);
      break;
    case Distribution::TwoClusters:
      for (float& key : out) {
        const bool far = random.next() & 1;
        key = far ? 1.0e6f + (random.unit() * 2.0f - 1.0f) : 1.0f + 1.0e-3f * (random.unit() * 2.0f - 1.0f);
      }
      break;
    case Distribution::GroundPlane:
      fill_ground_plane(random, out);
      break;
    case Distribution::HalfEqual:
      for (float& key : out) key = (random.next() & 1) ? 0.5f : random.unit();
      break;
    case Distribution::NanPayloads:
      fill_nan_payloads(random, out);
      break;
    case Distribution::Swaps16:
      fill_sorted_with_swaps(random, 16, out);
      break;
    case Distribution::SwapsSparse:
      fill_sorted_with_swaps(random, out.size() / 1000, out);
      break;
    case Distribution::LocalDisplace:
      fill_local_displace(random, out);
      break;
    case Distribution::CameraStep:
      fill_camera_step(seed, out);
      break;
  }
}

// Points on the tube of the scene's torus knot (torus_knot.hpp), in ring order, each jittered a
// little along and around the tube and in its distance from the knot, so that depths are not
// quantised to rings: consecutive ids are close in space, as in a mesh.
std::vector<ScenePoint> make_scene(std::size_t n, std::uint64_t seed) {
  constexpr std::size_t kAround = 32;
  const TorusKnot knot;
  Random random(seed ^ 0x5CE9Eull);
  std::vector<ScenePoint> scene(n);
  const std::size_t rings = std::max<std::size_t>(1, (n + kAround - 1) / kAround);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = (static_cast<double>(i / kAround) + random.unit()) / static_cast<double>(rings);
    const double a = 2.0 * std::numbers::pi * (static_cast<double>(i % kAround) + random.unit()) / kAround;
    const Point3d p = ring_point(knot_ring(knot, t), a, knot.tube * (1.0 + 0.15 * random.unit()));
    scene[i] = ScenePoint{static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])};
  }
  return scene;
}

PathCamera scene_camera(std::span<const ScenePoint> scene) {
  Vec3 lo{}, hi{};
  if (!scene.empty()) lo = hi = Vec3{scene[0].x, scene[0].y, scene[0].z};
  for (const ScenePoint& p : scene) {
    lo = Vec3{std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = Vec3{std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  return framing_camera(lo, hi);
}

DepthPlane camera_plane(CameraPath path, const PathCamera& base, std::uint64_t frame, std::uint64_t frames) {
  return view_depth_plane(camera_on_path(path, base, frame, frames));
}

void fill_depths_in_order(std::span<const ScenePoint> scene, const DepthPlane& plane,
                          std::span<const std::uint32_t> order, std::span<float> keys) {
  for (std::size_t i = 0; i < keys.size() && i < order.size(); ++i) {
    const ScenePoint& p = scene[order[i]];
    keys[i] = point_key(plane, p.x, p.y, p.z);
  }
}

std::vector<std::uint32_t> sorted_order(std::span<const ScenePoint> scene, const DepthPlane& plane) {
  // (ordered key, id) packed in 64 bits: one integer sort, ties by id.
  std::vector<std::uint64_t> packed(scene.size());
  for (std::size_t i = 0; i < scene.size(); ++i)
    packed[i] = (std::uint64_t{ordered_key(point_key(plane, scene[i].x, scene[i].y, scene[i].z))} << 32) | i;
  std::sort(packed.begin(), packed.end());
  std::vector<std::uint32_t> order(scene.size());
  for (std::size_t i = 0; i < scene.size(); ++i) order[i] = static_cast<std::uint32_t>(packed[i]);
  return order;
}

std::vector<float> make_keys(Distribution d, std::size_t n, std::uint64_t seed) {
  std::vector<float> keys(n);
  fill_keys(d, seed, keys);
  return keys;
}

void fill_values(std::span<std::uint32_t> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = value_for_index(i);
}

std::vector<std::uint32_t> make_values(std::size_t n) {
  std::vector<std::uint32_t> values(n);
  fill_values(values);
  return values;
}

std::vector<std::uint32_t> reference_order(std::span<const float> keys_in) {
  std::vector<std::uint32_t> ordered(keys_in.size());
  std::transform(keys_in.begin(), keys_in.end(), ordered.begin(), [](float k) { return ordered_key(k); });
  std::sort(ordered.begin(), ordered.end());
  return ordered;
}

namespace {

std::string hex(std::uint32_t bits) {
  std::ostringstream out;
  out << "0x" << std::hex << bits;
  return out.str();
}

CheckResult fail(std::string message) { return CheckResult{false, std::move(message)}; }

}  // namespace

CheckResult check_sorted_pairs(std::span<const float> keys_in, std::span<const std::uint32_t> reference,
                               std::span<const float> keys_out, std::span<const std::uint32_t> values_out) {
  const std::size_t n = keys_in.size();
  if (reference.size() != n || keys_out.size() != n || values_out.size() != n)
    return fail("sizes differ: input " + std::to_string(n) + ", reference " + std::to_string(reference.size()) +
                ", keys out " + std::to_string(keys_out.size()) + ", values out " + std::to_string(values_out.size()));
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t got = ordered_key(keys_out[i]);
    if (got != reference[i])
      return fail("key at position " + std::to_string(i) + " is " + std::to_string(keys_out[i]) + " (bits " +
                  hex(std::bit_cast<std::uint32_t>(keys_out[i])) + "), expected bits " +
                  hex(float_bits_from_ordered_bits(reference[i])));
  }
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t source = index_for_value(values_out[i]);
    if (source >= n)
      return fail("value at position " + std::to_string(i) + " (" + hex(values_out[i]) +
                  ") was never an input value: a value was lost or overwritten");
    if (seen[source])
      return fail("value " + hex(values_out[i]) + " appears twice (again at position " + std::to_string(i) +
                  "): a value was duplicated");
    seen[source] = true;
    if (ordered_key(keys_in[source]) != ordered_key(keys_out[i]))
      return fail("value at position " + std::to_string(i) + " belongs to key bits " +
                  hex(std::bit_cast<std::uint32_t>(keys_in[source])) + " but sits beside key bits " +
                  hex(std::bit_cast<std::uint32_t>(keys_out[i])));
  }
  return {};
}

}  // namespace depthsort
