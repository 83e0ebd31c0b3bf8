#include "depthsort/sort/errors.hpp"

#include <cuda_runtime_api.h>

#include <sstream>
#include <string>

#include "sort/core/device_arch.hpp"

namespace depthsort {
namespace {

std::string hint_for(cudaError_t code) {
  switch (code) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable CUDA device or driver: use the CPU path (--sorter cpu)";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return "this build has no kernels for this GPU: " + build_for_this_gpu();
    case cudaErrorMemoryAllocation:
      return "not enough device memory: use fewer primitives";
    default:
      return {};
  }
}

}  // namespace

void throw_cuda_error(int code, const char* call, const char* file, int line) {
  const auto status = static_cast<cudaError_t>(code);
  std::ostringstream message;
  message << call << " failed at " << file << ':' << line << ": " << cudaGetErrorName(status) << " ("
          << cudaGetErrorString(status) << ')';
  if (const std::string hint = hint_for(status); !hint.empty()) message << "; " << hint;
  throw CudaError(code, message.str());
}

void throw_out_of_device_memory(const std::string& owner, std::size_t bytes_asked) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaGetLastError();  // clear the allocation failure so the query below can succeed
  const bool known = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  std::ostringstream message;
  message << owner << ": cannot reserve " << bytes_asked << " bytes of device memory";
  if (known) message << " (" << free_bytes << " bytes free of " << total_bytes << ')';
  message << "; use a smaller size";
  throw CapacityError(message.str());
}

}  // namespace depthsort
