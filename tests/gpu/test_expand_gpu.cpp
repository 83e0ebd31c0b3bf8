// The expanded draw's kernel (kernels/frame/expand.cu) against the host function it shares with
// the CPU path (depthsort/frame/expand.hpp, whose own tests are tests/app/expand_tests.cpp): the same
// vertices for a shuffled order of triangles and particles, counts that leave a partial last
// block, and every colour mode. The kernel stages each block's vertices in shared memory, which
// only this test checks.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/sort/registry.hpp"

namespace depthsort::testing {
namespace {

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host, const char* what) {
  DeviceBuffer<T> device(std::max<std::size_t>(host.size(), 1), what);
  if (!host.empty())
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(device.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

// Colour bytes within 1 (a fused multiply-add may round a byte the other way), positions within
// float rounding, corners exact.
void expect_same_vertex(const ExpandedVertex& got, const ExpandedVertex& want, std::size_t i) {
  const float scale = 1.0f + std::max({std::fabs(want.x), std::fabs(want.y), std::fabs(want.z)});
  ASSERT_NEAR(got.x, want.x, 1e-5f * scale) << "vertex " << i;
  ASSERT_NEAR(got.y, want.y, 1e-5f * scale) << "vertex " << i;
  ASSERT_NEAR(got.z, want.z, 1e-5f * scale) << "vertex " << i;
  for (int c = 0; c < 4; ++c)
    ASSERT_LE(
        std::abs(static_cast<int>((got.rgba >> (8 * c)) & 0xFF) - static_cast<int>((want.rgba >> (8 * c)) & 0xFF)), 1)
        << "vertex " << i << " byte " << c;
  ASSERT_EQ(got.corner[0], want.corner[0]) << "vertex " << i;
  ASSERT_EQ(got.corner[1], want.corner[1]) << "vertex " << i;
}

TEST(ExpandGpu, KernelWritesTheHostFunctionsVertices) {
  std::string why;
  if (!cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> coordinate(-3.0f, 3.0f);
  for (const std::size_t triangles : {std::size_t{0}, std::size_t{700}, std::size_t{50001}}) {
    for (const std::size_t particle_count : {std::size_t{1}, std::size_t{333}, std::size_t{40000}}) {
      const std::size_t n = triangles + particle_count;
      const std::size_t vertex_count = triangles + 2;
      std::vector<MeshVertex> vertices(vertex_count);
      for (MeshVertex& v : vertices)
        v = {coordinate(rng), coordinate(rng), coordinate(rng), static_cast<std::uint32_t>(rng())};
      std::vector<std::uint32_t> indices(3 * triangles);
      for (std::uint32_t& i : indices) i = static_cast<std::uint32_t>(rng() % vertex_count);
      std::vector<ParticleVertex> particles(particle_count);
      for (ParticleVertex& p : particles)
        p = {coordinate(rng), coordinate(rng), coordinate(rng), (rng() % 2) ? 0.05f : 1e-6f,
             static_cast<std::uint32_t>(rng())};
      std::vector<std::uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      order[n / 2] = static_cast<std::uint32_t>(n + 5);  // a broken id: a zero-area triangle on both
      std::vector<std::uint32_t> starts = {0};
      for (std::size_t s = 1 + rng() % 97; s < n; s += 1 + rng() % 5000)
        starts.push_back(static_cast<std::uint32_t>(s));

      const auto d_vertices = upload(vertices, "test mesh vertices");
      const auto d_indices = upload(indices, "test indices");
      const auto d_particles = upload(particles, "test particles");
      const auto d_order = upload(order, "test order");
      const auto d_starts = upload(starts, "test segment starts");
      DeviceBuffer<ExpandedVertex> d_out(3 * n, "test expanded vertices");
      std::vector<ExpandedVertex> got(3 * n), want(3 * n);

      for (std::uint32_t colour = 0; colour < 3; ++colour) {
        ExpandView view;
        const float r[3] = {0.8f, 0.0f, -0.6f}, u[3] = {0.36f, 0.8f, 0.48f};
        std::copy(r, r + 3, view.right);
        std::copy(u, u + 3, view.up);
        view.plane = {0.48f, -0.6f, 0.64f, -6.0f};
        view.point_scale = 400.0f;
        view.colour_mode = colour;
        const Segments segments{d_starts.data(), static_cast<std::uint32_t>(starts.size()), "test"};
        DEPTHSORT_CUDA_CHECK(cudaMemset(d_out.data(), 0xCD, d_out.bytes()));  // poisoned
        launch_expand(d_vertices.data(), d_indices.data(), triangles, d_particles.data(), n, d_order.data(), segments,
                      view, d_out.data(), nullptr);
        DEPTHSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_out.data(), d_out.bytes(), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < n; ++i)
          expand_primitive(vertices.data(), indices.data(), triangles, particles.data(), n, order.data(), starts.data(),
                           static_cast<std::uint32_t>(starts.size()), view, i, want.data() + 3 * i);
        SCOPED_TRACE(std::to_string(triangles) + " triangles, " + std::to_string(particle_count) +
                     " particles, colour mode " + std::to_string(colour));
        for (std::size_t i = 0; i < 3 * n; ++i) {
          expect_same_vertex(got[i], want[i], i);
          if (::testing::Test::HasFatalFailure()) return;  // the first wrong vertex, not millions
        }
      }
    }
  }
}

}  // namespace
}  // namespace depthsort::testing
