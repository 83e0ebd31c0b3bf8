// depthsort-bench: one plain device-to-device copy of a row's pairs, untimed, in the NVTX range
// "reference copy": what a profiler (scripts/profile.sh) measures the memory's speed by, in the
// same process, on the same clocks, beside the sorters' steps.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace depthsort::bench {

// keys_out[i] = keys_in[i], values_out[i] = values_in[i] for i < n: 8 bytes a pair read, 8 written,
// by one kernel (16-byte loads and stores where the pointers allow). Stream-ordered.
void launch_reference_copy(const float* keys_in, const std::uint32_t* values_in, float* keys_out,
                           std::uint32_t* values_out, std::size_t n, cudaStream_t stream);

}  // namespace depthsort::bench
