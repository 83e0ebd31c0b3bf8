// The fuzz targets are host code only, built without the CUDA runtime: the CUDA calls of
// host/memory_available.cpp (the device's free memory) answer that there is no device.
#include <cuda_runtime_api.h>

extern "C" {
cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  *free_bytes = 0;
  *total_bytes = 0;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGetLastError() { return cudaSuccess; }
}
