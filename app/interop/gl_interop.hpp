// CUDA-GL interop, the one place the demo calls CUDA's GL functions: whether the GL context sits on
// a CUDA device, and with RAII a GL buffer registered with CUDA and one mapping of every registered
// buffer of a frame in a single cudaGraphicsMapResources call (a map is costly once GL has drawn,
// so a frame maps once, not once per buffer). That cost is most likely the GPU moving from GL's
// context to CUDA's, not the call: sharing the memory without maps (GL external memory, branch
// experiment/interop-external-memory) kept it and drew far slower, so this is the only path;
// docs/interop.md has the record and the figures.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>

namespace depthsort::app {

// Whether the current GL context runs on a CUDA device, which interop needs (cudaGLGetDevices);
// if it does, that device is made CUDA's current one. If not, `why_not` says so.
bool gl_context_on_cuda_device(std::string& why_not);

class RegisteredBuffer {
 public:
  RegisteredBuffer() = default;
  // flags: cudaGraphicsRegisterFlagsNone / ReadOnly / WriteDiscard. `label` names it in errors.
  RegisteredBuffer(unsigned int gl_buffer, unsigned int flags, const char* label);
  ~RegisteredBuffer();
  RegisteredBuffer(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer& operator=(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;

  cudaGraphicsResource_t resource() const noexcept { return resource_; }
  const char* label() const noexcept { return label_; }

 private:
  cudaGraphicsResource_t resource_ = nullptr;
  const char* label_ = "";
};

// Maps up to kMax registered buffers in one call; unmap() (or the destructor) unmaps them in one call.
class InteropMapping {
 public:
  static constexpr int kMax = 8;
  InteropMapping(RegisteredBuffer* const* buffers, int count, cudaStream_t stream);
  ~InteropMapping();
  InteropMapping(const InteropMapping&) = delete;
  InteropMapping& operator=(const InteropMapping&) = delete;

  // Device pointer of the i-th buffer given to the constructor (and its size in bytes).
  void* pointer(int i, std::size_t* bytes = nullptr) const;
  void unmap();

 private:
  std::array<cudaGraphicsResource_t, kMax> resources_{};
  std::array<const char*, kMax> labels_{};
  int count_ = 0;
  cudaStream_t stream_ = nullptr;
  bool mapped_ = false;
};

}  // namespace depthsort::app
