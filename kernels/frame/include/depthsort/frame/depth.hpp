// Depth keys and the gather into the element buffer: the demo's per-frame kernels around the sort
// (one frame as data: keys, then the order, then the gathered elements). The per-element functions are __host__ __device__ so that the
// CPU path and the CPU tests run exactly the arithmetic the GPU runs.
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

// Key of triangle t (indices[3t..3t+2]): view-space z of its centroid.
DEPTHSORT_HD float triangle_key(const DepthPlane& plane, const MeshVertex* vertices,
                                const std::uint32_t* indices, std::size_t t) {
  const MeshVertex& a = vertices[indices[3 * t + 0]];
  const MeshVertex& b = vertices[indices[3 * t + 1]];
  const MeshVertex& c = vertices[indices[3 * t + 2]];
  constexpr float third = 1.0f / 3.0f;
  return point_key(plane, (a.x + b.x + c.x) * third, (a.y + b.y + c.y) * third, (a.z + b.z + c.z) * third);
}

// Writes the three indices of triangle order[i] to elements[3i..3i+2]. Offsets in size_t: 3 * t
// in 32 bits would wrap above 1.43G triangles.
DEPTHSORT_HD void gather_triangle(const std::uint32_t* indices, const std::uint32_t* order, std::size_t i,
                                  std::uint32_t* elements) {
  const std::size_t t = order[i];
  elements[3 * i + 0] = indices[3 * t + 0];
  elements[3 * i + 1] = indices[3 * t + 1];
  elements[3 * i + 2] = indices[3 * t + 2];
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
                            const ParticleVertex* particles, std::size_t particle_count, DepthPlane plane,
                            float* keys, std::uint32_t* values, cudaStream_t stream);
// elements[3i..3i+2] = triangle order[i]'s indices.
void launch_gather_triangles(const std::uint32_t* indices, const std::uint32_t* order, std::size_t n,
                             std::uint32_t* elements, cudaStream_t stream);
// elements[i] = order[i] - first_id (one index per point sprite; first_id: the id of particle 0).
void launch_gather_points(const std::uint32_t* order, std::size_t n, std::uint32_t first_id, std::uint32_t* elements,
                          cudaStream_t stream);
// Frame-coherent depths: keys[i] = key_of_id[ids[i]] and values[i] = ids[i], where
// key_of_id holds this frame's depths in id order (launch_primitive_depth). Reading
// the scene in id order and only the keys in last frame's order is ~13x cheaper than reading the
// scene itself in that order (H200, 5M triangles + 10M particles: 0.115 ms vs 1.53 for the depth
// step). An id out of range (a broken previous order) gets the farthest key; the check reports it.
void launch_gather_keys(const float* key_of_id, const std::uint32_t* ids, std::size_t n, float* keys,
                        std::uint32_t* values, cudaStream_t stream);
// The correctness light: adds to *bad_count the number of positions i < n where keys_out[i+1]
// comes before keys_out[i] in the key order, or where values_out[i] is not below id_count or
// does not carry its own key (key_of_id[values_out[i]] != keys_out[i], bitwise). With the input
// in id order, key_of_id is keys_in. *bad_count must be zeroed first.
void launch_check_sorted(const float* key_of_id, std::size_t id_count, const float* keys_out,
                         const std::uint32_t* values_out, std::size_t n, unsigned int* bad_count, cudaStream_t stream);

}  // namespace depthsort
