#include "sort/primitives/dynamic_smem.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "depthsort/errors.hpp"

namespace depthsort::primitives {

void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* what) {
  constexpr std::size_t kAlwaysAllowed = 48 * 1024;  // every kernel's ceiling until raised
  if (bytes <= kAlwaysAllowed) return;  // no query: gpu-mms asks in its frame loop
  cudaFuncAttributes attributes{};
  cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaSuccess && static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) >= bytes) return;
  if (status == cudaSuccess)
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess) {
    const std::string call = "allow " + std::to_string(bytes) + " bytes of dynamic shared memory to " + what;
    throw_cuda_error(static_cast<int>(status), call.c_str(), __FILE__, __LINE__);
  }
}

}  // namespace depthsort::primitives
