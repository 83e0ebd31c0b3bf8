// The sort library's architecture-guarded primitives on the GPU, in whatever path this build's
// architecture compiles (a build for sm_80 or newer runs the warp reduction instruction; one of
// 75-virtual, shuffles): the warp reductions over full and partial masks, checked against the host
// and against the shuffle path, which runs on every architecture.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/primitives/warp_block.cuh"

namespace depthsort::testing {
namespace {

class GpuPrimitives : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!cuda_device_usable(&why_not)) GTEST_SKIP() << why_not;
  }
};

// ---------------------------------------------------------------------------------------------
// Warp reductions
// ---------------------------------------------------------------------------------------------

// What each lane writes: the build's reductions, then the shuffle path's (add, min, max each).
constexpr int kResults = 6;

// One warp per mask: the lanes of masks[w] reduce values[w * 32 + lane]; the others take no part.
__global__ void warp_reduce_kernel(const unsigned* masks, const std::uint32_t* values, std::uint32_t* out) {
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  const unsigned mask = masks[warp];
  if (((mask >> lane) & 1u) == 0) return;
  const std::uint32_t v = values[warp * 32 + lane];
  std::uint32_t* mine = out + (warp * 32 + lane) * kResults;
  mine[0] = primitives::warp_reduce_add(mask, v);
  mine[1] = primitives::warp_reduce_min(mask, v);
  mine[2] = primitives::warp_reduce_max(mask, v);
  mine[3] = primitives::warp_reduce_by_shuffles(mask, v, ::cuda::std::plus<std::uint32_t>{});
  mine[4] = primitives::warp_reduce_by_shuffles(mask, v, ::cuda::minimum<std::uint32_t>{});
  mine[5] = primitives::warp_reduce_by_shuffles(mask, v, ::cuda::maximum<std::uint32_t>{});
}

TEST_F(GpuPrimitives, WarpReductionsMatchTheHostOnEveryMask) {
  // A full warp; the low half (hybrid's last warp of 208 threads); one lane; every other lane; the
  // high half; a scattered mask; and a full warp again with the extreme values.
  const std::vector<unsigned> masks = {0xFFFFFFFFu, 0x0000FFFFu, 0x00000001u, 0x55555555u,
                                       0xFFFF0000u, 0x80402A11u, 0xFFFFFFFFu, 0x80000000u};
  std::mt19937 random(40);
  std::vector<std::uint32_t> values(masks.size() * 32);
  for (std::uint32_t& v : values) v = random();
  for (int lane = 0; lane < 32; ++lane) values[6 * 32 + lane] = lane % 3 == 0 ? 0u : lane % 3 == 1 ? 0xFFFFFFFFu : 7u;
  DeviceBuffer<unsigned> d_masks(masks.size(), "test");
  DeviceBuffer<std::uint32_t> d_values(values.size(), "test"), d_out(values.size() * kResults, "test");
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(d_masks.data(), masks.data(), d_masks.bytes(), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(d_values.data(), values.data(), d_values.bytes(), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(cudaMemset(d_out.data(), 0xAB, d_out.bytes()));
  warp_reduce_kernel<<<static_cast<unsigned>(masks.size()) / 2, 64>>>(d_masks.data(), d_values.data(), d_out.data());
  DEPTHSORT_CUDA_CHECK_LAUNCH("warp_reduce_kernel");
  std::vector<std::uint32_t> out(values.size() * kResults);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(out.data(), d_out.data(), d_out.bytes(), cudaMemcpyDeviceToHost));
  for (std::size_t w = 0; w < masks.size(); ++w) {
    std::uint32_t sum = 0, low = 0xFFFFFFFFu, high = 0;
    for (int lane = 0; lane < 32; ++lane) {
      if (((masks[w] >> lane) & 1u) == 0) continue;
      const std::uint32_t v = values[w * 32 + lane];
      sum += v;
      low = std::min(low, v);
      high = std::max(high, v);
    }
    for (int lane = 0; lane < 32; ++lane) {
      if (((masks[w] >> lane) & 1u) == 0) continue;
      const std::uint32_t* got = &out[(w * 32 + lane) * kResults];
      SCOPED_TRACE("mask " + std::to_string(masks[w]) + " lane " + std::to_string(lane));
      EXPECT_EQ(got[0], sum);
      EXPECT_EQ(got[1], low);
      EXPECT_EQ(got[2], high);
      EXPECT_EQ(got[3], sum);
      EXPECT_EQ(got[4], low);
      EXPECT_EQ(got[5], high);
    }
  }
}

}  // namespace
}  // namespace depthsort::testing
