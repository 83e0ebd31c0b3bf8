// The frame's order as one unit (depthsort/frame/frame_order.hpp): depth-bucket's fused order
// against the plain one (the depth pass and cub-radix) on the same frames, bit for bit in the
// sorted keys, its ids a permutation in key order; over camera paths with cuts, at sizes around
// its thresholds, on inputs that defeat its buckets (one depth, two depths, far outliers, NaN),
// across a chain of unrelated scenes and sizes on one unit; the coherent listing, the submission
// order and the separate passes; and the order check catching planted errors. The draw order is
// poisoned before every frame that does not list its keys in it. Skipped without a usable CUDA
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/frame_order.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/registry.hpp"

namespace depthsort::testing {
namespace {

// A frame's scene on the device: a mesh (its vertices and triangles) and particles.
struct DeviceScene {
  std::size_t triangles = 0, particles = 0;
  DeviceBuffer<MeshVertex> vertices;
  DeviceBuffer<std::uint32_t> indices;
  DeviceBuffer<ParticleVertex> points;
  std::size_t size() const { return triangles + particles; }
};

enum class Shape { Box, OneDepth, TwoDepths, FarOutliers, Specials, Ring };

// Points in [-1, 1]^3 by shape; the mesh's vertices are drawn the same way, its triangles pick
// three neighbouring vertices (a mesh's locality).
std::vector<float> make_positions(std::size_t count, Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> xyz(3 * count);
  for (std::size_t i = 0; i < count; ++i) {
    float x = unit(rng), y = unit(rng), z = unit(rng);
    switch (shape) {
      case Shape::Box:
        break;
      case Shape::OneDepth:
        x = 0.25f, y = -0.5f, z = 0.125f;
        break;
      case Shape::TwoDepths:
        x = (i % 2) ? 0.5f : -0.5f, y = 0.0f, z = 0.0f;
        break;
      case Shape::FarOutliers:
        if (i % 1000 == 0) x *= 1e6f;
        break;
      case Shape::Specials:
        if (i % 997 == 0) x = std::numeric_limits<float>::quiet_NaN();
        if (i % 991 == 0) x = std::numeric_limits<float>::infinity();
        if (i % 983 == 0) x = -std::numeric_limits<float>::infinity();
        break;
      case Shape::Ring: {
        const float a = 6.2831853f * static_cast<float>(i) / static_cast<float>(count);
        x = std::cos(a), y = std::sin(a), z = 0.05f * unit(rng);
        break;
      }
    }
    xyz[3 * i] = x, xyz[3 * i + 1] = y, xyz[3 * i + 2] = z;
  }
  return xyz;
}

DeviceScene make_scene(std::size_t triangles, std::size_t particles, Shape shape, unsigned seed) {
  std::mt19937 rng(seed);
  DeviceScene scene;
  scene.triangles = triangles;
  scene.particles = particles;
  if (triangles > 0) {
    const std::size_t vertex_count = triangles + 2;
    const std::vector<float> xyz = make_positions(vertex_count, shape, rng);
    std::vector<MeshVertex> vertices(vertex_count);
    for (std::size_t v = 0; v < vertex_count; ++v)
      vertices[v] = MeshVertex{xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2], 0};
    std::vector<std::uint32_t> indices(3 * triangles);
    for (std::size_t t = 0; t < triangles; ++t)
      for (int c = 0; c < 3; ++c) indices[3 * t + c] = static_cast<std::uint32_t>(t + c);
    scene.vertices = DeviceBuffer<MeshVertex>(vertex_count, "test mesh vertices");
    scene.indices = DeviceBuffer<std::uint32_t>(indices.size(), "test mesh indices");
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpy(scene.vertices.data(), vertices.data(), scene.vertices.bytes(), cudaMemcpyHostToDevice));
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpy(scene.indices.data(), indices.data(), scene.indices.bytes(), cudaMemcpyHostToDevice));
  }
  if (particles > 0) {
    const std::vector<float> xyz = make_positions(particles, shape, rng);
    std::vector<ParticleVertex> points(particles);
    for (std::size_t i = 0; i < particles; ++i)
      points[i] = ParticleVertex{xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], 0.01f, 0};
    scene.points = DeviceBuffer<ParticleVertex>(particles, "test particles");
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(scene.points.data(), points.data(), scene.points.bytes(), cudaMemcpyHostToDevice));
  }
  return scene;
}

// `n` particles in the box, every `every`-th of them at one point (x, y, z): one depth held by
// n / every of them.
DeviceScene particles_with_one_point(std::size_t n, unsigned seed, std::size_t every, float x, float y, float z) {
  DeviceScene scene = make_scene(0, n, Shape::Box, seed);
  std::vector<ParticleVertex> points(n);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(points.data(), scene.points.data(), scene.points.bytes(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; i += every) points[i].x = x, points[i].y = y, points[i].z = z;
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(scene.points.data(), points.data(), scene.points.bytes(), cudaMemcpyHostToDevice));
  return scene;
}

// The depth plane of a camera looking at the origin from `angle` radians around the y axis
// (a step of the orbit), `distance` away.
DepthPlane orbit_plane(float angle, float distance = 4.0f) {
  // view z of p = -(dot(p, d) - ... ): a plane with unit normal -d through the camera at distance.
  const float dx = std::sin(angle), dz = std::cos(angle);
  return DepthPlane{-dx * 0.9f, 0.3f, -dz * 0.9f, -distance};
}

struct Readback {
  std::vector<std::uint32_t> order;
  std::vector<float> key_of_id;
};

// Orders one frame of `scene` into the draw order, poisoned first unless the frame lists its keys
// in the last order, which the draw order holds; reads the order and the frame's keys by id (from
// the plain depth pass) back.
Readback order_frame(FrameOrder& unit, const DeviceScene& scene, const OrderRequest& request, Sorter* sorter,
                     DeviceBuffer<std::uint32_t>& order, DeviceBuffer<float>& keys, cudaStream_t stream,
                     StepTimer& timer) {
  const std::size_t n = scene.size();
  const FrameRecords records = unit.records(scene.points.data(), scene.particles);
  if (n > 0 && !request.coherent) DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(order.data(), 0xFF, n * 4, stream));
  timer.begin_frame(stream);
  unit.order_single(records, request, sorter, order.data(), stream, timer);
  timer.end_frame();
  launch_record_depth(records, request.plane, keys.data(), nullptr, stream);
  DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  Readback r{std::vector<std::uint32_t>(n), std::vector<float>(n)};
  if (n > 0) {
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(r.order.data(), order.data(), n * 4, cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(r.key_of_id.data(), keys.data(), n * 4, cudaMemcpyDeviceToHost));
  }
  return r;
}

// "" if `r` is a permutation of 0..n-1 in key order, else the first thing wrong.
std::string order_problem(const Readback& r) {
  const std::size_t n = r.order.size();
  std::vector<char> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t id = r.order[i];
    if (id >= n)
      return "position " + std::to_string(i) + " holds id " + std::to_string(id) + " (n " + std::to_string(n) + ")";
    if (seen[id]++) return "id " + std::to_string(id) + " twice (position " + std::to_string(i) + ")";
    if (i + 1 < n && r.order[i + 1] < n && ordered_key(r.key_of_id[r.order[i + 1]]) < ordered_key(r.key_of_id[id]))
      return "positions " + std::to_string(i) + " and " + std::to_string(i + 1) + " out of key order";
  }
  return "";
}

// The sorted key sequences of two orders of the same frame agree bit for bit.
std::string keys_differ(const Readback& a, const Readback& b) {
  if (a.order.size() != b.order.size()) return "different sizes";
  for (std::size_t i = 0; i < a.order.size(); ++i)
    if (ordered_key(a.key_of_id[a.order[i]]) != ordered_key(b.key_of_id[b.order[i]]))
      return "sorted key " + std::to_string(i) + " differs";
  return "";
}

class FrameOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!cuda_device_usable(&why_not)) GTEST_SKIP() << why_not;
    const SorterInfo* info = find_sorter("cub-radix");
    cub_ = info->create(default_options(*info));
  }
  // Frames of `scene` along an orbit (a step of `step` radians; a cut to the other side at frame
  // `cut`), each ordered fused and plain on two units; every order checked, the two compared.
  // Returns the frames depth-bucket made itself.
  int run_orbit(const DeviceScene& scene, int frames, float step, int cut = -1, float forward = 0.0f) {
    const std::size_t n = scene.size();
    FrameOrder fused(scene.triangles, n), plain(scene.triangles, n);
    cub_->reserve(n);
    DeviceBuffer<std::uint32_t> order(std::max<std::size_t>(n, 1), "test draw order");
    DeviceBuffer<float> keys(std::max<std::size_t>(n, 1), "test keys by id");
    CudaStream stream;
    StepTimer timer;
    fused.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
    plain.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
    int own = 0;
    for (int f = 0; f < frames; ++f) {
      OrderRequest request;
      request.plane = orbit_plane(f == cut ? 3.14159f + step * static_cast<float>(f) : step * static_cast<float>(f),
                                  4.0f - forward * static_cast<float>(f));
      request.method = OrderMethod::Fused;
      const Readback a = order_frame(fused, scene, request, nullptr, order, keys, stream.get(), timer);
      own += fused.last_fused();
      request.method = OrderMethod::Sorter;
      const Readback b = order_frame(plain, scene, request, cub_.get(), order, keys, stream.get(), timer);
      const std::string problem = order_problem(a);
      EXPECT_EQ(problem, "") << "fused, n " << n << ", frame " << f;
      EXPECT_EQ(order_problem(b), "") << "plain, n " << n << ", frame " << f;
      if (!problem.empty()) break;
      EXPECT_EQ(keys_differ(a, b), "") << "n " << n << ", frame " << f;
    }
    return own;
  }
  std::unique_ptr<Sorter> cub_;
};

TEST_F(FrameOrderTest, FusedEqualsPlainOverAnOrbitWithACut) {
  const DeviceScene scene = make_scene(300'000, 700'003, Shape::Box, 1);
  const int own = run_orbit(scene, 16, 0.01f, 9);
  // Frame 0 (no splitters yet) and the cut hand the frame back; nearly every other frame is
  // depth-bucket's own.
  EXPECT_GE(own, 11);
}

// A camera flying through the scene: every key moves the same way, out of the last frame's range
// (the end buckets take them).
TEST_F(FrameOrderTest, FusedEqualsPlainFlyingForward) {
  const DeviceScene scene = make_scene(400'000, 600'000, Shape::Box, 9);
  const int own = run_orbit(scene, 24, 0.002f, -1, 0.1f);
  EXPECT_GE(own, 16);
}

TEST_F(FrameOrderTest, FusedAtSizesAroundItsThresholds) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{65535}, std::size_t{65536},
                              std::size_t{65537}, std::size_t{100'001}, std::size_t{(1u << 22) + 1}}) {
    const DeviceScene particles_only = make_scene(0, n, Shape::Box, 2);
    run_orbit(particles_only, 3, 0.02f);
    const DeviceScene triangles_only = make_scene(n, 0, Shape::Ring, 3);
    run_orbit(triangles_only, 3, 0.02f);
  }
}

TEST_F(FrameOrderTest, FusedOnInputsThatDefeatItsBuckets) {
  for (const Shape shape : {Shape::OneDepth, Shape::TwoDepths, Shape::FarOutliers, Shape::Specials, Shape::Ring}) {
    const DeviceScene scene = make_scene(200'000, 300'000, shape, 4);
    run_orbit(scene, 4, 0.05f);
  }
}

TEST_F(FrameOrderTest, FusedAtSixteenMillionPrimitives) {
  const DeviceScene scene = make_scene(5u << 20, 11u << 20, Shape::Box, 5);
  const bool fits = FrameOrder(scene.triangles, scene.size()).fused_fits(scene.size());
  const int own = run_orbit(scene, 5, 0.005f);
  // Where a block's shared memory holds only the smallest bucket shape (sm_75's 64 KB), 16M
  // primitives need more buckets than a frame may have: every frame is the plain order's, exact.
  if (fits)
    EXPECT_GE(own, 3);
  else
    EXPECT_EQ(own, 0);
}

// Frames whose keys crowd into buckets of the last frame's splitters: each such bucket goes beyond
// its room, spills the rest and is sorted after the others; the frame is still depth-bucket's own.
// One crowded bucket near the middle of the keys, then two far apart (their sorted union spans
// most of the key bits, where one bucket's spans a few).
TEST_F(FrameOrderTest, ABucketBeyondItsRoomIsSortedAfterTheOthers) {
  const std::size_t n = 2u << 20;
  for (const std::uint32_t crowded : {1u, 2u}) {
    SCOPED_TRACE(::testing::Message() << crowded << " crowded bucket(s)");
    DeviceScene scene = make_scene(0, n, Shape::Box, 11);
    FrameOrder fused(0, n), plain(0, n);
    cub_->reserve(n);
    DeviceBuffer<std::uint32_t> order(n, "test draw order");
    DeviceBuffer<float> keys(n, "test keys by id");
    CudaStream stream;
    StepTimer timer;
    OrderRequest request;
    request.plane = orbit_plane(0.0f);
    request.method = OrderMethod::Fused;
    order_frame(fused, scene, request, nullptr, order, keys, stream.get(), timer);  // leaves the splitters
    // Each crowd: one and a half buckets' room of particles (a bucket holds half its room on
    // average) moved to 61 depths a few float steps apart, so that the bucket they land in holds
    // twice its room (where they straddle two, one of them at least a quarter beyond it); few
    // enough that the spill area holds what is beyond the rooms. The camera sees z.
    const std::uint32_t room = fused.fused_bucket_room();
    ASSERT_GT(room, 0u);
    const std::size_t every = n / (room + room / 2);
    std::vector<ParticleVertex> points(n);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(points.data(), scene.points.data(), scene.points.bytes(), cudaMemcpyDeviceToHost));
    const auto crowd = [&](std::size_t first, float z) {
      for (std::size_t i = first; i < n; i += every) {
        points[i].x = 0.01f;
        points[i].y = 0.02f;
        points[i].z = z + 1e-6f * static_cast<float>(i % 61);
      }
    };
    crowd(0, 0.03f);
    if (crowded == 2) crowd(every / 2, -0.95f);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(scene.points.data(), points.data(), scene.points.bytes(), cudaMemcpyHostToDevice));
    const Readback a = order_frame(fused, scene, request, nullptr, order, keys, stream.get(), timer);
    EXPECT_TRUE(fused.last_fused());
    EXPECT_GE(fused.fused_overflowed_buckets(), crowded);
    request.method = OrderMethod::Sorter;
    const Readback b = order_frame(plain, scene, request, cub_.get(), order, keys, stream.get(), timer);
    EXPECT_EQ(order_problem(a), "");
    EXPECT_EQ(keys_differ(a, b), "");
    // The next frame takes its splitters from that one (the overflowed buckets' written by the
    // step that sorted them): fitted again, still exact.
    request.method = OrderMethod::Fused;
    const Readback c = order_frame(fused, scene, request, nullptr, order, keys, stream.get(), timer);
    EXPECT_TRUE(fused.last_fused());
    EXPECT_EQ(fused.fused_overflowed_buckets(), 0u);
    EXPECT_EQ(order_problem(c), "");
  }
}

// One depth held by a fifth of the primitives: the last frame's splitters repeat it, and the next
// frame spreads it over the buckets between the copies (each of that one key): it stays
// depth-bucket's own, and exact.
TEST_F(FrameOrderTest, OneHeavyKeyValueFillsSeveralBuckets) {
  const DeviceScene scene = particles_with_one_point(1u << 20, 12, 5, 0.25f, -0.5f, 0.125f);
  const int own = run_orbit(scene, 4, 0.0f);
  EXPECT_GE(own, 3);  // frame 0 leaves the splitters
}

// One depth held by a hundredth of the primitives at a point off the centre, so that its key
// moves every frame of the orbit (a particle fountain: every particle born this frame is at the
// emitter): the last frame's splitters have no room for it where it is now, and its bucket
// overflows. The sample sees one crowded bucket whose pairs beyond its region fit the spill area:
// the frames stay depth-bucket's own (one overflowed bucket each), and exact.
TEST_F(FrameOrderTest, AHeavyDepthThatMovesEveryFrameOverflowsOneBucket) {
  const DeviceScene scene = particles_with_one_point(8u << 20, 13, 100, 0.6f, -0.5f, 0.3f);
  const int own = run_orbit(scene, 6, 0.01f);
  EXPECT_GE(own, 5);  // frame 0 leaves the splitters
}

TEST_F(FrameOrderTest, OneUnitThroughAChainOfUnrelatedScenesAndSizes) {
  const std::size_t max_n = 3'000'000;
  FrameOrder unit(1'000'000, max_n);
  cub_->reserve(max_n);
  DeviceBuffer<std::uint32_t> order(max_n, "test draw order");
  DeviceBuffer<float> keys(max_n, "test keys by id");
  CudaStream stream;
  StepTimer timer;
  struct Step {
    std::size_t triangles, particles;
    Shape shape;
  };
  const Step chain[] = {{1'000'000, 2'000'000, Shape::Box}, {0, 70'000, Shape::Box},
                        {1'000'000, 0, Shape::Ring},        {0, 1, Shape::Box},
                        {20, 0, Shape::OneDepth},           {500'000, 500'000, Shape::FarOutliers},
                        {1'000'000, 2'000'000, Shape::Box}};
  unsigned seed = 10;
  for (const Step& step : chain) {
    const DeviceScene scene = make_scene(step.triangles, step.particles, step.shape, seed++);
    unit.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
    for (int f = 0; f < 3; ++f) {
      OrderRequest request;
      request.plane = orbit_plane(0.03f * static_cast<float>(f));
      request.method = f == 1 ? OrderMethod::Sorter : OrderMethod::Fused;
      const Readback r = order_frame(unit, scene, request, cub_.get(), order, keys, stream.get(), timer);
      EXPECT_EQ(order_problem(r), "") << "scene of " << scene.size() << ", frame " << f;
    }
  }
}

TEST_F(FrameOrderTest, CoherentListingAndSubmissionOrder) {
  const DeviceScene scene = make_scene(100'000, 300'000, Shape::Box, 6);
  const std::size_t n = scene.size();
  FrameOrder unit(scene.triangles, n);
  const SorterInfo* run_bucket = find_sorter("run-bucket");
  std::unique_ptr<Sorter> sorter = run_bucket->create(default_options(*run_bucket));
  sorter->reserve(n);
  DeviceBuffer<std::uint32_t> order(n, "test draw order");
  DeviceBuffer<float> keys(n, "test keys by id");
  CudaStream stream;
  StepTimer timer;
  unit.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
  for (int f = 0; f < 6; ++f) {
    OrderRequest request;
    request.plane = orbit_plane(0.02f * static_cast<float>(f));
    request.coherent = true;
    const Readback r = order_frame(unit, scene, request, sorter.get(), order, keys, stream.get(), timer);
    EXPECT_EQ(order_problem(r), "") << "frame " << f;
    EXPECT_EQ(unit.last_coherent(), f > 0) << "frame " << f;
  }
  OrderRequest unsorted;
  unsorted.sort = false;
  const Readback r = order_frame(unit, scene, unsorted, sorter.get(), order, keys, stream.get(), timer);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r.order[i], i) << "the submission order";
}

TEST_F(FrameOrderTest, SeparatePassesGatherEachKindsOrder) {
  const DeviceScene scene = make_scene(50'000, 80'000, Shape::Box, 7);
  const std::size_t n = scene.size();
  FrameOrder unit(scene.triangles, n);
  std::unique_ptr<Sorter> particle_sorter =
      find_sorter("cub-radix")->create(default_options(*find_sorter("cub-radix")));
  cub_->reserve(scene.triangles);
  particle_sorter->reserve(scene.particles);
  DeviceBuffer<std::uint32_t> mesh_elements(3 * scene.triangles, "test mesh elements");
  DeviceBuffer<std::uint32_t> particle_elements(scene.particles, "test particle elements");
  DeviceBuffer<float> keys(n, "test keys by id");
  CudaStream stream;
  StepTimer timer;
  unit.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
  OrderRequest request;
  request.plane = orbit_plane(0.4f);
  const FrameRecords records = unit.records(scene.points.data(), scene.particles);
  timer.begin_frame(stream.get());
  unit.order_separate(records, request, cub_.get(), particle_sorter.get(), scene.indices.data(), mesh_elements.data(),
                      particle_elements.data(), stream.get(), timer);
  timer.end_frame();
  unit.check_last_order(records, request.plane, 0, stream.get());
  OrderCheck check;
  ASSERT_TRUE(unit.finish_check(check));
  EXPECT_EQ(check.bad_first, 0u);
  EXPECT_EQ(check.bad_second, 0u);
  launch_record_depth(records, request.plane, keys.data(), nullptr, stream.get());
  DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::vector<std::uint32_t> points(scene.particles);
  std::vector<float> key_of_id(n);
  DEPTHSORT_CUDA_CHECK(
      cudaMemcpy(points.data(), particle_elements.data(), particle_elements.bytes(), cudaMemcpyDeviceToHost));
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(key_of_id.data(), keys.data(), keys.bytes(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i + 1 < points.size(); ++i)
    ASSERT_LE(ordered_key(key_of_id[scene.triangles + points[i]]),
              ordered_key(key_of_id[scene.triangles + points[i + 1]]))
        << "particle element " << i;
}

// The unit's own check: passes on the orders it made (fused and plain), and counts a swapped pair,
// a duplicated id and an id out of range planted in the draw order.
TEST_F(FrameOrderTest, OrderCheckCatchesPlantedErrors) {
  const DeviceScene scene = make_scene(100'000, 200'000, Shape::Box, 8);
  const std::size_t n = scene.size();
  FrameOrder unit(scene.triangles, n);
  cub_->reserve(n);
  DeviceBuffer<std::uint32_t> order(n, "test draw order");
  DeviceBuffer<float> keys(n, "test keys by id");
  CudaStream stream;
  StepTimer timer;
  unit.set_mesh(scene.vertices.data(), scene.indices.data(), scene.triangles, stream.get());
  const FrameRecords records = unit.records(scene.points.data(), scene.particles);
  for (const OrderMethod method : {OrderMethod::Sorter, OrderMethod::Fused, OrderMethod::Fused}) {
    OrderRequest request;
    request.plane = orbit_plane(0.1f);
    request.method = method;
    const Readback r = order_frame(unit, scene, request, cub_.get(), order, keys, stream.get(), timer);
    unit.check_last_order(records, request.plane, 1, stream.get());
    OrderCheck check;
    ASSERT_TRUE(unit.finish_check(check));
    EXPECT_EQ(check.bad_first, 0u) << order_method_name(method);
    // Plants, one at a time, each restored after.
    const std::uint32_t a = r.order[10], b = r.order[n - 10];
    const auto plant = [&](std::size_t at, std::uint32_t value) {
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(order.data() + at, &value, 4, cudaMemcpyHostToDevice));
    };
    const auto bad_now = [&] {
      unit.check_last_order(records, request.plane, 1, stream.get());
      OrderCheck planted;
      EXPECT_TRUE(unit.finish_check(planted));
      return planted.bad_first;
    };
    plant(10, b), plant(n - 10, a);
    EXPECT_GT(bad_now(), 0u) << "swapped pair, " << order_method_name(method);
    plant(10, a), plant(n - 10, a);
    EXPECT_GT(bad_now(), 0u) << "duplicated id, " << order_method_name(method);
    plant(n - 10, static_cast<std::uint32_t>(n + 7));
    EXPECT_GT(bad_now(), 0u) << "id out of range, " << order_method_name(method);
    plant(n - 10, b);
    EXPECT_EQ(bad_now(), 0u) << "restored, " << order_method_name(method);
  }
}

}  // namespace
}  // namespace depthsort::testing
