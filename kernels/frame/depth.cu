// Depth keys, gather into the GL element buffer, and the sortedness check of the demo's frame.
#include <cuda_runtime.h>

#include <cmath>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort {

namespace {

constexpr int kBlock = 256;

unsigned int grid_for(std::size_t n) { return primitives::grid_for(n, kBlock); }

__global__ void triangle_depth_kernel(const MeshVertex* __restrict__ vertices,
                                      const std::uint32_t* __restrict__ indices, std::size_t n,
                                      DepthPlane plane, float* __restrict__ keys,
                                      std::uint32_t* __restrict__ values) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  keys[t] = triangle_key(plane, vertices, indices, t);
  values[t] = static_cast<std::uint32_t>(t);
}

__global__ void point_depth_kernel(const ParticleVertex* __restrict__ particles, std::size_t n,
                                   DepthPlane plane, float* __restrict__ keys,
                                   std::uint32_t* __restrict__ values) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const ParticleVertex p = particles[i];
  keys[i] = point_key(plane, p.x, p.y, p.z);
  if (values) values[i] = static_cast<std::uint32_t>(i);
}

__global__ void primitive_depth_kernel(const MeshVertex* __restrict__ vertices,
                                       const std::uint32_t* __restrict__ indices, std::size_t triangles,
                                       const ParticleVertex* __restrict__ particles, std::size_t n, DepthPlane plane,
                                       float* __restrict__ keys, std::uint32_t* __restrict__ values) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  keys[i] = primitive_key(plane, vertices, indices, triangles, particles, static_cast<std::uint32_t>(i));
  if (values) values[i] = static_cast<std::uint32_t>(i);
}

__global__ void gather_keys_kernel(const float* __restrict__ key_of_id, const std::uint32_t* __restrict__ ids,
                                   std::size_t n, float* __restrict__ keys, std::uint32_t* __restrict__ values) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t id = ids[i];
  keys[i] = id < n ? key_of_id[id] : -INFINITY;
  values[i] = id;
}

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

__global__ void check_sorted_kernel(const float* __restrict__ key_of_id, std::size_t id_count,
                                    const float* __restrict__ keys_out, const std::uint32_t* __restrict__ values_out,
                                    std::size_t n, unsigned int* __restrict__ bad_count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  unsigned int bad = 0;
  if (i < n) {
    const float k = keys_out[i];
    if (i + 1 < n && ordered_key(keys_out[i + 1]) < ordered_key(k)) bad = 1;
    const std::uint32_t v = values_out[i];
    if (v >= id_count || __float_as_uint(key_of_id[v]) != __float_as_uint(k)) bad = 1;
  }
  bad = __syncthreads_count(bad);
  if (threadIdx.x == 0 && bad) atomicAdd(bad_count, bad);
}

}  // namespace

void launch_triangle_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                           DepthPlane plane, float* keys, std::uint32_t* values, cudaStream_t stream) {
  if (triangles == 0) return;
  triangle_depth_kernel<<<grid_for(triangles), kBlock, 0, stream>>>(vertices, indices, triangles, plane, keys,
                                                                    values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("triangle_depth_kernel");
}

void launch_point_depth(const ParticleVertex* particles, std::size_t n, DepthPlane plane, float* keys,
                        std::uint32_t* values, cudaStream_t stream) {
  if (n == 0) return;
  point_depth_kernel<<<grid_for(n), kBlock, 0, stream>>>(particles, n, plane, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("point_depth_kernel");
}

void launch_primitive_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                            const ParticleVertex* particles, std::size_t particle_count, DepthPlane plane,
                            float* keys, std::uint32_t* values, cudaStream_t stream) {
  const std::size_t n = triangles + particle_count;
  if (n == 0) return;
  primitive_depth_kernel<<<grid_for(n), kBlock, 0, stream>>>(vertices, indices, triangles, particles, n, plane, keys,
                                                              values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("primitive_depth_kernel");
}

void launch_gather_keys(const float* key_of_id, const std::uint32_t* ids, std::size_t n, float* keys,
                        std::uint32_t* values, cudaStream_t stream) {
  if (n == 0) return;
  gather_keys_kernel<<<grid_for(n), kBlock, 0, stream>>>(key_of_id, ids, n, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("gather_keys_kernel");
}

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

void launch_check_sorted(const float* key_of_id, std::size_t id_count, const float* keys_out,
                         const std::uint32_t* values_out, std::size_t n, unsigned int* bad_count, cudaStream_t stream) {
  if (n == 0) return;
  check_sorted_kernel<<<grid_for(n), kBlock, 0, stream>>>(key_of_id, id_count, keys_out, values_out, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("check_sorted_kernel");
}

}  // namespace depthsort
