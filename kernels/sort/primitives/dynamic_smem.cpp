// The shared memory of the present GPU and the kernels' dynamic shared-memory ceilings
// (dynamic_smem.hpp).
#include "sort/primitives/dynamic_smem.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

#include "depthsort/sort/errors.hpp"

namespace depthsort::primitives {
namespace {

// kSharedMemoryLimitVariable's value, or 0 where it is unset; a value that is not a number of bytes
// is an error (a misspelt limit must not quietly test the larger configuration).
std::size_t limit_from_environment() {
  const char* text = std::getenv(kSharedMemoryLimitVariable);
  if (text == nullptr || *text == '\0') return 0;
  std::size_t bytes = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, bytes);
  if (error != std::errc{} || stop != end)
    throw CapacityError(std::string(kSharedMemoryLimitVariable) + "='" + text + "' is not a number of bytes");
  return std::max(bytes, kDefaultSharedMemoryPerBlock);
}

}  // namespace

std::size_t shared_memory_per_block() {
  int device = 0, optin = 0;
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t limit = limit_from_environment();
  const auto bytes = static_cast<std::size_t>(optin);
  return limit != 0 ? std::min(bytes, limit) : bytes;
}

std::size_t dynamic_smem_limit(const void* kernel) {
  cudaFuncAttributes attributes{};
  DEPTHSORT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const std::size_t total = shared_memory_per_block();
  return total > attributes.sharedSizeBytes ? total - attributes.sharedSizeBytes : 0;
}

void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* what) {
  if (bytes == 0) return;
  cudaFuncAttributes attributes{};
  cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaSuccess) {
    const std::size_t limit = dynamic_smem_limit(kernel);
    if (bytes > limit)
      throw CapacityError(std::string(what) + " needs " + std::to_string(bytes) +
                          " bytes of dynamic shared memory (and " + std::to_string(attributes.sharedSizeBytes) +
                          " static) per block; this GPU gives a block " + std::to_string(shared_memory_per_block()) +
                          " bytes in all");
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
