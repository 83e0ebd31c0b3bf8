// What depthsort-multigpu's --test and --bench share: the input pairs kept on each GPU and the
// small helpers around them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "cli.hpp"

namespace depthsort::multi_gpu {

inline std::string size_text(std::size_t n) {
  for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
    const std::size_t unit = std::size_t{1} << shift;
    if (n >= unit && n % unit == 0) return std::to_string(n / unit) + suffix;
    if (n > unit && n % unit < 16) return std::to_string(n / unit) + suffix + "+" + std::to_string(n % unit);
  }
  return std::to_string(n);
}

inline std::vector<int> first_devices(int count) {
  std::vector<int> devices(count);
  std::iota(devices.begin(), devices.end(), 0);
  return devices;
}

// Input pairs of one GPU, kept on that GPU: a pristine copy and the copy the sort reads.
struct GpuInput {
  int device = 0;
  DeviceBuffer<float> keys_src, keys;
  DeviceBuffer<std::uint32_t> values_src, values;
  GpuInput(int dev, std::size_t n) : device(dev) {
    DeviceScope scope(dev);
    keys_src = DeviceBuffer<float>(n, "depthsort-multigpu input");
    keys = DeviceBuffer<float>(n, "depthsort-multigpu input");
    values_src = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu input");
    values = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu input");
  }
  void upload(const float* k, const std::uint32_t* v, std::size_t n) {
    if (n == 0) return;
    DeviceScope scope(device);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_src.data(), k, n * sizeof(float), cudaMemcpyHostToDevice));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(values_src.data(), v, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  }
  // Restores the sort's input from the pristine copy (outside any timed interval).
  void restore(std::size_t n, cudaStream_t stream) {
    if (n == 0) return;
    DeviceScope scope(device);
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(keys.data(), keys_src.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(values.data(), values_src.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  }
  DevicePairs pairs(std::size_t n) const { return {keys.data(), values.data(), n}; }
};

// Where pair i of n goes in the distributed case: GPU r holds [n*r/N, n*(r+1)/N).
inline std::size_t chunk_begin(std::size_t n, int r, int N) { return n * r / N; }

template <class T>
void download(T* to, const T* from, std::size_t count, int device) {
  if (count == 0) return;
  DeviceScope scope(device);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(to, from, count * sizeof(T), cudaMemcpyDeviceToHost));
}

// --test: both cases on 1, 2 and `found` GPUs, with and without sub-ranges; prints "N passed, M
// failed"; 0 when all pass.
int run_tests(const Config& config, int found);

// --bench (bench_run.cpp): both cases against one GPU's sorts; 0 when every check passes.
int run_bench(const Config& config, int found);

constexpr int kExitSkipped = 77;  // ctest SKIP_RETURN_CODE
constexpr int kExitUsage = 2;

}  // namespace depthsort::multi_gpu
