#include "interop/gl_interop.hpp"

#include <cuda_gl_interop.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "depthsort/sort/errors.hpp"

namespace depthsort::app {

bool gl_context_on_cuda_device(std::string& why_not) {
  unsigned int count = 0;
  int devices[4] = {};
  const cudaError_t status = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
  if (status != cudaSuccess || count == 0) {
    why_not = std::string("the OpenGL context is not on a CUDA device (cudaGLGetDevices: ") +
              (status == cudaSuccess ? "none" : cudaGetErrorString(status)) + ")";
    cudaGetLastError();
    return false;
  }
  DEPTHSORT_CUDA_CHECK(cudaSetDevice(devices[0]));
  return true;
}

RegisteredBuffer::RegisteredBuffer(unsigned int gl_buffer, unsigned int flags, const char* label) : label_(label) {
  const cudaError_t status = cudaGraphicsGLRegisterBuffer(&resource_, gl_buffer, flags);
  if (status != cudaSuccess)
    throw_cuda_error(status, (std::string("cudaGraphicsGLRegisterBuffer(") + label + ")").c_str(), __FILE__, __LINE__);
}

RegisteredBuffer::~RegisteredBuffer() {
  if (resource_) cudaGraphicsUnregisterResource(resource_);
}

RegisteredBuffer::RegisteredBuffer(RegisteredBuffer&& other) noexcept
    : resource_(std::exchange(other.resource_, nullptr)), label_(other.label_) {}

RegisteredBuffer& RegisteredBuffer::operator=(RegisteredBuffer&& other) noexcept {
  if (this != &other) {
    if (resource_) cudaGraphicsUnregisterResource(resource_);
    resource_ = std::exchange(other.resource_, nullptr);
    label_ = other.label_;
  }
  return *this;
}

InteropMapping::InteropMapping(RegisteredBuffer* const* buffers, int count, cudaStream_t stream)
    : count_(count), stream_(stream) {
  if (count < 0 || count > kMax) throw std::logic_error("InteropMapping: too many buffers");
  for (int i = 0; i < count; ++i) {
    resources_[static_cast<std::size_t>(i)] = buffers[i]->resource();
    labels_[static_cast<std::size_t>(i)] = buffers[i]->label();
  }
  if (count_ == 0) return;
  DEPTHSORT_CUDA_CHECK(cudaGraphicsMapResources(count_, resources_.data(), stream_));
  mapped_ = true;
}

InteropMapping::~InteropMapping() {
  if (mapped_) cudaGraphicsUnmapResources(count_, resources_.data(), stream_);
}

void* InteropMapping::pointer(int i, std::size_t* bytes) const {
  void* p = nullptr;
  std::size_t size = 0;
  const cudaError_t status = cudaGraphicsResourceGetMappedPointer(&p, &size, resources_[static_cast<std::size_t>(i)]);
  if (status != cudaSuccess)
    throw_cuda_error(
        status,
        (std::string("cudaGraphicsResourceGetMappedPointer(") + labels_[static_cast<std::size_t>(i)] + ")").c_str(),
        __FILE__, __LINE__);
  if (bytes) *bytes = size;
  return p;
}

void InteropMapping::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  DEPTHSORT_CUDA_CHECK(cudaGraphicsUnmapResources(count_, resources_.data(), stream_));
}

}  // namespace depthsort::app
