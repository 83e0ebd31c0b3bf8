// The device half of the benchmark's per-frame check for its frame sequences: with the frame
// layer's launch_check_sorted (order and key of every pair) it makes the check complete.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace depthsort {

// Adds to *bad_count the ids 0..n-1 that values[0..n) does not hold exactly once (a lost or
// duplicated pair); marks (n words) is workspace, cleared here. Stream-ordered, no allocation.
void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks,
                              unsigned int* bad_count, cudaStream_t stream);

}  // namespace depthsort
