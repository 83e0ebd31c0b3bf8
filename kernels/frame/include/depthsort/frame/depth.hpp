// Depth keys: the frame's primitives and their records, and the depth passes that turn them into
// (key, id) pairs. The per-element functions are __host__ __device__ so that the CPU path and the
// CPU tests run exactly the arithmetic the GPU runs (gather.hpp and order_check.hpp hold what
// follows the sort).
//
// Key convention (keys.hpp order, ascending = far to near): key = view-space z of the primitive's
// centre. OpenGL's camera looks down -z, so the farthest primitive has the most negative z and
// comes first; back-to-front drawing is the ascending order.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"

namespace depthsort {

// One mesh vertex in the GL vertex buffer: position and packed RGBA8 colour (r in the low byte).
struct MeshVertex {
  float x, y, z;
  std::uint32_t rgba;
};
static_assert(sizeof(MeshVertex) == 16);

// One particle in the GL vertex buffer: centre, sprite size (world units), packed RGBA8 colour.
struct ParticleVertex {
  float x, y, z, size;
  std::uint32_t rgba;
};
static_assert(sizeof(ParticleVertex) == 20);

// Row 2 of the view matrix: view-space z of point p is x*p.x + y*p.y + z*p.z + w.
struct DepthPlane {
  float x, y, z, w;
};

DEPTHSORT_HD float point_key(const DepthPlane& plane, float px, float py, float pz) {
  return plane.x * px + plane.y * py + plane.z * pz + plane.w;
}

// The centroid of triangle t (indices[3t..3t+2]); w unused. A static mesh's centroids are
// computed once (launch_triangle_centroids), so that the frame's depth pass reads one aligned
// record a triangle; a key from the stored centroid is bit for bit the key from the vertices.
DEPTHSORT_HD float4 triangle_centroid(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t t) {
  const MeshVertex& a = vertices[indices[3 * t + 0]];
  const MeshVertex& b = vertices[indices[3 * t + 1]];
  const MeshVertex& c = vertices[indices[3 * t + 2]];
  constexpr float third = 1.0f / 3.0f;
  return float4{(a.x + b.x + c.x) * third, (a.y + b.y + c.y) * third, (a.z + b.z + c.z) * third, 0.0f};
}

// Key of triangle t: view-space z of its centroid.
DEPTHSORT_HD float triangle_key(const DepthPlane& plane, const MeshVertex* vertices, const std::uint32_t* indices,
                                std::size_t t) {
  const float4 c = triangle_centroid(vertices, indices, t);
  return point_key(plane, c.x, c.y, c.z);
}

// The single back-to-front order of a frame sorts primitive ids of both kinds
// together: id < triangles is triangle `id`, any other id is particle `id - triangles`. Both
// kinds' keys are view-space z of a centre, so the ids compare in one key order.
DEPTHSORT_HD float primitive_key(const DepthPlane& plane, const MeshVertex* vertices, const std::uint32_t* indices,
                                 std::size_t triangles, const ParticleVertex* particles, std::uint32_t id) {
  if (id < triangles) return triangle_key(plane, vertices, indices, id);
  const ParticleVertex& p = particles[id - triangles];
  return point_key(plane, p.x, p.y, p.z);
}

// The frame's primitives as the GPU's depth passes read them: ids below `triangles` are
// triangles (their centroids), the others particles. The plain depth pass and depth-bucket's
// fused one compute every key through record_key, so their keys agree bit for bit.
struct FrameRecords {
  const float4* centroids = nullptr;
  std::size_t triangles = 0;
  const ParticleVertex* particles = nullptr;
  std::size_t particles_count = 0;
  DEPTHSORT_HD std::size_t size() const noexcept { return triangles + particles_count; }
};

DEPTHSORT_HD float record_key(const DepthPlane& plane, const float4* centroids, std::size_t triangles,
                              const ParticleVertex* particles, std::size_t id) {
  if (id < triangles) {
    const float4 c = centroids[id];
    return point_key(plane, c.x, c.y, c.z);
  }
  const ParticleVertex& p = particles[id - triangles];
  return point_key(plane, p.x, p.y, p.z);
}

// GPU launches (kernels/frame/depth.cu), all stream-ordered, none allocating.
// keys[t] = triangle_key(t), values[t] = t.
void launch_triangle_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                           DepthPlane plane, float* keys, std::uint32_t* values, cudaStream_t stream);
// keys[i] = point_key(particle i) and, where values is not null, values[i] = i.
void launch_point_depth(const ParticleVertex* particles, std::size_t n, DepthPlane plane, float* keys,
                        std::uint32_t* values, cudaStream_t stream);
// The depths of every primitive of a frame in id order, n = triangles + particle_count:
// keys[i] = primitive_key(i) and, where values is not null, values[i] = i.
void launch_primitive_depth(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                            const ParticleVertex* particles, std::size_t particle_count, DepthPlane plane, float* keys,
                            std::uint32_t* values, cudaStream_t stream);
// centroids[t] = triangle_centroid(t), for t < triangles.
void launch_triangle_centroids(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                               float4* centroids, cudaStream_t stream);
// keys[i] = record_key(i) for i < records.size() and, where values is not null, values[i] = i.
void launch_record_depth(const FrameRecords& records, DepthPlane plane, float* keys, std::uint32_t* values,
                         cudaStream_t stream);
// Frame-coherent depths: keys[i] = key_of_id[ids[i]] and values[i] = ids[i], where
// key_of_id holds this frame's depths in id order (launch_primitive_depth). Reading
// the scene in id order and only the keys in last frame's order is ~13x cheaper than reading the
// scene itself in that order (H200, 5M triangles + 10M particles: 0.115 ms vs 1.53 for the depth
// step). An id out of range (a broken previous order) gets the farthest key; the check reports it.
void launch_gather_keys(const float* key_of_id, const std::uint32_t* ids, std::size_t n, float* keys,
                        std::uint32_t* values, cudaStream_t stream);
}  // namespace depthsort
