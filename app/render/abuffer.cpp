#include "render/abuffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include <glm/gtc/type_ptr.hpp>

#include "depthsort/host/memory_available.hpp"
#include "render/renderer.hpp"

namespace depthsort::app {

std::size_t abuffer_budget(std::size_t pixels, std::uint64_t free_bytes, std::uint64_t block_limit,
                           std::size_t wanted) {
  std::uint64_t want = static_cast<std::uint64_t>(pixels) * kStartLayers;
  if (wanted > 0) want = std::max<std::uint64_t>(want, static_cast<std::uint64_t>(wanted) + wanted / 4);
  const std::uint64_t by_memory = free_bytes / 4 / kNodeBytes;
  const std::uint64_t by_block = block_limit / kNodeBytes;
  const std::uint64_t cap = std::min({by_memory, by_block, std::uint64_t{0xFFFFFFFEu}});
  return static_cast<std::size_t>(std::max<std::uint64_t>(std::min(want, cap), 1));
}

std::uint64_t gl_free_memory() {
  const auto* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
  check_gl("glGetString(GL_VENDOR)", __FILE__, __LINE__);
  if (vendor && std::strstr(vendor, "NVIDIA"))
    if (const auto free_bytes = device_memory_free()) return *free_bytes;
  return host_memory_available().value_or(std::uint64_t{1} << 30);  // unknown: assume 1 GiB
}

ABuffer::ABuffer()
    : build_program_({"shade.glsl", "abuffer.frag"}),
      resolve_program_(make_program("fullscreen.vert", "abuffer_resolve.frag")) {
  build_budget_ = build_program_.uniform("u_budget");
  build_width_ = build_program_.uniform("u_width");
  const auto location = [&](const char* name) {
    GLint l = -1;
    DEPTHSORT_GL_CHECK(l = glGetUniformLocation(resolve_program_.get(), name));
    return l;
  };
  resolve_width_ = location("u_width");
  resolve_height_ = location("u_height");
  resolve_budget_ = location("u_budget");
  resolve_background_ = location("u_background");
  GLint64 limit = 0;
  DEPTHSORT_GL_CHECK(glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &limit));
  block_limit_ = limit > 0 ? static_cast<std::uint64_t>(limit) : std::uint64_t{1} << 27;  // GL's minimum
}

void ABuffer::prepare(int width, int height, std::size_t fixed_budget, std::size_t wanted) {
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (width != width_ || height != height_) {
    width_ = width;
    height_ = height;
    pixels_ = pixels;
    heads_ = make_buffer(static_cast<GLsizeiptr>(pixels * 4), nullptr, GL_DYNAMIC_COPY, "a-buffer heads");
    lost_ = make_buffer(static_cast<GLsizeiptr>(pixels * 4), nullptr, GL_DYNAMIC_COPY, "a-buffer lost counts");
    if (!fixed_) budget_ = 0;  // sized again for the new window
  }
  std::size_t budget = budget_;
  if (fixed_budget > 0)
    budget = fixed_budget;
  else if (fixed_ || budget_ == 0 || wanted > budget_) {
    // The memory the current pool holds counts as free: it is given back first.
    const std::uint64_t free_bytes = gl_free_memory() + budget_ * kNodeBytes;
    budget = abuffer_budget(pixels, free_bytes, block_limit_, wanted);
  }
  fixed_ = fixed_budget > 0;
  if (budget == budget_ && nodes_) return;
  nodes_.reset();
  budget_ = budget;
  nodes_ = make_buffer(static_cast<GLsizeiptr>(budget_ * kNodeBytes), nullptr, GL_DYNAMIC_COPY, "a-buffer nodes");
}

void ABuffer::build(const SceneBuffers& buffers, GLuint vao, const glm::mat4& view, const glm::mat4& projection,
                    const FramePlan& plan) {
  const GLuint end = 0xFFFFFFFFu, zero = 0;
  DEPTHSORT_GL_CHECK(glClearNamedBufferData(heads_.get(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &end));
  DEPTHSORT_GL_CHECK(glClearNamedBufferData(lost_.get(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, heads_.get()));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, nodes_.get()));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 7, lost_.get()));
  build_program_.use(buffers, vao, view, projection, plan);
  DEPTHSORT_GL_CHECK(glUniform1ui(build_budget_, static_cast<GLuint>(budget_)));
  DEPTHSORT_GL_CHECK(glUniform1ui(build_width_, static_cast<GLuint>(width_)));
  // Every fragment reaches the lists: no depth test, no colour written.
  DEPTHSORT_GL_CHECK(glDisable(GL_DEPTH_TEST));
  DEPTHSORT_GL_CHECK(glDisable(GL_BLEND));
  DEPTHSORT_GL_CHECK(glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE));
  build_program_.draw(buffers, true, plan.triangle_sprites ? 3 : 6);
  DEPTHSORT_GL_CHECK(glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE));
  // The resolve reads what the build wrote, through the same storage buffers.
  DEPTHSORT_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
}

void ABuffer::resolve(GLuint fullscreen_vao, glm::vec3 background) {
  // The clear colour as the RGBA8 target stores it, where the sorted draw starts blending.
  const glm::vec3 stored = glm::round(glm::clamp(background, 0.0f, 1.0f) * 255.0f) / 255.0f;
  DEPTHSORT_GL_CHECK(glUseProgram(resolve_program_.get()));
  DEPTHSORT_GL_CHECK(glUniform1ui(resolve_width_, static_cast<GLuint>(width_)));
  DEPTHSORT_GL_CHECK(glUniform1ui(resolve_height_, static_cast<GLuint>(height_)));
  DEPTHSORT_GL_CHECK(glUniform1ui(resolve_budget_, static_cast<GLuint>(budget_)));
  DEPTHSORT_GL_CHECK(glUniform3fv(resolve_background_, 1, glm::value_ptr(stored)));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, heads_.get()));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, nodes_.get()));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 7, lost_.get()));
  DEPTHSORT_GL_CHECK(glDisable(GL_DEPTH_TEST));
  DEPTHSORT_GL_CHECK(glDisable(GL_BLEND));
  DEPTHSORT_GL_CHECK(glBindVertexArray(fullscreen_vao));
  DEPTHSORT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
}

void ABuffer::bind_lost() const { DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 7, lost_.get())); }

}  // namespace depthsort::app
