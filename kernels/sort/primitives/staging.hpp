// How a block stages runs of words from global memory into shared memory ahead of their use, by
// the architecture its code was compiled for (staged_pairs.cuh holds the device side), and what the
// host needs to know of it: how many buffers, and so how much shared memory, a kernel's path takes.
// Not from a paper. The path is chosen at compile time, in the device pass; the host asks the
// kernel which architecture its code was compiled for (a build carrying only older PTX runs the
// older path on a newer GPU), never the device's own compute capability.
#pragma once

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::primitives {

enum class StagingPath : std::uint8_t {
  PlainLoads,  // sm_75: no asynchronous copy; the block loads a run when it needs it, one buffer
  AsyncCopy,   // sm_80 to sm_89: cp.async, 16 bytes a thread at a time, while the last run is used
  BulkCopy,    // sm_90 and newer: the bulk copy engine (cp.async.bulk), one thread, an mbarrier
};

// The path of code compiled for `arch`, in __CUDA_ARCH__'s units (750, 800, 860, 900, 1200).
DEPTHSORT_HD constexpr StagingPath staging_path_for(int arch) {
  return arch >= 900 ? StagingPath::BulkCopy : arch >= 800 ? StagingPath::AsyncCopy : StagingPath::PlainLoads;
}

// Buffers of a double-buffered stage on that path: a run that cannot be copied while the last is
// in use gains nothing from a second buffer, whose shared memory would cost occupancy.
DEPTHSORT_HD constexpr int staging_buffers(StagingPath path) { return path == StagingPath::PlainLoads ? 1 : 2; }

// Shared memory of a stage of `arrays` arrays of `capacity` words each, on that path.
DEPTHSORT_HD constexpr std::size_t staging_bytes(StagingPath path, int arrays, std::uint32_t capacity) {
  return std::size_t{static_cast<std::uint32_t>(staging_buffers(path) * arrays)} * capacity * sizeof(std::uint32_t);
}

const char* staging_path_name(StagingPath path);

// The architecture, in __CUDA_ARCH__'s units, whose code of `kernel` runs on the current device:
// that of the PTX it was compiled from (cudaFuncAttributes::ptxVersion), which is what its
// compile-time guards saw. Throws CudaError where the kernel has no image for the device.
int compiled_arch(const void* kernel);

// The same for the sort library's code on the current device (every kernel of one build is
// compiled for the same architectures, so one kernel answers for all).
int library_arch();

template <class Kernel>
int compiled_arch(Kernel* kernel) {
  return compiled_arch(reinterpret_cast<const void*>(kernel));
}

}  // namespace depthsort::primitives
