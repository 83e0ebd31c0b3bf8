#include "render/transparency.hpp"

#include <algorithm>

#include "render/renderer.hpp"

namespace depthsort::app {

namespace {

GLint location(const GlProgram& program, const char* name) {
  GLint l = -1;
  DEPTHSORT_GL_CHECK(l = glGetUniformLocation(program.get(), name));
  return l;
}

// A framebuffer of colour textures (and a depth renderbuffer, where given), checked complete.
GlFramebuffer make_framebuffer(std::initializer_list<GLuint> colours, GLuint depth, const char* what) {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateFramebuffers(1, &id));
  GlFramebuffer framebuffer(id);
  GLenum draw_buffers[4];
  GLsizei count = 0;
  for (const GLuint colour : colours) {
    DEPTHSORT_GL_CHECK(glNamedFramebufferTexture(id, GL_COLOR_ATTACHMENT0 + static_cast<GLenum>(count), colour, 0));
    draw_buffers[count] = GL_COLOR_ATTACHMENT0 + static_cast<GLenum>(count);
    ++count;
  }
  DEPTHSORT_GL_CHECK(glNamedFramebufferDrawBuffers(id, count, draw_buffers));
  if (depth) DEPTHSORT_GL_CHECK(glNamedFramebufferRenderbuffer(id, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth));
  GLenum status = 0;
  DEPTHSORT_GL_CHECK(status = glCheckNamedFramebufferStatus(id, GL_FRAMEBUFFER));
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw GlError(std::string(what) + " framebuffer is incomplete (status " + std::to_string(status) + ")");
  return framebuffer;
}

}  // namespace

TransparencyPasses::TransparencyPasses() {
  fullscreen_vao_ = make_vertex_array();
  live_ = make_buffer(kStatWords * sizeof(GLuint), nullptr, GL_DYNAMIC_COPY, "transparency statistics");
  for (Slot& slot : slots_)
    slot.buffer =
        make_buffer(kStatWords * sizeof(GLuint), nullptr, GL_STREAM_READ, "transparency statistics read-back");
}

void TransparencyPasses::resize(int width, int height) {
  if (width == width_ && height == height_) return;
  width_ = width;
  height_ = height;
  // Remade at the new size when next used; the A-buffer sizes itself in prepare().
  accum_.reset();
  revealage_.reset();
  weighted_fbo_.reset();
  mode_colour_.reset();
  reference_colour_.reset();
  mode_depth_.reset();
  mode_fbo_.reset();
  reference_fbo_.reset();
}

void TransparencyPasses::collect(bool wait) {
  for (int k = 0; k < kSlots; ++k) {
    Slot& slot = slots_[static_cast<std::size_t>((next_slot_ + k) % kSlots)];  // oldest first
    if (!slot.pending) continue;
    if (!slot.fence.done(wait)) return;  // the later ones are not done either
    GLuint words[kStatWords] = {};
    DEPTHSORT_GL_CHECK(glGetNamedBufferSubData(slot.buffer.get(), 0, sizeof words, words));
    slot.pending = false;
    slot.fence.reset();
    TransparencyStats& s = stats_;
    s.reference = slot.reference;
    s.difference = slot.difference;
    s.fragments = words[kStatFragments];
    s.over_budget_pixels = words[kStatOverBudgetPixels];
    s.differing_pixels = words[kStatDifferingPixels];
    s.largest_difference = words[kStatLargestDifference];
    s.not_compared = words[kStatNotCompared];
    s.deepest_list = words[kStatDeepestList];
    s.budget = slot.budget;
    s.pixels = slot.pixels;
    if (slot.reference) {
      ++s.reference_frames;
      if (s.over_budget_pixels > 0) ++s.frames_over_budget;
      s.most_over_budget_pixels = std::max(s.most_over_budget_pixels, s.over_budget_pixels);
    }
  }
}

void TransparencyPasses::begin_frame() {
  const GLuint zero = 0;
  DEPTHSORT_GL_CHECK(glClearNamedBufferData(live_.get(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 8, live_.get()));
}

void TransparencyPasses::end_frame(bool reference, bool difference) {
  Slot& slot = slots_[static_cast<std::size_t>(next_slot_)];
  if (slot.pending) {  // the ring is full: the GPU is kSlots frames behind; take the oldest now
    slot.fence.done(true);
    collect(false);
  }
  DEPTHSORT_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  DEPTHSORT_GL_CHECK(glCopyNamedBufferSubData(live_.get(), slot.buffer.get(), 0, 0, kStatWords * sizeof(GLuint)));
  slot.fence.place();
  slot.pending = true;
  slot.reference = reference;
  slot.difference = difference;
  slot.budget = reference && abuffer_ ? abuffer_->budget() : 0;
  slot.pixels = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  next_slot_ = (next_slot_ + 1) % kSlots;
}

void TransparencyPasses::bind_fullscreen(GLuint target) const {
  DEPTHSORT_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, target));
  DEPTHSORT_GL_CHECK(glViewport(0, 0, width_, height_));
  DEPTHSORT_GL_CHECK(glBindVertexArray(fullscreen_vao_.get()));
}

void TransparencyPasses::weighted(GLuint target, const SceneBuffers& buffers, GLuint pull_vao, const glm::mat4& view,
                                  const glm::mat4& projection, const FramePlan& plan, GlTimerRing& timer) {
  if (!composite_) {
    accumulate_ = PulledProgram({"shade.glsl", "wboit.frag"});
    composite_ = make_program("fullscreen.vert", "wboit_composite.frag");
  }
  if (!weighted_fbo_) {
    accum_ = make_texture(GL_RGBA16F, width_, height_, "wboit accumulation");
    revealage_ = make_texture(GL_R16F, width_, height_, "wboit revealage");
    weighted_fbo_ = make_framebuffer({accum_.get(), revealage_.get()}, 0, "weighted blended OIT");
  }
  timer.begin_step("wboit accumulate");
  {
    GlDebugGroup group("wboit accumulate");
    DEPTHSORT_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, weighted_fbo_.get()));
    DEPTHSORT_GL_CHECK(glViewport(0, 0, width_, height_));
    const GLfloat zero[4] = {0, 0, 0, 0}, one[4] = {1, 1, 1, 1};
    DEPTHSORT_GL_CHECK(glClearNamedFramebufferfv(weighted_fbo_.get(), GL_COLOR, 0, zero));
    DEPTHSORT_GL_CHECK(glClearNamedFramebufferfv(weighted_fbo_.get(), GL_COLOR, 1, one));
    DEPTHSORT_GL_CHECK(glDisable(GL_DEPTH_TEST));  // every fragment counts, in any order
    DEPTHSORT_GL_CHECK(glEnable(GL_BLEND));
    DEPTHSORT_GL_CHECK(glBlendFunci(0, GL_ONE, GL_ONE));
    DEPTHSORT_GL_CHECK(glBlendFunci(1, GL_ZERO, GL_ONE_MINUS_SRC_COLOR));
    accumulate_.use(buffers, pull_vao, view, projection, plan);
    accumulate_.draw(buffers, true, plan.triangle_sprites ? 3 : 6);
  }
  timer.end_step();
  timer.begin_step("wboit composite");
  {
    GlDebugGroup group("wboit composite");
    bind_fullscreen(target);
    DEPTHSORT_GL_CHECK(glBlendFunc(GL_ONE_MINUS_SRC_ALPHA, GL_SRC_ALPHA));
    DEPTHSORT_GL_CHECK(glUseProgram(composite_.get()));
    DEPTHSORT_GL_CHECK(glBindTextureUnit(0, accum_.get()));
    DEPTHSORT_GL_CHECK(glBindTextureUnit(1, revealage_.get()));
    DEPTHSORT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
    DEPTHSORT_GL_CHECK(glDisable(GL_BLEND));
  }
  timer.end_step();
}

void TransparencyPasses::reference(GLuint target, const SceneBuffers& buffers, GLuint pull_vao, const glm::mat4& view,
                                   const glm::mat4& projection, const FramePlan& plan, glm::vec3 background,
                                   GlTimerRing& timer) {
  if (!abuffer_) abuffer_.emplace();
  // Grown (unless fixed) when the last frame read back asked for more than it held.
  const std::size_t wanted = stats_.reference && stats_.fragments > stats_.budget ? stats_.fragments : 0;
  abuffer_->prepare(width_, height_, plan.fragment_budget, wanted);
  timer.begin_step("a-buffer build");
  {
    GlDebugGroup group("a-buffer build");
    DEPTHSORT_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, target));
    DEPTHSORT_GL_CHECK(glViewport(0, 0, width_, height_));
    abuffer_->build(buffers, pull_vao, view, projection, plan);
  }
  timer.end_step();
  timer.begin_step("a-buffer resolve");
  {
    GlDebugGroup group("a-buffer resolve");
    bind_fullscreen(target);
    abuffer_->resolve(fullscreen_vao_.get(), background);
  }
  timer.end_step();
}

GLuint TransparencyPasses::mode_target() {
  if (!mode_fbo_) {
    mode_colour_ = make_texture(GL_RGBA8, width_, height_, "difference view: the mode's picture");
    GLuint id = 0;
    DEPTHSORT_GL_CHECK(glCreateRenderbuffers(1, &id));
    mode_depth_ = GlRenderbuffer(id);
    DEPTHSORT_GL_CHECK(glNamedRenderbufferStorage(id, GL_DEPTH_COMPONENT24, width_, height_));
    mode_fbo_ = make_framebuffer({mode_colour_.get()}, mode_depth_.get(), "difference view (mode)");
  }
  return mode_fbo_.get();
}

GLuint TransparencyPasses::reference_target() {
  if (!reference_fbo_) {
    reference_colour_ = make_texture(GL_RGBA8, width_, height_, "difference view: the reference's picture");
    reference_fbo_ = make_framebuffer({reference_colour_.get()}, 0, "difference view (reference)");
  }
  return reference_fbo_.get();
}

void TransparencyPasses::difference(GLuint target, bool mode_is_reference, GlTimerRing& timer) {
  if (!difference_program_) {
    difference_program_ = make_program("fullscreen.vert", "difference.frag");
    difference_width_ = location(difference_program_, "u_width");
    difference_tolerance_ = location(difference_program_, "u_tolerance");
  }
  timer.begin_step("difference");
  {
    GlDebugGroup group("difference");
    bind_fullscreen(target);
    DEPTHSORT_GL_CHECK(glDisable(GL_DEPTH_TEST));
    DEPTHSORT_GL_CHECK(glDisable(GL_BLEND));
    DEPTHSORT_GL_CHECK(glUseProgram(difference_program_.get()));
    DEPTHSORT_GL_CHECK(glUniform1ui(difference_width_, static_cast<GLuint>(width_)));
    DEPTHSORT_GL_CHECK(glUniform1i(difference_tolerance_, kDifferenceTolerance));
    DEPTHSORT_GL_CHECK(glBindTextureUnit(0, mode_is_reference ? reference_colour_.get() : mode_colour_.get()));
    DEPTHSORT_GL_CHECK(glBindTextureUnit(1, reference_colour_.get()));
    abuffer_->bind_lost();
    DEPTHSORT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
  }
  timer.end_step();
}

TransparencyMemory TransparencyPasses::memory(std::size_t fixed_budget) const noexcept {
  const std::size_t pixels = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  TransparencyMemory m;
  m.wboit = pixels * (8 + 2);  // RGBA16F + R16F
  m.reference = abuffer_ ? abuffer_->bytes()
                         : ABuffer::bytes_for(pixels, fixed_budget > 0 ? fixed_budget : pixels * kStartLayers);
  m.difference = pixels * (4 + 4 + 4);  // two RGBA8 pictures and the mode's depth
  return m;
}

}  // namespace depthsort::app
