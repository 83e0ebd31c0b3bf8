// depthsort-bench --sequence: the depth pass of a coherent frame (see sequence_depth.hpp).
#include "sequence_depth.hpp"

#include <algorithm>

#include "depthsort/errors.hpp"

namespace depthsort::bench {
namespace {

__global__ void depths_in_order_kernel(const ScenePoint* __restrict__ scene, std::uint32_t last_point,
                                       const std::uint32_t* __restrict__ order, std::size_t n, DepthPlane plane,
                                       float* __restrict__ keys, std::uint32_t* __restrict__ values) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t id = min(order[i], last_point);
    const ScenePoint p = scene[id];
    keys[i] = point_key(plane, p.x, p.y, p.z);
    if (values) values[i] = id;
  }
}

__global__ void mark_ids_kernel(const std::uint32_t* __restrict__ values, std::size_t n, std::uint32_t* marks,
                                unsigned int* bad_count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t v = values[i];
    if (v < n)
      atomicAdd(marks + v, 1u);
    else
      atomicAdd(bad_count, 1u);  // out of range: counted here (its own id is then missing too)
  }
}

__global__ void count_unmarked_kernel(const std::uint32_t* __restrict__ marks, std::size_t n,
                                      unsigned int* bad_count) {
  unsigned int bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    bad += marks[i] != 1u;
  if (bad) atomicAdd(bad_count, bad);
}

unsigned grid_for(std::size_t n) { return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 8192)); }

}  // namespace

void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks,
                              unsigned int* bad_count, cudaStream_t stream) {
  if (n == 0) return;
  DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(marks, 0, n * sizeof(std::uint32_t), stream));
  mark_ids_kernel<<<grid_for(n), 256, 0, stream>>>(values, n, marks, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("depthsort-bench mark_ids_kernel");
  count_unmarked_kernel<<<grid_for(n), 256, 0, stream>>>(marks, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("depthsort-bench count_unmarked_kernel");
}

void launch_depths_in_order(const ScenePoint* scene, std::size_t points, const std::uint32_t* order, std::size_t n,
                            DepthPlane plane, float* keys, std::uint32_t* values, cudaStream_t stream) {
  if (n == 0 || points == 0) return;
  depths_in_order_kernel<<<grid_for(n), 256, 0, stream>>>(scene, static_cast<std::uint32_t>(points - 1), order, n, plane,
                                                     keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("depthsort-bench depths_in_order_kernel");
}

}  // namespace depthsort::bench
