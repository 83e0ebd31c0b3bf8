// The gathers of the separate passes: a sorted order of ids into the element buffers the two
// passes draw (a triangle's three indices, a particle's one). The single order needs none: the
// sort writes its ids where the renderer reads them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort {

// Writes the three indices of triangle order[i] to elements[3i..3i+2]. Offsets in size_t: 3 * t
// in 32 bits would wrap above 1.43G triangles.
DEPTHSORT_HD void gather_triangle(const std::uint32_t* indices, const std::uint32_t* order, std::size_t i,
                                  std::uint32_t* elements) {
  const std::size_t t = order[i];
  elements[3 * i + 0] = indices[3 * t + 0];
  elements[3 * i + 1] = indices[3 * t + 1];
  elements[3 * i + 2] = indices[3 * t + 2];
}

// elements[3i..3i+2] = triangle order[i]'s indices.
void launch_gather_triangles(const std::uint32_t* indices, const std::uint32_t* order, std::size_t n,
                             std::uint32_t* elements, cudaStream_t stream);
// elements[i] = order[i] - first_id (one index per point sprite; first_id: the id of particle 0).
void launch_gather_points(const std::uint32_t* order, std::size_t n, std::uint32_t first_id, std::uint32_t* elements,
                          cudaStream_t stream);
// order[i] = i for i < n: the submission order, where sorting is off.
void launch_submission_order(std::uint32_t* order, std::size_t n, cudaStream_t stream);

}  // namespace depthsort
