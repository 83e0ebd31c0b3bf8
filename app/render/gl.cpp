#include "render/gl.hpp"

#include <initializer_list>

#include <string_view>
#include <vector>

namespace depthsort::app {

std::string_view shader_source(std::string_view name);  // embedded_shaders.cpp (generated)

const char* gl_error_name(GLenum code) noexcept {
  switch (code) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY (the scene is too large for this GPU's GL memory)";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
    default:
      return "unknown GL error";
  }
}

void check_gl(const char* call, const char* file, int line) {
  GLenum code = glGetError();
  if (code == GL_NO_ERROR) return;
  std::string message =
      std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + gl_error_name(code);
  for (int guard = 0; guard < 8 && (code = glGetError()) != GL_NO_ERROR; ++guard)
    message += std::string(", then ") + gl_error_name(code);
  throw GlError(message);
}

GlBuffer make_buffer(GLsizeiptr bytes, const void* data, GLenum usage, const char* label) {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateBuffers(1, &id));
  GlBuffer buffer(id);
  glNamedBufferData(id, bytes > 0 ? bytes : 4, bytes > 0 ? data : nullptr, usage);
  if (const GLenum code = glGetError(); code != GL_NO_ERROR)
    throw GlError("glNamedBufferData(" + std::string(label) + ", " + std::to_string(bytes) + " bytes) failed at " +
                  __FILE__ + ":" + std::to_string(__LINE__) + ": " + gl_error_name(code));
  if (GLAD_GL_KHR_debug) DEPTHSORT_GL_CHECK(glObjectLabel(GL_BUFFER, id, -1, label));
  return buffer;
}

GlVertexArray make_vertex_array() {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateVertexArrays(1, &id));
  return GlVertexArray(id);
}

GlQuery make_query(GLenum target) {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateQueries(target, 1, &id));
  return GlQuery(id);
}

GlTexture make_texture(GLenum format, int width, int height, const char* label) {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateTextures(GL_TEXTURE_2D, 1, &id));
  GlTexture texture(id);
  glTextureStorage2D(id, 1, format, width, height);
  if (const GLenum code = glGetError(); code != GL_NO_ERROR)
    throw GlError("glTextureStorage2D(" + std::string(label) + ", " + std::to_string(width) + "x" +
                  std::to_string(height) + ") failed at " + __FILE__ + ":" + std::to_string(__LINE__) + ": " +
                  gl_error_name(code));
  DEPTHSORT_GL_CHECK(glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST));
  DEPTHSORT_GL_CHECK(glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
  if (GLAD_GL_KHR_debug) DEPTHSORT_GL_CHECK(glObjectLabel(GL_TEXTURE, id, -1, label));
  return texture;
}

void GlFence::place() {
  reset();
  sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  check_gl("glFenceSync", __FILE__, __LINE__);
  if (!sync_) throw GlError(std::string("glFenceSync returned no fence at ") + __FILE__);
}

bool GlFence::done(bool wait) {
  if (!sync_) return true;
  // A blocking wait flushes first, so that the fence reaches the GPU; a poll does not wait.
  const GLbitfield flags = wait ? GL_SYNC_FLUSH_COMMANDS_BIT : 0;
  const GLuint64 timeout = wait ? GLuint64{10'000'000'000} : 0;  // 10 s: a lost fence is an error, not a hang
  GLenum status = 0;
  DEPTHSORT_GL_CHECK(status = glClientWaitSync(sync_, flags, timeout));
  if (status == GL_WAIT_FAILED) throw GlError("glClientWaitSync failed");
  if (wait && status == GL_TIMEOUT_EXPIRED) throw GlError("a GL fence was not reached within 10 s");
  return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED;
}

namespace {
GlShader compile(GLenum stage, std::initializer_list<const char*> names) {
  const char* name = *names.begin();
  GlShader shader(glCreateShader(stage));
  if (!shader) throw GlError(std::string("glCreateShader failed for ") + name);
  const char* sources[8];
  GLint lengths[8];
  if (names.size() > 8) throw GlError(std::string("too many parts for shaders/") + name);
  GLsizei count = 0;
  for (const char* part : names) {
    const std::string_view text = shader_source(part);
    sources[count] = text.data();
    lengths[count++] = static_cast<GLint>(text.size());
  }
  DEPTHSORT_GL_CHECK(glShaderSource(shader.get(), count, sources, lengths));
  DEPTHSORT_GL_CHECK(glCompileShader(shader.get()));
  GLint ok = 0, log_length = 0;
  DEPTHSORT_GL_CHECK(glGetShaderiv(shader.get(), GL_COMPILE_STATUS, &ok));
  if (!ok) {
    DEPTHSORT_GL_CHECK(glGetShaderiv(shader.get(), GL_INFO_LOG_LENGTH, &log_length));
    std::vector<char> log(static_cast<std::size_t>(log_length > 1 ? log_length : 1));
    DEPTHSORT_GL_CHECK(glGetShaderInfoLog(shader.get(), log_length, nullptr, log.data()));
    std::string parts;
    for (const char* part : names) parts += (parts.empty() ? "shaders/" : " + shaders/") + std::string(part);
    throw GlError("compiling " + parts + " failed:\n" + log.data());
  }
  return shader;
}
}  // namespace

namespace {
// Links `shaders` (compiled from the embedded files `what` names) into a program.
GlProgram link(std::initializer_list<GLuint> shaders, const std::string& what) {
  GlProgram program(glCreateProgram());
  if (!program) throw GlError("glCreateProgram failed");
  for (const GLuint shader : shaders) DEPTHSORT_GL_CHECK(glAttachShader(program.get(), shader));
  DEPTHSORT_GL_CHECK(glLinkProgram(program.get()));
  GLint ok = 0, log_length = 0;
  DEPTHSORT_GL_CHECK(glGetProgramiv(program.get(), GL_LINK_STATUS, &ok));
  if (!ok) {
    DEPTHSORT_GL_CHECK(glGetProgramiv(program.get(), GL_INFO_LOG_LENGTH, &log_length));
    std::vector<char> log(static_cast<std::size_t>(log_length > 1 ? log_length : 1));
    DEPTHSORT_GL_CHECK(glGetProgramInfoLog(program.get(), log_length, nullptr, log.data()));
    throw GlError("linking " + what + " failed:\n" + log.data());
  }
  for (const GLuint shader : shaders) DEPTHSORT_GL_CHECK(glDetachShader(program.get(), shader));
  return program;
}
}  // namespace

GlProgram make_program(const char* vertex_name, const char* fragment_name) {
  return make_program(vertex_name, {fragment_name});
}

GlProgram make_program(const char* vertex_name, std::initializer_list<const char*> fragment_parts) {
  const GlShader vs = compile(GL_VERTEX_SHADER, {vertex_name});
  const GlShader fs = compile(GL_FRAGMENT_SHADER, fragment_parts);
  std::string what = std::string("shaders/") + vertex_name;
  for (const char* part : fragment_parts) what += std::string(" + shaders/") + part;
  return link({vs.get(), fs.get()}, what);
}

GlProgram make_compute_program(const char* compute_name) {
  const GlShader cs = compile(GL_COMPUTE_SHADER, {compute_name});
  return link({cs.get()}, std::string("shaders/") + compute_name);
}

GlDebugGroup::GlDebugGroup(const char* name) {
  if (GLAD_GL_KHR_debug) DEPTHSORT_GL_CHECK(glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 0, -1, name));
}
GlDebugGroup::~GlDebugGroup() {
  if (GLAD_GL_KHR_debug) glPopDebugGroup();
}

std::string gl_description() {
  const auto str = [](GLenum e) {
    const auto* s = reinterpret_cast<const char*>(glGetString(e));
    return std::string(s ? s : "?");
  };
  return str(GL_RENDERER) + " (OpenGL " + str(GL_VERSION) + ")";
}

}  // namespace depthsort::app
