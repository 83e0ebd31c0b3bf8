// OpenGL access for the demo: GLAD's generated GL 4.5 core loader, checked calls and RAII handles.
// Every GL call goes through DEPTHSORT_GL_CHECK, which names the call, the file and the line.
#pragma once

#include <glad/gl.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace depthsort::app {

class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* gl_error_name(GLenum code) noexcept;
// Drains glGetError; throws GlError("<call> failed at <file>:<line>: GL_INVALID_...") if set.
void check_gl(const char* call, const char* file, int line);

}  // namespace depthsort::app

#define DEPTHSORT_GL_CHECK(call)                           \
  do {                                                     \
    call;                                                  \
    ::depthsort::app::check_gl(#call, __FILE__, __LINE__); \
  } while (0)

namespace depthsort::app {

// A GL object name with its deleter; move-only.
template <class Deleter>
class GlHandle {
 public:
  GlHandle() = default;
  explicit GlHandle(GLuint id) : id_(id) {}
  GlHandle(GlHandle&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlHandle& operator=(GlHandle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlHandle(const GlHandle&) = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  ~GlHandle() { reset(); }
  GLuint get() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_ != 0; }
  void reset() noexcept {
    if (id_) Deleter{}(id_);
    id_ = 0;
  }

 private:
  GLuint id_ = 0;
};

// Deleters never throw (destructors): a GL error there is left for the next checked call.
struct BufferDeleter {
  void operator()(GLuint id) const noexcept { glDeleteBuffers(1, &id); }
};
struct VertexArrayDeleter {
  void operator()(GLuint id) const noexcept { glDeleteVertexArrays(1, &id); }
};
struct ProgramDeleter {
  void operator()(GLuint id) const noexcept { glDeleteProgram(id); }
};
struct ShaderDeleter {
  void operator()(GLuint id) const noexcept { glDeleteShader(id); }
};
struct FramebufferDeleter {
  void operator()(GLuint id) const noexcept { glDeleteFramebuffers(1, &id); }
};
struct RenderbufferDeleter {
  void operator()(GLuint id) const noexcept { glDeleteRenderbuffers(1, &id); }
};
struct QueryDeleter {
  void operator()(GLuint id) const noexcept { glDeleteQueries(1, &id); }
};
struct TextureDeleter {
  void operator()(GLuint id) const noexcept { glDeleteTextures(1, &id); }
};

using GlBuffer = GlHandle<BufferDeleter>;
using GlVertexArray = GlHandle<VertexArrayDeleter>;
using GlProgram = GlHandle<ProgramDeleter>;
using GlShader = GlHandle<ShaderDeleter>;
using GlFramebuffer = GlHandle<FramebufferDeleter>;
using GlRenderbuffer = GlHandle<RenderbufferDeleter>;
using GlQuery = GlHandle<QueryDeleter>;
using GlTexture = GlHandle<TextureDeleter>;

// A fence (GLsync, a pointer rather than a name); move-only, deleted with its owner.
class GlFence {
 public:
  GlFence() = default;
  GlFence(GlFence&& o) noexcept : sync_(std::exchange(o.sync_, nullptr)) {}
  GlFence& operator=(GlFence&& o) noexcept {
    if (this != &o) {
      reset();
      sync_ = std::exchange(o.sync_, nullptr);
    }
    return *this;
  }
  GlFence(const GlFence&) = delete;
  GlFence& operator=(const GlFence&) = delete;
  ~GlFence() { reset(); }
  // A new fence after the commands issued so far (the old one deleted).
  void place();
  // Whether the commands before the fence are done; `wait` blocks until they are.
  bool done(bool wait);
  explicit operator bool() const noexcept { return sync_ != nullptr; }
  void reset() noexcept {
    if (sync_) glDeleteSync(sync_);
    sync_ = nullptr;
  }

 private:
  GLsync sync_ = nullptr;
};

// A buffer of `bytes` (glNamedBufferData: mutable storage, which CUDA-GL interop registers on
// every driver); `usage` is GL_STATIC_DRAW or GL_DYNAMIC_DRAW. GL_OUT_OF_MEMORY names the buffer.
GlBuffer make_buffer(GLsizeiptr bytes, const void* data, GLenum usage, const char* label);
GlVertexArray make_vertex_array();
GlQuery make_query(GLenum target);
// A 2D texture of one level, `format` (such as GL_RGBA8) at width x height, nearest filtering.
GlTexture make_texture(GLenum format, int width, int height, const char* label);
// Compiles and links the embedded shaders `vertex_name` and `fragment_name` (shaders/); a compile
// or link failure throws GlError with the shader's name and the driver's log.
GlProgram make_program(const char* vertex_name, const char* fragment_name);
// The same with a fragment shader made of several embedded files in order (the first holds the
// #version line): shared functions such as shade.glsl's, then the main of one pass.
GlProgram make_program(const char* vertex_name, std::initializer_list<const char*> fragment_parts);
// The same for one compute shader.
GlProgram make_compute_program(const char* compute_name);

// GL debug group (KHR_debug) around a draw pass, so captures read like the panel.
class GlDebugGroup {
 public:
  explicit GlDebugGroup(const char* name);
  ~GlDebugGroup();
  GlDebugGroup(const GlDebugGroup&) = delete;
  GlDebugGroup& operator=(const GlDebugGroup&) = delete;
};

// What the current context is: "renderer (GL version)".
std::string gl_description();

}  // namespace depthsort::app
