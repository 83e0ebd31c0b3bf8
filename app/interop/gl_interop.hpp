// CUDA-GL interop with RAII, on one of two paths chosen once per process (issue 12, part 3):
//
//   external memory: the buffer's storage is CUDA memory (cuMemCreate, exported as a POSIX file
//     descriptor) imported into GL (GL_EXT_memory_object_fd) and bound to the GL buffer's name
//     with glNamedBufferStorageMemEXT, once. A frame maps nothing; it synchronises cheaply:
//     before CUDA writes, the host waits on a GL fence (GL has long finished the last draw in
//     every loop this program runs); after CUDA's work, the host waits for the stream before GL
//     draws. GL_EXT_semaphore would keep both waits on the GPU, but neither CUDA nor GL can
//     create an exportable semaphore (only Vulkan can), so that is not done here.
//   map/unmap: cudaGraphicsGLRegisterBuffer once, cudaGraphicsMapResources +
//     cudaGraphicsUnmapResources every frame (~0.3 ms a frame on the lent GPU with drawing on,
//     whatever the size, which is why the other path exists). The fallback wherever the GL
//     extensions are missing (Mesa's llvmpipe), the GL device is not the CUDA device, or the
//     startup round trip through an external buffer does not give back what was written.
//
// RegisteredBuffer and InteropMapping keep one interface on both paths, so the frame pipeline
// does not know which one runs. docs/interop.md has the measurements and what moved where.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "interop/interop_request.hpp"

namespace depthsort::app {

struct InteropPath {
  bool external = false;
  std::string description;  // "external memory (GL_EXT_memory_object_fd)" or "map/unmap (cudaGraphicsMapResources)"
  std::string why;          // why this path runs here
  std::string text() const { return description + ": " + why; }
};

// Chooses the path for the current GL context and CUDA device: checks the GL extensions, that
// the GL context's device UUID is the CUDA device's, the driver entry points, and a round trip
// (GL -> CUDA -> GL) through a small external buffer. Needs the GL context current and the CUDA
// device set. Buffers registered afterwards use the path; those registered before keep theirs.
// Throws std::runtime_error (with the reason) when External is requested and cannot run.
//
// The choice is kept per process, not passed around: it is a property of the driver and the GL
// context the program runs on, and RegisteredBuffer's constructor (the frame pipeline's only
// contact with interop) takes no context object.
const InteropPath& configure_interop(InteropRequest request);
// The path in use; the first call without configure_interop() configures Auto.
const InteropPath& interop_path();

class ExternalBuffer;  // the external path's shared allocation (gl_interop.cpp)

class RegisteredBuffer {
 public:
  RegisteredBuffer();  // registered nothing (defined where ExternalBuffer is complete)
  // flags: cudaGraphicsRegisterFlagsNone / ReadOnly / WriteDiscard (what CUDA does with the
  // buffer; on the external path WriteDiscard spares copying the buffer's contents into the
  // shared storage). `label` names it in errors.
  // On the external path the GL buffer must have mutable storage (glNamedBufferData); its name,
  // size and contents stay, its storage becomes the shared one. A buffer that cannot be shared
  // (immutable storage, size 0, a failed import) is registered on the map path instead.
  RegisteredBuffer(unsigned int gl_buffer, unsigned int flags, const char* label);
  ~RegisteredBuffer();
  RegisteredBuffer(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer& operator=(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;

  // Map path only (null on the external path).
  cudaGraphicsResource_t resource() const noexcept { return resource_; }
  const char* label() const noexcept { return label_; }
  unsigned int flags() const noexcept { return flags_; }
  bool external() const noexcept { return external_ != nullptr; }
  // External path only: the CUDA pointer of the shared storage and the GL buffer's size.
  void* external_pointer() const noexcept;
  std::size_t external_bytes() const noexcept;

 private:
  void release() noexcept;
  cudaGraphicsResource_t resource_ = nullptr;
  std::unique_ptr<ExternalBuffer> external_;
  const char* label_ = "";
  unsigned int flags_ = 0;
};

// Makes up to kMax registered buffers usable by CUDA on `stream` for one frame: the map-path ones
// in a single cudaGraphicsMapResources call; if any is external, the host waits for GL's earlier
// commands. unmap() (or the destructor) ends it: one cudaGraphicsUnmapResources call, and if any
// is external the host waits for the stream, so GL commands issued afterwards see CUDA's writes
// (and do not write under CUDA's reads). The same ordering map/unmap gives, whatever the flags.
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
  std::array<const RegisteredBuffer*, kMax> buffers_{};
  std::array<cudaGraphicsResource_t, kMax> mapped_resources_{};  // the map-path subset
  int count_ = 0, mapped_count_ = 0;
  bool any_external_ = false;  // then the host orders GL and CUDA: fence wait, stream wait
  cudaStream_t stream_ = nullptr;
  bool active_ = false;
};

}  // namespace depthsort::app
