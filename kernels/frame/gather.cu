// The gathers of the separate passes, and the submission order (gather.hpp).
#include "depthsort/frame/gather.hpp"

#include <cuda_runtime.h>

#include "depthsort/sort/errors.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort {

namespace {

constexpr int kBlock = 256;

unsigned int grid_for(std::size_t n) { return primitives::grid_for(n, kBlock); }

__global__ void gather_triangles_kernel(const std::uint32_t* __restrict__ indices,
                                        const std::uint32_t* __restrict__ order, std::size_t n,
                                        std::uint32_t* __restrict__ elements) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  gather_triangle(indices, order, i, elements);
}

__global__ void gather_points_kernel(const std::uint32_t* __restrict__ order, std::size_t n, std::uint32_t first_id,
                                     std::uint32_t* __restrict__ elements) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) elements[i] = order[i] - first_id;
}

__global__ void submission_order_kernel(std::uint32_t* __restrict__ order, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) order[i] = static_cast<std::uint32_t>(i);
}

}  // namespace

void launch_gather_triangles(const std::uint32_t* indices, const std::uint32_t* order, std::size_t n,
                             std::uint32_t* elements, cudaStream_t stream) {
  if (n == 0) return;
  gather_triangles_kernel<<<grid_for(n), kBlock, 0, stream>>>(indices, order, n, elements);
  DEPTHSORT_CUDA_CHECK_LAUNCH("gather_triangles_kernel");
}

void launch_gather_points(const std::uint32_t* order, std::size_t n, std::uint32_t first_id, std::uint32_t* elements,
                          cudaStream_t stream) {
  if (n == 0) return;
  gather_points_kernel<<<grid_for(n), kBlock, 0, stream>>>(order, n, first_id, elements);
  DEPTHSORT_CUDA_CHECK_LAUNCH("gather_points_kernel");
}

void launch_submission_order(std::uint32_t* order, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  submission_order_kernel<<<grid_for(n), kBlock, 0, stream>>>(order, n);
  DEPTHSORT_CUDA_CHECK_LAUNCH("submission_order_kernel");
}

}  // namespace depthsort
