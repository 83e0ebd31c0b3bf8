// depthsort-bench --sequence: the per-frame depth pass of a coherent pipeline (issue 13), on the
// GPU so that a frame costs the benchmark no host work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/depth.hpp"
#include "depthsort/workload.hpp"

namespace depthsort::bench {

// keys[i] = view-space z of scene[order[i]] (fill_depths_in_order's arithmetic), values[i] =
// order[i] (unless values is null): this frame's depths in the last frame's sorted order. Every order[i] < points (an id
// out of range is clamped to the last point, so a broken sorter cannot make this read astray:
// the check then fails). Stream-ordered, no allocation.
void launch_depths_in_order(const ScenePoint* scene, std::size_t points, const std::uint32_t* order, std::size_t n,
                            DepthPlane plane, float* keys, std::uint32_t* values, cudaStream_t stream);

// Adds to *bad_count the ids 0..n-1 that values[0..n) does not hold exactly once (a lost or
// duplicated pair); marks (n words) is workspace, cleared here. With launch_check_sorted (order
// and key of every pair) this makes the per-frame check complete.
void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks,
                              unsigned int* bad_count, cudaStream_t stream);

}  // namespace depthsort::bench
