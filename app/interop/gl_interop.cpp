// Both interop paths of gl_interop.hpp. The external one follows the extension specifications
// EXT_external_objects and EXT_external_objects_fd (Khronos, GL_EXT_memory_object{,_fd}) and
// the CUDA Driver API's virtual memory management (cuMemCreate with a shareable POSIX file
// descriptor, cuMemExportToShareableHandle). The driver API is reached through
// cudaGetDriverEntryPointByVersion, so the program keeps no link-time dependency on libcuda
// (it starts, and takes the CPU path, on machines without the NVIDIA driver).
#include "interop/gl_interop.hpp"

#include "render/gl.hpp"  // glad before cuda_gl_interop.h (which includes GL/gl.h)

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_gl_interop.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "depthsort/errors.hpp"

namespace depthsort::app {

// The external path cannot run (here, or for one buffer): the reason, for the fallback's "why".
class InteropUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace {

const char* const kExternalDescription = "external memory (GL_EXT_memory_object_fd)";
const char* const kMapDescription = "map/unmap (cudaGraphicsMapResources)";

// The driver API functions the external path needs, found once.
struct DriverApi {
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 export_handle = nullptr;
  PFN_cuGetErrorString_v6000 error_string = nullptr;
  std::string missing;  // the entry points not found, empty when all were
};

template <class Fn>
void find_entry(const char* name, Fn& fn, std::string& missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  // 12000: the ABI of CUDA 12.0, which every driver that runs this program's kernels has.
  const cudaError_t status = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
    cudaGetLastError();
    missing += (missing.empty() ? "" : ", ") + std::string(name);
    return;
  }
  fn = reinterpret_cast<Fn>(p);
}

const DriverApi& driver_api() {
  static const DriverApi api = [] {
    DriverApi a;
    find_entry("cuMemGetAllocationGranularity", a.granularity, a.missing);
    find_entry("cuMemCreate", a.create, a.missing);
    find_entry("cuMemRelease", a.release, a.missing);
    find_entry("cuMemAddressReserve", a.reserve, a.missing);
    find_entry("cuMemAddressFree", a.address_free, a.missing);
    find_entry("cuMemMap", a.map, a.missing);
    find_entry("cuMemUnmap", a.unmap, a.missing);
    find_entry("cuMemSetAccess", a.set_access, a.missing);
    find_entry("cuMemExportToShareableHandle", a.export_handle, a.missing);
    find_entry("cuGetErrorString", a.error_string, a.missing);
    return a;
  }();
  return api;
}

void cu_check(const DriverApi& api, CUresult result, const char* call, const char* label) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  if (api.error_string) api.error_string(result, &text);
  throw InteropUnavailable(std::string(call) + " failed for '" + label + "': " + (text ? text : "?") + " (" +
                           std::to_string(static_cast<int>(result)) + ")");
}

// Drains glGetError; the first error's name, or "" when there was none.
std::string gl_error_text() {
  std::string first;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
    if (first.empty()) first = gl_error_name(e);
  return first;
}

std::string gl_string(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? s : "?";
}

// A file descriptor owned until handed over (a successful glImportMemoryFdEXT takes it).
class UniqueFd {
 public:
  UniqueFd() = default;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int* out() noexcept { return &fd_; }
  int get() const noexcept { return fd_; }
  void release() noexcept { fd_ = -1; }

 private:
  int fd_ = -1;
};

struct InteropState {
  bool configured = false;
  InteropPath path;
};

// Per process on purpose: see configure_interop() in the header.
InteropState& interop_state() {
  static InteropState state;
  return state;
}

}  // namespace

// ------------------------------------------------------------------ the shared allocation

// CUDA memory of `bytes` (rounded up to the allocation granularity) that becomes the storage of
// the GL buffer `gl_buffer`. Throws InteropUnavailable, leaving the GL buffer as it was, for any
// failure up to the storage switch; after it, only GlError (the buffer is then unusable).
class ExternalBuffer {
 public:
  ExternalBuffer(GLuint gl_buffer, std::size_t bytes, bool keep_contents, const char* label)
      : api_(driver_api()), bytes_(bytes) {
    if (!api_.missing.empty())
      throw InteropUnavailable("the CUDA driver lacks " + api_.missing);
    try {
      share(gl_buffer, keep_contents, label);
    } catch (...) {
      free_all();
      throw;
    }
  }
  ~ExternalBuffer() { free_all(); }
  ExternalBuffer(const ExternalBuffer&) = delete;
  ExternalBuffer& operator=(const ExternalBuffer&) = delete;

  void* pointer() const noexcept { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_)); }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void share(GLuint gl_buffer, bool keep_contents, const char* label) {
    // The driver API calls below need the runtime's primary context current on this thread.
    DEPTHSORT_CUDA_CHECK(cudaFree(nullptr));
    int device = 0;
    DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    cu_check(api_, api_.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
             "cuMemGetAllocationGranularity", label);
    if (granularity == 0) granularity = std::size_t{2} << 20;
    allocation_bytes_ = (bytes_ + granularity - 1) / granularity * granularity;

    cu_check(api_, api_.create(&handle_, allocation_bytes_, &prop, 0), "cuMemCreate", label);
    have_handle_ = true;
    cu_check(api_, api_.reserve(&address_, allocation_bytes_, granularity, 0, 0), "cuMemAddressReserve", label);
    reserved_ = true;
    cu_check(api_, api_.map(address_, allocation_bytes_, 0, handle_, 0), "cuMemMap", label);
    mapped_ = true;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cu_check(api_, api_.set_access(address_, allocation_bytes_, &access, 1), "cuMemSetAccess", label);

    UniqueFd fd;
    cu_check(api_, api_.export_handle(fd.out(), handle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
             "cuMemExportToShareableHandle", label);

    gl_error_text();  // earlier errors are not ours
    glCreateMemoryObjectsEXT(1, &memory_object_);
    if (const std::string e = gl_error_text(); !e.empty() || memory_object_ == 0)
      throw InteropUnavailable("glCreateMemoryObjectsEXT failed for '" + std::string(label) + "': " + e);
    glImportMemoryFdEXT(memory_object_, static_cast<GLuint64>(allocation_bytes_), GL_HANDLE_TYPE_OPAQUE_FD_EXT,
                        fd.get());
    if (const std::string e = gl_error_text(); !e.empty())
      throw InteropUnavailable("glImportMemoryFdEXT refused the fd of cuMemExportToShareableHandle for '" +
                               std::string(label) + "': " + e);
    fd.release();  // the GL owns it now

    // The contents move through a GL copy: once the storage is switched the old one is gone.
    GlBuffer saved;
    if (keep_contents) {
      try {
        GLuint id = 0;
        DEPTHSORT_GL_CHECK(glCreateBuffers(1, &id));
        saved = GlBuffer(id);
        DEPTHSORT_GL_CHECK(glNamedBufferStorage(id, static_cast<GLsizeiptr>(bytes_), nullptr, 0));
        DEPTHSORT_GL_CHECK(glCopyNamedBufferSubData(gl_buffer, id, 0, 0, static_cast<GLsizeiptr>(bytes_)));
      } catch (const GlError& e) {  // e.g. no memory for the copy: the buffer is still untouched
        throw InteropUnavailable(std::string("saving the contents of '") + label + "' failed: " + e.what());
      }
    }
    glNamedBufferStorageMemEXT(gl_buffer, static_cast<GLsizeiptr>(bytes_), memory_object_, 0);
    if (const std::string e = gl_error_text(); !e.empty())
      throw InteropUnavailable("glNamedBufferStorageMemEXT failed for '" + std::string(label) + "': " + e);
    if (keep_contents)
      DEPTHSORT_GL_CHECK(glCopyNamedBufferSubData(saved.get(), gl_buffer, 0, 0, static_cast<GLsizeiptr>(bytes_)));
    // CUDA's first use comes after this returns, so it sees the copied contents.
    DEPTHSORT_GL_CHECK(glFinish());
  }

  // In reverse order of creation; never throws (destructor, and the failure path).
  void free_all() noexcept {
    if (memory_object_) glDeleteMemoryObjectsEXT(1, &memory_object_);
    memory_object_ = 0;
    if (mapped_) api_.unmap(address_, allocation_bytes_);
    mapped_ = false;
    if (reserved_) api_.address_free(address_, allocation_bytes_);
    reserved_ = false;
    address_ = 0;
    if (have_handle_) api_.release(handle_);
    have_handle_ = false;
  }

  const DriverApi& api_;
  std::size_t bytes_ = 0, allocation_bytes_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr address_ = 0;
  bool have_handle_ = false, reserved_ = false, mapped_ = false;
  GLuint memory_object_ = 0;
};

namespace {

// Shares `gl_buffer` through external memory, or says why it cannot.
std::unique_ptr<ExternalBuffer> share_buffer(GLuint gl_buffer, unsigned int flags, const char* label) {
  GLint64 size = 0;
  GLint immutable = GL_FALSE;
  DEPTHSORT_GL_CHECK(glGetNamedBufferParameteri64v(gl_buffer, GL_BUFFER_SIZE, &size));
  DEPTHSORT_GL_CHECK(glGetNamedBufferParameteriv(gl_buffer, GL_BUFFER_IMMUTABLE_STORAGE, &immutable));
  if (size <= 0) throw InteropUnavailable(std::string("'") + label + "' has no storage (size 0)");
  if (immutable)
    throw InteropUnavailable(std::string("'") + label +
                             "' has immutable storage (glNamedBufferStorage); sharing needs glNamedBufferData's");
  return std::make_unique<ExternalBuffer>(gl_buffer, static_cast<std::size_t>(size),
                                          flags != cudaGraphicsRegisterFlagsWriteDiscard, label);
}

// Every check of the external path on this GL context and CUDA device; throws
// InteropUnavailable with the first that fails.
void probe_external() {
  const std::string renderer = gl_string(GL_RENDERER);
  if (!GLAD_GL_EXT_memory_object || !GLAD_GL_EXT_memory_object_fd)
    throw InteropUnavailable("the GL driver (" + renderer + ") lacks " +
                             (!GLAD_GL_EXT_memory_object ? std::string("GL_EXT_memory_object") : std::string()) +
                             (!GLAD_GL_EXT_memory_object && !GLAD_GL_EXT_memory_object_fd ? " and " : "") +
                             (!GLAD_GL_EXT_memory_object_fd ? std::string("GL_EXT_memory_object_fd") : std::string()));
  if (!glCreateMemoryObjectsEXT || !glImportMemoryFdEXT || !glNamedBufferStorageMemEXT ||
      !glDeleteMemoryObjectsEXT || !glGetUnsignedBytei_vEXT)
    throw InteropUnavailable("the GL driver (" + renderer + ") lists GL_EXT_memory_object_fd without its functions");

  // The GL context must run on the CUDA device: the fd names memory of that device.
  int device = 0;
  cudaDeviceProp props{};
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  gl_error_text();
  GLint uuids = 0;
  glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &uuids);
  bool same_device = false;
  for (GLint i = 0; i < uuids && i < 16; ++i) {
    GLubyte uuid[GL_UUID_SIZE_EXT] = {};
    glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, static_cast<GLuint>(i), uuid);
    same_device |= std::memcmp(uuid, props.uuid.bytes, GL_UUID_SIZE_EXT) == 0;
  }
  if (const std::string e = gl_error_text(); !e.empty())
    throw InteropUnavailable("reading the GL device UUIDs failed: " + e);
  if (!same_device)
    throw InteropUnavailable("the GL context (" + renderer + ", " + std::to_string(uuids) +
                             " device UUIDs) does not run on CUDA device " + std::to_string(device));

  // A round trip: contents kept through the storage switch (GL -> CUDA), then CUDA's write read
  // back by GL (CUDA -> GL). Drivers have accepted the import and shown other memory.
  constexpr std::size_t kWords = 1024 + 3;
  std::vector<std::uint32_t> pattern(kWords), back(kWords);
  for (std::size_t i = 0; i < kWords; ++i) pattern[i] = 0x9e3779b9u * static_cast<std::uint32_t>(i + 1);
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateBuffers(1, &id));
  const GlBuffer buffer(id);
  DEPTHSORT_GL_CHECK(glNamedBufferData(id, static_cast<GLsizeiptr>(kWords * 4), pattern.data(), GL_DYNAMIC_DRAW));
  const auto shared = share_buffer(id, cudaGraphicsRegisterFlagsNone, "interop probe");
  const auto cuda_check = [](cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    cudaGetLastError();
    throw InteropUnavailable(std::string(what) + " on the external buffer failed: " + cudaGetErrorString(status));
  };
  cuda_check(cudaMemcpy(back.data(), shared->pointer(), kWords * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (read)");
  if (back != pattern) throw InteropUnavailable("CUDA did not read what GL wrote into the external buffer");
  for (std::uint32_t& w : pattern) w = ~w;
  cuda_check(cudaMemcpy(shared->pointer(), pattern.data(), kWords * 4, cudaMemcpyHostToDevice), "cudaMemcpy (write)");
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  DEPTHSORT_GL_CHECK(glGetNamedBufferSubData(id, 0, static_cast<GLsizeiptr>(kWords * 4), back.data()));
  if (back != pattern) throw InteropUnavailable("GL did not read what CUDA wrote into the external buffer");
}

// Blocks until the GL has run every command issued so far (the last draw that read what CUDA
// is about to write).
void wait_for_gl() {
  GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  check_gl("glFenceSync", __FILE__, __LINE__);
  constexpr GLuint64 kTimeoutNs = 10'000'000'000ull;
  const GLenum result = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, kTimeoutNs);
  glDeleteSync(fence);
  check_gl("glClientWaitSync", __FILE__, __LINE__);
  if (result == GL_TIMEOUT_EXPIRED)
    throw GlError("the GL did not finish its commands within 10 s (waiting before CUDA writes a shared buffer)");
  if (result == GL_WAIT_FAILED) throw GlError("glClientWaitSync failed (before CUDA writes a shared buffer)");
}

}  // namespace

// ------------------------------------------------------------------ choosing the path

const InteropPath& configure_interop(InteropRequest request) {
  InteropState& state = interop_state();
  const std::string asked = std::string("--interop ") + interop_request_name(request);
  if (request == InteropRequest::Map) {
    state.path = InteropPath{false, kMapDescription, asked};
  } else {
    try {
      probe_external();
      state.path = InteropPath{true, kExternalDescription,
                               asked + "; the GL context is on the CUDA device and a GL->CUDA->GL round trip "
                                       "through a shared buffer passed"};
    } catch (const InteropUnavailable& e) {
      if (request == InteropRequest::External)
        throw std::runtime_error("--interop external cannot run here: " + std::string(e.what()) +
                                 " (--interop auto falls back to map/unmap)");
      state.path = InteropPath{false, kMapDescription, asked + "; external memory unavailable: " + e.what()};
    }
  }
  state.configured = true;
  return state.path;
}

const InteropPath& interop_path() {
  InteropState& state = interop_state();
  if (!state.configured) configure_interop(InteropRequest::Auto);
  return state.path;
}

// ------------------------------------------------------------------ RegisteredBuffer

RegisteredBuffer::RegisteredBuffer(unsigned int gl_buffer, unsigned int flags, const char* label)
    : label_(label), flags_(flags) {
  if (interop_path().external) {
    try {
      external_ = share_buffer(gl_buffer, flags, label);
      return;
    } catch (const InteropUnavailable& e) {
      // This buffer alone takes the map path; the reported path says so.
      interop_state().path.why += std::string("; '") + label + "' on map/unmap: " + e.what();
    }
  }
  const cudaError_t status = cudaGraphicsGLRegisterBuffer(&resource_, gl_buffer, flags);
  if (status != cudaSuccess)
    throw_cuda_error(status, (std::string("cudaGraphicsGLRegisterBuffer(") + label + ")").c_str(), __FILE__,
                     __LINE__);
}

RegisteredBuffer::RegisteredBuffer() = default;
RegisteredBuffer::~RegisteredBuffer() { release(); }

void RegisteredBuffer::release() noexcept {
  if (resource_) cudaGraphicsUnregisterResource(resource_);
  resource_ = nullptr;
  external_.reset();
}

RegisteredBuffer::RegisteredBuffer(RegisteredBuffer&& other) noexcept
    : resource_(std::exchange(other.resource_, nullptr)), external_(std::move(other.external_)),
      label_(other.label_), flags_(other.flags_) {}

RegisteredBuffer& RegisteredBuffer::operator=(RegisteredBuffer&& other) noexcept {
  if (this != &other) {
    release();
    resource_ = std::exchange(other.resource_, nullptr);
    external_ = std::move(other.external_);
    label_ = other.label_;
    flags_ = other.flags_;
  }
  return *this;
}

void* RegisteredBuffer::external_pointer() const noexcept { return external_ ? external_->pointer() : nullptr; }
std::size_t RegisteredBuffer::external_bytes() const noexcept { return external_ ? external_->bytes() : 0; }

// ------------------------------------------------------------------ InteropMapping

InteropMapping::InteropMapping(RegisteredBuffer* const* buffers, int count, cudaStream_t stream)
    : count_(count), stream_(stream) {
  if (count < 0 || count > kMax) throw std::logic_error("InteropMapping: too many buffers");
  for (int i = 0; i < count; ++i) {
    const RegisteredBuffer* b = buffers[i];
    if (!b || (!b->external() && !b->resource()))
      throw std::logic_error(std::string("InteropMapping: buffer '") + (b ? b->label() : "?") + "' is not registered");
    buffers_[static_cast<std::size_t>(i)] = b;
    if (b->external()) any_external_ = true;
    else mapped_resources_[static_cast<std::size_t>(mapped_count_++)] = b->resource();
  }
  if (count_ == 0) return;
  if (any_external_) wait_for_gl();
  if (mapped_count_ > 0) DEPTHSORT_CUDA_CHECK(cudaGraphicsMapResources(mapped_count_, mapped_resources_.data(), stream_));
  active_ = true;
}

InteropMapping::~InteropMapping() {
  if (!active_) return;
  if (mapped_count_ > 0) cudaGraphicsUnmapResources(mapped_count_, mapped_resources_.data(), stream_);
  if (any_external_) cudaStreamSynchronize(stream_);
}

void* InteropMapping::pointer(int i, std::size_t* bytes) const {
  if (i < 0 || i >= count_) throw std::out_of_range("InteropMapping::pointer: index " + std::to_string(i) +
                                                    " of " + std::to_string(count_) + " buffers");
  const RegisteredBuffer& b = *buffers_[static_cast<std::size_t>(i)];
  if (b.external()) {
    if (bytes) *bytes = b.external_bytes();
    return b.external_pointer();
  }
  void* p = nullptr;
  std::size_t size = 0;
  const cudaError_t status = cudaGraphicsResourceGetMappedPointer(&p, &size, b.resource());
  if (status != cudaSuccess)
    throw_cuda_error(status, (std::string("cudaGraphicsResourceGetMappedPointer(") + b.label() + ")").c_str(),
                     __FILE__, __LINE__);
  if (bytes) *bytes = size;
  return p;
}

void InteropMapping::unmap() {
  if (!active_) return;
  active_ = false;
  if (mapped_count_ > 0)
    DEPTHSORT_CUDA_CHECK(cudaGraphicsUnmapResources(mapped_count_, mapped_resources_.data(), stream_));
  // GL commands issued after this see CUDA's writes: without an exportable semaphore the host
  // is the only place both APIs can order against.
  if (any_external_) DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace depthsort::app
