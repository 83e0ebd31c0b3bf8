// The shared memory a block may have on the present GPU, and the dynamic shared-memory ceiling of
// a kernel, raised and never lowered.
//
// GPUs differ in what one block may take (the opt-in maximum: 64 KB on sm_75, 99 KB on sm_86 and
// sm_89, 163 KB on sm_80, 227 KB on sm_90): kernels whose shared memory grows with an option or
// a size ask shared_memory_per_block, or dynamic_smem_limit, how much there is here, and size
// themselves (or refuse, saying so) before they launch.
//
// cudaFuncAttributeMaxDynamicSharedMemorySize is one value per kernel and device, shared by every
// sorter instance that launches that kernel. Setting it to what one instance needs lowers it under
// what another, already reserved, instance launches with (seen on the H200: satish-merge's faithful
// t = 256 reserved after the default t = 1024 made every default launch fail with "invalid
// argument" in the demo's --cycle-sorters). Every sorter asks through allow_dynamic_smem instead.
#pragma once

#include <cstddef>

namespace depthsort::primitives {

// Shared memory (static plus dynamic) every kernel may take per block before its ceiling is raised.
inline constexpr std::size_t kDefaultSharedMemoryPerBlock = 48 * 1024;

// The environment variable that lowers shared_memory_per_block (a number of bytes), so that a
// GPU with more shared memory runs the configuration of one with less (scripts/gpu-suite.sh sets
// it for builds of older architectures: docs/gpus.md).
inline constexpr const char* kSharedMemoryLimitVariable = "DEPTHSORT_SHARED_MEMORY_PER_BLOCK";

// Shared memory, static and dynamic together, one block may have on the current device: its
// opt-in maximum (cudaDevAttrMaxSharedMemoryPerBlockOptin), or kSharedMemoryLimitVariable's value
// where that is set and smaller (never below kDefaultSharedMemoryPerBlock).
std::size_t shared_memory_per_block();

// The most dynamic shared memory `kernel` may be launched with on the current device:
// shared_memory_per_block less the kernel's static shared memory.
std::size_t dynamic_smem_limit(const void* kernel);

template <class Kernel>
std::size_t dynamic_smem_limit(Kernel* kernel) {
  return dynamic_smem_limit(reinterpret_cast<const void*>(kernel));
}

// Makes sure `kernel` may be launched with `bytes` of dynamic shared memory on the current device.
// Throws CapacityError naming `what`, the bytes and what the device gives where that is more than
// dynamic_smem_limit, and CudaError where the runtime refuses.
void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* what);

template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes, const char* what) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes, what);
}

}  // namespace depthsort::primitives
