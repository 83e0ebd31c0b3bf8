// The sort library's architecture-guarded primitives on the GPU, in whatever path this build's
// architecture compiles (a build for sm_90 runs the warp reduction instruction and the bulk copy;
// one of 80-virtual, cp.async; one of 75-virtual, shuffles and plain loads): the warp reductions
// over full and partial masks, checked against the host and against the shuffle path, which runs
// on every architecture; and a block staging runs of pairs through StagedPairs in the double-
// buffer protocol its users follow, every run compared word for word with its source.
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
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/staged_pairs.cuh"
#include "sort/primitives/staging.hpp"
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

// ---------------------------------------------------------------------------------------------
// StagedPairs
// ---------------------------------------------------------------------------------------------

// run-bucket's small-bucket shape: 256 threads, runs of up to 3072 pairs.
constexpr int kThreads = 256;
constexpr std::uint32_t kCapacity = 3072;
using Stage = primitives::StagedPairs<kThreads, kCapacity>;
// Runs start kRegion words apart, so that a run may be read to its next 16 bytes.
constexpr std::uint32_t kRegion = kCapacity + 4;

// Each block stages runs blockIdx.x, blockIdx.x + gridDim.x, ... as a persistent grid does, and
// copies each staged run out of shared memory, so that the host compares it with its source.
// Thread 0 of block 0 also writes the path its architecture compiled.
__global__ void staged_pairs_kernel(const std::uint32_t* keys, const std::uint32_t* values, const std::uint32_t* words,
                                    std::uint32_t runs, std::uint32_t* keys_out, std::uint32_t* values_out,
                                    std::uint32_t* path) {
  __shared__ Stage::Storage storage;
  Stage stage(storage);
  if (blockIdx.x == 0 && threadIdx.x == 0) *path = static_cast<std::uint32_t>(Stage::kPath);
  const auto run_of = [&](std::uint32_t r) {
    return [=] { return primitives::StagedRun{keys + r * kRegion, values + r * kRegion, words[r]}; };
  };
  std::uint32_t run = blockIdx.x;
  stage.begin(run < runs, run_of(run));
  __syncthreads();
  for (int k = 0; run < runs; k ^= 1) {
    const std::uint32_t next = run + gridDim.x;
    stage.fetch(k ^ 1, next < runs, run_of(next));
    stage.wait(k);
    for (std::uint32_t i = threadIdx.x; i < words[run]; i += kThreads) {
      keys_out[run * kRegion + i] = stage.keys(k)[i];
      values_out[run * kRegion + i] = stage.values(k)[i];
    }
    __syncthreads();
    run = next;
  }
}

TEST_F(GpuPrimitives, StagedPairsBringEveryRunWhole) {
  // Sizes around the 16-byte chunks and the threads' shares, up to the capacity; each block takes
  // several runs in a row, so that both buffers are used and reused.
  std::vector<std::uint32_t> words = {1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 3071, 3072, 7, 3072, 1};
  std::mt19937 random(75);
  for (int r = 0; r < 64; ++r) words.push_back(1 + random() % kCapacity);
  const auto runs = static_cast<std::uint32_t>(words.size());
  std::vector<std::uint32_t> keys(std::size_t{runs} * kRegion), values(keys.size());
  for (std::uint32_t& k : keys) k = random();
  for (std::uint32_t& v : values) v = random();
  DeviceBuffer<std::uint32_t> d_keys(keys.size(), "test"), d_values(keys.size(), "test"), d_words(runs, "test");
  DeviceBuffer<std::uint32_t> d_keys_out(keys.size(), "test"), d_values_out(keys.size(), "test"), d_path(1, "test");
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(d_keys.data(), keys.data(), d_keys.bytes(), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(d_values.data(), values.data(), d_values.bytes(), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(d_words.data(), words.data(), d_words.bytes(), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(cudaMemset(d_keys_out.data(), 0xAB, d_keys_out.bytes()));
  DEPTHSORT_CUDA_CHECK(cudaMemset(d_values_out.data(), 0xCD, d_values_out.bytes()));
  // The host sizes the shared memory from the path the kernel says it was compiled for: the same
  // path the kernel takes, or the buffers would overlap.
  const primitives::StagingPath path = primitives::staging_path_for(primitives::compiled_arch(staged_pairs_kernel));
  const std::size_t bytes = primitives::staging_bytes(path, 2, kCapacity);
  primitives::allow_dynamic_smem(staged_pairs_kernel, bytes, "staged_pairs_kernel");
  for (const unsigned blocks : {1u, 7u}) {
    staged_pairs_kernel<<<blocks, kThreads, bytes>>>(d_keys.data(), d_values.data(), d_words.data(), runs,
                                                     d_keys_out.data(), d_values_out.data(), d_path.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("staged_pairs_kernel");
    std::vector<std::uint32_t> keys_out(keys.size()), values_out(keys.size());
    std::uint32_t device_path = 0;
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_out.data(), d_keys_out.data(), d_keys_out.bytes(), cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpy(values_out.data(), d_values_out.data(), d_values_out.bytes(), cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(&device_path, d_path.data(), sizeof(device_path), cudaMemcpyDeviceToHost));
    ASSERT_EQ(device_path, static_cast<std::uint32_t>(path))
        << "the host's path (" << primitives::staging_path_name(path) << ") is not the kernel's";
    RecordProperty("staging_path", primitives::staging_path_name(path));
    for (std::uint32_t r = 0; r < runs; ++r) {
      const auto first = std::size_t{r} * kRegion;
      for (std::uint32_t i = 0; i < words[r]; ++i) {
        ASSERT_EQ(keys_out[first + i], keys[first + i])
            << "run " << r << " of " << words[r] << " words, key " << i << ", " << blocks << " blocks";
        ASSERT_EQ(values_out[first + i], values[first + i]) << "run " << r << ", value " << i;
      }
    }
  }
}

}  // namespace
}  // namespace depthsort::testing
