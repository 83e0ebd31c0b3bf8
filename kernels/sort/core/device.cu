// Device and page-locked host memory, and the check that this build's kernels run on the present GPU.
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort {
namespace {

__global__ void probe_kernel(int* out) {
  if (out) *out = 1;
}

}  // namespace

void* device_allocate(std::size_t bytes, const std::string& owner) {
  void* pointer = nullptr;
  if (cudaMalloc(&pointer, bytes) != cudaSuccess) throw_out_of_device_memory(owner, bytes);
  return pointer;
}

void device_free(void* pointer) noexcept {
  if (pointer) cudaFree(pointer);
}

void* pinned_allocate(std::size_t bytes) {
  void* pointer = nullptr;
  DEPTHSORT_CUDA_CHECK(cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault));
  std::memset(pointer, 0, bytes);
  return pointer;
}

void pinned_free(void* pointer) noexcept {
  if (pointer) cudaFreeHost(pointer);
}

void* pinned_device_address(void* pointer) {
  void* device = nullptr;
  DEPTHSORT_CUDA_CHECK(cudaHostGetDevicePointer(&device, pointer, 0));
  return device;
}

bool cuda_device_usable(std::string* why_not) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why_not)
      *why_not = std::string("no CUDA device (") +
                 (status == cudaSuccess ? "none found" : cudaGetErrorString(status)) + ")";
    cudaGetLastError();
    return false;
  }
  // A device can be present yet have no kernel image in this build (another architecture).
  cudaFuncAttributes attributes{};
  const cudaError_t image = cudaFuncGetAttributes(&attributes, probe_kernel);
  if (image != cudaSuccess) {
    if (why_not)
      *why_not = std::string("this build's kernels do not run on this GPU (") +
                 cudaGetErrorString(image) + "): rebuild with the `native` preset";
    cudaGetLastError();
    return false;
  }
  return true;
}

bool always_available(std::string*) { return true; }

}  // namespace depthsort
