// Memory a process can still take, for checks made before anything large is built: the
// demo's scene estimate and the benchmark's sizes are refused up front with the
// numbers, instead of failing (or swapping) minutes later.
#pragma once

#include <cstdint>
#include <optional>

namespace depthsort {

// MemAvailable of /proc/meminfo, bounded by an address-space limit (ulimit -v) less what this
// process has mapped; nullopt where neither is known.
std::optional<std::uint64_t> host_memory_available();

// Free memory of the current CUDA device (cudaMemGetInfo); nullopt where there is none (the
// error is cleared).
std::optional<std::uint64_t> device_memory_free();

}  // namespace depthsort
