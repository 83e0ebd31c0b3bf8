// Device and page-locked host memory, and the check that this build's kernels run on the present GPU.
#include <cuda_runtime.h>

#include <cstring>
#include <sstream>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/core/device_arch.hpp"

namespace depthsort {
namespace {

__global__ void probe_kernel(int* out) {
  if (out) *out = 1;
}

// nvcc's list of the virtual architectures this file (and every other of the build: one
// CMAKE_CUDA_ARCHITECTURES) is compiled for, e.g. "750,800", in the host pass too.
#define DEPTHSORT_TEXT(...) #__VA_ARGS__
#define DEPTHSORT_EXPANDED_TEXT(...) DEPTHSORT_TEXT(__VA_ARGS__)
constexpr const char* kArchList = DEPTHSORT_EXPANDED_TEXT(__CUDA_ARCH_LIST__);

}  // namespace

std::string build_architectures() {
  std::ostringstream out;
  std::istringstream list(kArchList);
  std::string arch;
  for (const char* separator = ""; std::getline(list, arch, ','); separator = ", ")
    out << separator << "sm_" << (arch.size() > 1 ? arch.substr(0, arch.size() - 1) : arch);
  return out.str();
}

std::string build_for_this_gpu() {
  std::string gpu, number = "NN";
  int device = 0, major = 0, minor = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
      cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
    number = std::to_string(major) + std::to_string(minor);
    gpu = std::string("the GPU (") + properties.name + ") is sm_" + number + "; ";
  }
  cudaGetLastError();
  return gpu + "this build carries " + build_architectures() +
         ": build for this GPU with scripts/run.sh (it builds for the GPU it finds), or cmake -S . -B build "
         "-DCMAKE_CUDA_ARCHITECTURES=" +
         number + " && cmake --build build";
}

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
      *why_not =
          std::string("no CUDA device (") + (status == cudaSuccess ? "none found" : cudaGetErrorString(status)) + ")";
    cudaGetLastError();
    return false;
  }
  // A device can be present yet have no kernel image in this build (an older GPU than the
  // build's architectures, or SASS only for another).
  cudaFuncAttributes attributes{};
  const cudaError_t image = cudaFuncGetAttributes(&attributes, probe_kernel);
  if (image != cudaSuccess) {
    if (why_not)
      *why_not = std::string("this build's kernels do not run on this GPU (") + cudaGetErrorString(image) +
                 "): " + build_for_this_gpu();
    cudaGetLastError();
    return false;
  }
  return true;
}

bool always_available(std::string*) { return true; }

}  // namespace depthsort
