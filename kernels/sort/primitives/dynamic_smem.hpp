// The dynamic shared-memory ceiling of a kernel, raised and never lowered.
//
// cudaFuncAttributeMaxDynamicSharedMemorySize is one value per kernel and device, shared by every
// sorter instance that launches that kernel. Setting it to what one instance needs lowers it under
// what another, already reserved, instance launches with (seen on the H200: satish-merge's faithful
// t = 256 reserved after the default t = 1024 made every default launch fail with "invalid
// argument" in the demo's --cycle-sorters). Every sorter asks through this instead.
#pragma once

#include <cstddef>

namespace depthsort::primitives {

// Shared memory (static plus dynamic) every kernel may take per block before its ceiling is raised.
inline constexpr std::size_t kDefaultSharedMemoryPerBlock = 48 * 1024;

// Makes sure `kernel` may be launched with `bytes` of dynamic shared memory on the current device;
// throws CudaError (with `what` in the message) if the device cannot give that much.
void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* what);

template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes, const char* what) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes, what);
}

}  // namespace depthsort::primitives
