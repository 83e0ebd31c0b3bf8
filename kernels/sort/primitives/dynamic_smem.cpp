#include "sort/primitives/dynamic_smem.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "depthsort/sort/errors.hpp"

namespace depthsort::primitives {

void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* what) {
  if (bytes == 0) return;
  cudaFuncAttributes attributes{};
  cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaSuccess) {
    // Within the default, the kernel's static shared memory counted; otherwise the ceiling must be
    // at least `bytes`, and is raised to it, never lowered (another instance may launch with more).
    const auto ceiling = static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes);
    const bool within_default = bytes + attributes.sharedSizeBytes <= kDefaultSharedMemoryPerBlock;
    if (within_default || (ceiling >= bytes && ceiling > kDefaultSharedMemoryPerBlock)) return;
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(std::max(bytes, ceiling)));
  }
  if (status != cudaSuccess) {
    const std::string call = "allow " + std::to_string(bytes) + " bytes of dynamic shared memory to " + what;
    throw_cuda_error(static_cast<int>(status), call.c_str(), __FILE__, __LINE__);
  }
}

}  // namespace depthsort::primitives
