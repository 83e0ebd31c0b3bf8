// Depth keys (depth.hpp): from the vertices, or from the frame records (triangle centroids and
// particles), and the keys listed in the last frame's order.
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
                                      const std::uint32_t* __restrict__ indices, std::size_t n, DepthPlane plane,
                                      float* __restrict__ keys, std::uint32_t* __restrict__ values) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  keys[t] = triangle_key(plane, vertices, indices, t);
  values[t] = static_cast<std::uint32_t>(t);
}

__global__ void point_depth_kernel(const ParticleVertex* __restrict__ particles, std::size_t n, DepthPlane plane,
                                   float* __restrict__ keys, std::uint32_t* __restrict__ values) {
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

__global__ void record_depth_kernel(FrameRecords records, DepthPlane plane, float* __restrict__ keys,
                                    std::uint32_t* __restrict__ values) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= records.size()) return;
  keys[i] = record_key(plane, records.centroids, records.triangles, records.particles, i);
  if (values) values[i] = static_cast<std::uint32_t>(i);
}

__global__ void triangle_centroids_kernel(const MeshVertex* __restrict__ vertices,
                                          const std::uint32_t* __restrict__ indices, std::size_t triangles,
                                          float4* __restrict__ centroids) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t < triangles) centroids[t] = triangle_centroid(vertices, indices, t);
}

__global__ void gather_keys_kernel(const float* __restrict__ key_of_id, const std::uint32_t* __restrict__ ids,
                                   std::size_t n, float* __restrict__ keys, std::uint32_t* __restrict__ values) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t id = ids[i];
  keys[i] = id < n ? key_of_id[id] : -INFINITY;
  values[i] = id;
}

}  // namespace

void launch_triangle_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                           DepthPlane plane, float* keys, std::uint32_t* values, cudaStream_t stream) {
  if (triangles == 0) return;
  triangle_depth_kernel<<<grid_for(triangles), kBlock, 0, stream>>>(vertices, indices, triangles, plane, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("triangle_depth_kernel");
}

void launch_point_depth(const ParticleVertex* particles, std::size_t n, DepthPlane plane, float* keys,
                        std::uint32_t* values, cudaStream_t stream) {
  if (n == 0) return;
  point_depth_kernel<<<grid_for(n), kBlock, 0, stream>>>(particles, n, plane, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("point_depth_kernel");
}

void launch_primitive_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                            const ParticleVertex* particles, std::size_t particle_count, DepthPlane plane, float* keys,
                            std::uint32_t* values, cudaStream_t stream) {
  const std::size_t n = triangles + particle_count;
  if (n == 0) return;
  primitive_depth_kernel<<<grid_for(n), kBlock, 0, stream>>>(vertices, indices, triangles, particles, n, plane, keys,
                                                             values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("primitive_depth_kernel");
}

void launch_triangle_centroids(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                               float4* centroids, cudaStream_t stream) {
  if (triangles == 0) return;
  triangle_centroids_kernel<<<grid_for(triangles), kBlock, 0, stream>>>(vertices, indices, triangles, centroids);
  DEPTHSORT_CUDA_CHECK_LAUNCH("triangle_centroids_kernel");
}

void launch_record_depth(const FrameRecords& records, DepthPlane plane, float* keys, std::uint32_t* values,
                         cudaStream_t stream) {
  if (records.size() == 0) return;
  record_depth_kernel<<<grid_for(records.size()), kBlock, 0, stream>>>(records, plane, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("record_depth_kernel");
}

void launch_gather_keys(const float* key_of_id, const std::uint32_t* ids, std::size_t n, float* keys,
                        std::uint32_t* values, cudaStream_t stream) {
  if (n == 0) return;
  gather_keys_kernel<<<grid_for(n), kBlock, 0, stream>>>(key_of_id, ids, n, keys, values);
  DEPTHSORT_CUDA_CHECK_LAUNCH("gather_keys_kernel");
}

}  // namespace depthsort
