// The input generators: deterministic, the right size, and each shaped as its name says.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "depthsort/sort/keys.hpp"
#include "depthsort/frame/torus_knot.hpp"
#include "depthsort/harness/workload.hpp"

namespace depthsort {
namespace {

std::set<std::uint32_t> distinct(const std::vector<float>& keys) {
  std::set<std::uint32_t> bits;
  for (float k : keys) bits.insert(ordered_key(k));
  return bits;
}

TEST(Workload, EveryDistributionIsDeterministicAndSized) {
  for (Distribution d : all_distributions()) {
    SCOPED_TRACE(std::string(distribution_name(d)));
    for (std::size_t n : {0u, 1u, 33u, 4097u}) {
      const auto a = make_keys(d, n, 3), b = make_keys(d, n, 3);
      ASSERT_EQ(a.size(), n);
      // memcmp, as NaN keys never compare equal; not for n = 0, where data() may be null (UB).
      if (n > 0) {
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(float)));
      }
    }
  }
}

TEST(Workload, NamesRoundTrip) {
  for (Distribution d : all_distributions()) EXPECT_EQ(parse_distribution(distribution_name(d)), d);
  EXPECT_FALSE(parse_distribution("bogus").has_value());
  EXPECT_NE(distribution_names().find("nearly-sorted"), std::string::npos);
}

TEST(Workload, ShapesMatchTheirNames) {
  const std::size_t n = 100000;
  const auto sorted = make_keys(Distribution::Sorted, n);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto reverse = make_keys(Distribution::Reverse, n);
  EXPECT_TRUE(std::is_sorted(reverse.rbegin(), reverse.rend()));
  EXPECT_EQ(distinct(make_keys(Distribution::AllEqual, n)).size(), 1u);
  EXPECT_EQ(distinct(make_keys(Distribution::TwoValues, n)).size(), 2u);
  EXPECT_EQ(distinct(make_keys(Distribution::FewUnique, n)).size(), 16u);
  const auto nearly = make_keys(Distribution::NearlySorted, n);
  EXPECT_FALSE(std::is_sorted(nearly.begin(), nearly.end()));
  std::size_t descents = 0;
  for (std::size_t i = 1; i < n; ++i) descents += nearly[i] < nearly[i - 1];
  EXPECT_LT(descents, n / 40);
  const auto uniform = make_keys(Distribution::Uniform, n);
  EXPECT_TRUE(std::all_of(uniform.begin(), uniform.end(), [](float k) { return k >= 0.0f && k < 1.0f; }));
  EXPECT_GT(distinct(uniform).size(), n * 9 / 10);
  // Zipf: rank 1 is the most frequent key, around 5% of all for 2^20 ranks.
  const auto zipf = make_keys(Distribution::Zipf, n);
  const auto ones = std::count(zipf.begin(), zipf.end(), 1.0f);
  EXPECT_GT(ones, static_cast<long>(n / 50));
  EXPECT_LT(ones, static_cast<long>(n / 10));
}

TEST(Workload, MeshKeysAreCoherentNotRandom) {
  const auto mesh = make_keys(Distribution::Mesh, 1 << 16);
  double step = 0.0;
  for (std::size_t i = 1; i < mesh.size(); ++i) step += std::abs(mesh[i] - mesh[i - 1]);
  step /= static_cast<double>(mesh.size() - 1);
  const auto [lo, hi] = std::minmax_element(mesh.begin(), mesh.end());
  // Consecutive vertices are far closer than random keys over the same range (mean gap range/3).
  EXPECT_LT(step, (*hi - *lo) / 30.0);
}

TEST(Workload, SpecialsHoldEveryClass) {
  const auto keys = make_keys(Distribution::Specials, 20000);
  auto has = [&](auto predicate) { return std::any_of(keys.begin(), keys.end(), predicate); };
  EXPECT_TRUE(has([](float k) { return k == 0.0f && std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return k == 0.0f && !std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::isinf(k) && k > 0; }));
  EXPECT_TRUE(has([](float k) { return std::isinf(k) && k < 0; }));
  EXPECT_TRUE(has([](float k) { return std::isnan(k) && std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::isnan(k) && !std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::fpclassify(k) == FP_SUBNORMAL; }));
}

// The scene-like distributions have the shapes they are named for.
TEST(Workload, OutliersAreANarrowClusterWithAFewFarKeys) {
  const auto keys = make_keys(Distribution::Outliers, 1 << 20);
  const auto far = std::count_if(keys.begin(), keys.end(), [](float k) { return !(k < 11.0f); });
  EXPECT_GT(far, 0);
  EXPECT_LT(far, 64);
  for (float k : keys) {
    if (k < 11.0f) {
      ASSERT_NEAR(k, 10.0f, 0.0101f);
    }
  }
}

TEST(Workload, TwoClustersAreFarApartAndNarrow) {
  const auto keys = make_keys(Distribution::TwoClusters, 1 << 16);
  const auto near = std::count_if(keys.begin(), keys.end(), [](float k) { return std::abs(k - 1.0f) <= 1e-3f; });
  const auto far = std::count_if(keys.begin(), keys.end(), [](float k) { return std::abs(k - 1.0e6f) <= 1.0f; });
  EXPECT_EQ(static_cast<std::size_t>(near + far), keys.size());
  EXPECT_GT(near, 1 << 14);
  EXPECT_GT(far, 1 << 14);
}

TEST(Workload, GroundPlaneRunsToTheHorizonWithMostKeysNear) {
  auto keys = make_keys(Distribution::GroundPlane, 1 << 16);
  std::sort(keys.begin(), keys.end());
  EXPECT_GE(keys.front(), 1.7f);
  EXPECT_GT(keys.back(), 5.0e4f);
  EXPECT_LT(keys[keys.size() / 2], 1.0e3f);  // the median is nearer than 1% of the far end
}

TEST(Workload, HalfEqualHasHalfItsKeysEqual) {
  const auto keys = make_keys(Distribution::HalfEqual, 1 << 16);
  const auto equal = std::count(keys.begin(), keys.end(), 0.5f);
  EXPECT_NEAR(static_cast<double>(equal) / keys.size(), 0.5, 0.02);
}

TEST(Workload, NanPayloadsAreManyDistinctNansOfBothSigns) {
  const auto keys = make_keys(Distribution::NanPayloads, 1 << 16);
  std::vector<std::uint32_t> nan_bits;
  for (float k : keys)
    if (std::isnan(k)) nan_bits.push_back(std::bit_cast<std::uint32_t>(k));
  EXPECT_NEAR(static_cast<double>(nan_bits.size()) / keys.size(), 0.25, 0.02);
  EXPECT_TRUE(std::any_of(nan_bits.begin(), nan_bits.end(), [](std::uint32_t b) { return b >> 31; }));
  EXPECT_TRUE(std::any_of(nan_bits.begin(), nan_bits.end(), [](std::uint32_t b) { return !(b >> 31); }));
  std::sort(nan_bits.begin(), nan_bits.end());
  EXPECT_GT(std::unique(nan_bits.begin(), nan_bits.end()) - nan_bits.begin(), 10000);
}

// The nearly sorted inputs of a frame-coherent pipeline.
std::size_t misplaced(const std::vector<float>& keys) {
  auto sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::size_t count = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) count += keys[i] != sorted[i];
  return count;
}

TEST(Workload, SwapsMoveFewKeys) {
  const std::size_t n = 200000;
  const auto few = make_keys(Distribution::Swaps16, n);
  EXPECT_GT(misplaced(few), 0u);
  EXPECT_LE(misplaced(few), 32u);
  const auto sparse = make_keys(Distribution::SwapsSparse, n);
  EXPECT_GT(misplaced(sparse), n / 2000);
  EXPECT_LE(misplaced(sparse), 2 * n / 1000);
  // Tiny sizes: nothing to swap with, still the right size and sorted.
  EXPECT_EQ(make_keys(Distribution::SwapsSparse, 1).size(), 1u);
}

TEST(Workload, LocalDisplaceKeepsEveryKeyNearItsPlace) {
  const std::size_t n = 100000;
  const auto keys = make_keys(Distribution::LocalDisplace, n);
  std::vector<std::pair<float, std::size_t>> ranked(n);
  for (std::size_t i = 0; i < n; ++i) ranked[i] = {keys[i], i};
  std::stable_sort(ranked.begin(), ranked.end());
  std::size_t moved = 0, largest = 0;
  for (std::size_t rank = 0; rank < n; ++rank) {
    const std::size_t from = ranked[rank].second;
    const std::size_t distance = from > rank ? from - rank : rank - from;
    largest = std::max(largest, distance);
    moved += distance != 0;
  }
  EXPECT_LE(largest, kLocalDisplacement);
  EXPECT_GT(moved, n / 2);  // displaced almost everywhere, not in a few places
  EXPECT_GT(largest, kLocalDisplacement / 4);
}

// Fraction of pairs (i, i + n/16) out of order: about 0 where the last frame's order nearly holds
// (keys move by a small fraction of n), near 1/2 where it says nothing. Neighbours swap freely in
// both cases (a dense scene's adjacent depths are closer than one frame's motion).
double far_inversions(const std::vector<float>& keys) {
  const std::size_t gap = keys.size() / 16;
  std::size_t pairs = 0, inverted = 0;
  for (std::size_t i = 0; i + gap < keys.size(); i += 3, ++pairs) inverted += keys[i + gap] < keys[i];
  return pairs ? static_cast<double>(inverted) / static_cast<double>(pairs) : 0.0;
}

TEST(Workload, CameraStepIsNearlySortedButNotSorted) {
  const auto keys = make_keys(Distribution::CameraStep, 1 << 16);
  EXPECT_FALSE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_LT(far_inversions(keys), 0.01);
}

TEST(Workload, CameraPathsNameAndCut) {
  for (CameraPath path : {CameraPath::None, CameraPath::Orbit, CameraPath::FlyThrough, CameraPath::Cuts})
    EXPECT_EQ(parse_camera_path(camera_path_name(path)), path);
  EXPECT_FALSE(parse_camera_path("spin").has_value());
  EXPECT_EQ(camera_path_names(), "none, orbit, fly-through, cuts");
  EXPECT_FALSE(is_cut(CameraPath::Orbit, kCutEvery));
  EXPECT_FALSE(is_cut(CameraPath::Cuts, 0));
  EXPECT_TRUE(is_cut(CameraPath::Cuts, kCutEvery));
  EXPECT_FALSE(is_cut(CameraPath::Cuts, kCutEvery + 1));
}

// The scene's paths over 600 frames (0.6 degrees a frame on the orbit).
constexpr std::uint64_t kSceneFrames = 600;

TEST(Workload, ConsecutiveFramesAreCoherentAndCutsAreNot) {
  const std::size_t n = 1 << 15;
  const auto scene = make_scene(n, 2);
  const PathCamera base = scene_camera(scene);
  // Fraction of the last frame's order that is out of place under this frame's plane.
  auto disorder = [&](CameraPath path, std::uint64_t frame) {
    const auto order = sorted_order(scene, camera_plane(path, base, frame - 1, kSceneFrames));
    std::vector<float> keys(n);
    fill_depths_in_order(scene, camera_plane(path, base, frame, kSceneFrames), order, keys);
    return far_inversions(keys);
  };
  for (CameraPath path : {CameraPath::Orbit, CameraPath::FlyThrough}) {
    SCOPED_TRACE(std::string(camera_path_name(path)));
    EXPECT_LT(disorder(path, 5), 0.02);
  }
  EXPECT_LT(disorder(CameraPath::Cuts, kCutEvery - 1), 0.02);
  EXPECT_GT(disorder(CameraPath::Cuts, kCutEvery), 0.1);  // after a cut the old order says little
}

// The scene sits in its camera's view: its framing camera is the demo's, about the knot.
TEST(Workload, SceneIsTheTorusKnotFramedAsTheDemoFramesIt) {
  const auto scene = make_scene(1 << 12, 3);
  const PathCamera base = scene_camera(scene);
  const TorusKnot knot;
  for (const ScenePoint& p : scene) {
    const double r = std::hypot(p.x, p.z);  // the knot winds around the y axis
    ASSERT_LE(r, knot.radius + knot.wobble + 1.2 * knot.tube);
    ASSERT_LE(std::abs(p.y), knot.wobble + 1.2 * knot.tube);
  }
  const DepthPlane plane = camera_plane(CameraPath::None, base, 0, 1);
  for (const ScenePoint& p : scene) ASSERT_LT(point_key(plane, p.x, p.y, p.z), 0.0f);  // in front of the camera
}

TEST(Workload, SortedOrderIsAPermutationInKeyOrder) {
  const auto scene = make_scene(5000, 4);
  const DepthPlane plane = camera_plane(CameraPath::FlyThrough, scene_camera(scene), 17, kSceneFrames);
  const auto order = sorted_order(scene, plane);
  std::vector<float> keys(order.size());
  fill_depths_in_order(scene, plane, order, keys);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end(), [](float a, float b) { return key_less(a, b); }));
  auto ids = order;
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i);
}

TEST(Workload, ValuesEncodeTheirPosition) {
  const auto values = make_values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(index_for_value(values[i]), i);
  EXPECT_NE(values[0], 0u);  // a sorter writing positions instead of values must fail
}

}  // namespace
}  // namespace depthsort
