#include "render/renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "depthsort/frame/expand.hpp"
#include "platform/stop_signal.hpp"

namespace depthsort::app {

namespace {

// An element count for glDrawElements (a GLsizei). build_scene keeps scenes within kMaxTriangles
// and kMaxParticles, so this only guards against a scene built some other way.
GLsizei draw_count(std::size_t count, const char* what) {
  if (count > static_cast<std::size_t>(std::numeric_limits<GLsizei>::max()))
    throw GlError(std::string("cannot draw ") + std::to_string(count) + " " + what + " indices in one call (at most " +
                  std::to_string(std::numeric_limits<GLsizei>::max()) + ")");
  return static_cast<GLsizei>(count);
}

// Both kinds of vertex are a float position (xyz, or xyz + size) followed by an RGBA8 colour.
GlVertexArray make_position_colour_vao(GLuint vertices, GLsizei stride, GLint position_components, GLuint colour_offset,
                                       GLuint elements) {
  GlVertexArray vao = make_vertex_array();
  const GLuint v = vao.get();
  DEPTHSORT_GL_CHECK(glVertexArrayVertexBuffer(v, 0, vertices, 0, stride));
  DEPTHSORT_GL_CHECK(glEnableVertexArrayAttrib(v, 0));
  DEPTHSORT_GL_CHECK(glVertexArrayAttribFormat(v, 0, position_components, GL_FLOAT, GL_FALSE, 0));
  DEPTHSORT_GL_CHECK(glVertexArrayAttribBinding(v, 0, 0));
  DEPTHSORT_GL_CHECK(glEnableVertexArrayAttrib(v, 1));
  DEPTHSORT_GL_CHECK(glVertexArrayAttribFormat(v, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE, colour_offset));
  DEPTHSORT_GL_CHECK(glVertexArrayAttribBinding(v, 1, 0));
  DEPTHSORT_GL_CHECK(glVertexArrayElementBuffer(v, elements));
  return vao;
}

}  // namespace

// ---------------------------------------------------------------- GlTimerRing

// Timings (loop/timings.hpp) reserves StepTimer::kMaxSteps samples per timer and frame, this one too.
static_assert(GlTimerRing::kSteps <= StepTimer::kMaxSteps);

GlTimerRing::GlTimerRing(bool host_clock) : host_clock_(host_clock) {
  if (host_clock_) return;
  for (Frame& frame : frames_)
    for (GlQuery& query : frame.queries) query = make_query(GL_TIME_ELAPSED);
}

void GlTimerRing::begin_frame() {
  current_ = (current_ + 1) % kFrames;
  Frame& frame = frames_[static_cast<std::size_t>(current_)];
  frame.steps = 0;
  frame.pending = false;
}

void GlTimerRing::begin_step(const char* name) {
  if (current_ < 0) throw GlError(std::string("GlTimerRing: step '") + name + "' begun before begin_frame");
  Frame& frame = frames_[static_cast<std::size_t>(current_)];
  if (frame.steps == kSteps) throw GlError("GlTimerRing: too many steps in one frame");
  frame.names[static_cast<std::size_t>(frame.steps)] = name;
  if (host_clock_) {
    DEPTHSORT_GL_CHECK(glFinish());
    host_start_ = std::chrono::steady_clock::now();
    return;
  }
  DEPTHSORT_GL_CHECK(glBeginQuery(GL_TIME_ELAPSED, frame.queries[static_cast<std::size_t>(frame.steps)].get()));
}

void GlTimerRing::end_step() {
  Frame& frame = frames_[static_cast<std::size_t>(current_)];
  if (host_clock_) {
    DEPTHSORT_GL_CHECK(glFinish());
    frame.host_ms[static_cast<std::size_t>(frame.steps)] =
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - host_start_).count();
  } else {
    DEPTHSORT_GL_CHECK(glEndQuery(GL_TIME_ELAPSED));
  }
  ++frame.steps;
}

void GlTimerRing::end_frame() { frames_[static_cast<std::size_t>(current_)].pending = true; }

bool GlTimerRing::read(Frame& frame, bool wait, std::vector<StepTime>& out) {
  if (!frame.pending || frame.steps == 0) return false;
  if (host_clock_) {
    out.clear();
    for (int i = 0; i < frame.steps; ++i)
      out.push_back(StepTime{frame.names[static_cast<std::size_t>(i)], frame.host_ms[static_cast<std::size_t>(i)]});
    frame.pending = false;
    return true;
  }
  if (!wait) {
    GLint available = 0;
    DEPTHSORT_GL_CHECK(glGetQueryObjectiv(frame.queries[static_cast<std::size_t>(frame.steps - 1)].get(),
                                          GL_QUERY_RESULT_AVAILABLE, &available));
    if (!available) return false;
  }
  out.clear();
  for (int i = 0; i < frame.steps; ++i) {
    GLuint64 ns = 0;
    DEPTHSORT_GL_CHECK(glGetQueryObjectui64v(frame.queries[static_cast<std::size_t>(i)].get(), GL_QUERY_RESULT, &ns));
    out.push_back(StepTime{frame.names[static_cast<std::size_t>(i)], static_cast<float>(ns) * 1e-6f});
  }
  frame.pending = false;
  return true;
}

bool GlTimerRing::poll(std::vector<StepTime>& out) {
  // Oldest first: the frame after the current one in the ring is the oldest.
  for (int k = 1; k <= kFrames; ++k) {
    Frame& frame = frames_[static_cast<std::size_t>((current_ + k) % kFrames)];
    if (read(frame, false, out)) return true;
  }
  return false;
}

bool GlTimerRing::wait_last(std::vector<StepTime>& out) {
  if (current_ < 0) return false;
  return read(frames_[static_cast<std::size_t>(current_)], true, out);
}

// ---------------------------------------------------------------- Renderer

float point_scale(const Camera& camera, int height) {
  return static_cast<float>(height) / (2.0f * std::tan(0.5f * camera.fov_y));
}

Renderer::Renderer(const Scene& scene, bool offscreen, int width, int height, DrawPath path) : offscreen_(offscreen) {
  // Each GL stage named for the crash report: a driver short of memory may fault inside it.
  set_crash_context("uploading the scene to GL buffers");
  const Mesh& mesh = scene.mesh;
  buffers_.triangles = mesh.triangles();
  buffers_.particles = scene.particles;
  buffers_.mesh_vertices = make_buffer(static_cast<GLsizeiptr>(mesh.vertices.size() * sizeof(MeshVertex)),
                                       mesh.vertices.data(), GL_STATIC_DRAW, "mesh vertices");
  // Submission order until the first sort.
  buffers_.mesh_elements = make_buffer(static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
                                       mesh.indices.data(), GL_DYNAMIC_DRAW, "mesh elements");
  buffers_.particle_vertices = make_buffer(static_cast<GLsizeiptr>(scene.particles * sizeof(ParticleVertex)), nullptr,
                                           GL_DYNAMIC_DRAW, "particle vertices");
  {
    std::vector<std::uint32_t> identity(scene.particles);
    std::iota(identity.begin(), identity.end(), 0u);
    buffers_.particle_elements = make_buffer(static_cast<GLsizeiptr>(identity.size() * sizeof(std::uint32_t)),
                                             identity.data(), GL_DYNAMIC_DRAW, "particle elements");
    const std::size_t primitives = buffers_.triangles + buffers_.particles;
    identity.resize(primitives);
    std::iota(identity.begin(), identity.end(), 0u);
    buffers_.primitive_order = make_buffer(static_cast<GLsizeiptr>(primitives * sizeof(std::uint32_t)), identity.data(),
                                           GL_DYNAMIC_DRAW, "primitive order");
    std::fill(identity.begin(), identity.end(), 0u);
    buffers_.segment_ids = make_buffer(static_cast<GLsizeiptr>(primitives * sizeof(std::uint32_t)), identity.data(),
                                       GL_DYNAMIC_DRAW, "segment ids");
  }
  buffers_.mesh_indices = make_buffer(static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
                                      mesh.indices.data(), GL_STATIC_DRAW, "mesh indices");
  pull_vao_ = make_vertex_array();
  if (path == DrawPath::Expanded) {
    // Written whole every frame before it is drawn; no initial contents.
    const std::size_t bytes = 3 * (buffers_.triangles + buffers_.particles) * sizeof(ExpandedVertex);
    buffers_.expanded_vertices =
        make_buffer(static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_DRAW, "expanded vertices");
    expanded_vao_ = make_vertex_array();
    const GLuint v = expanded_vao_.get();
    const struct {
      GLint size;
      GLenum type;
      GLboolean normalized;
      GLuint offset;
    } attributes[] = {{3, GL_FLOAT, GL_FALSE, offsetof(ExpandedVertex, x)},
                      {4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(ExpandedVertex, rgba)},
                      {2, GL_SHORT, GL_TRUE, offsetof(ExpandedVertex, corner)}};
    for (GLuint a = 0; a < 3; ++a) {
      DEPTHSORT_GL_CHECK(glEnableVertexArrayAttrib(v, a));
      DEPTHSORT_GL_CHECK(glVertexArrayAttribFormat(v, a, attributes[a].size, attributes[a].type,
                                                   attributes[a].normalized, attributes[a].offset));
      DEPTHSORT_GL_CHECK(glVertexArrayAttribBinding(v, a, 0));
    }
  }
  {
    // The pulled draw reads whole buffers as storage blocks, which the driver caps in size.
    GLint64 limit = 0;
    DEPTHSORT_GL_CHECK(glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &limit));
    const struct {
      const char* what;
      std::size_t bytes;
    } blocks[] = {{"mesh vertices", mesh.vertices.size() * sizeof(MeshVertex)},
                  {"mesh indices", mesh.indices.size() * sizeof(std::uint32_t)},
                  {"particle vertices", scene.particles * sizeof(ParticleVertex)},
                  {"primitive order", (buffers_.triangles + buffers_.particles) * sizeof(std::uint32_t)}};
    for (const auto& block : blocks)
      if (limit > 0 && block.bytes > static_cast<std::uint64_t>(limit) && pull_limit_.empty())
        pull_limit_ = std::string("the single order's draw reads the ") + block.what + " (" +
                      std::to_string(block.bytes) + " bytes) as a storage block, above this driver's limit of " +
                      std::to_string(limit) + " bytes; use --separate-passes or a smaller scene";
  }

  mesh_vao_ = make_position_colour_vao(buffers_.mesh_vertices.get(), sizeof(MeshVertex), 3, offsetof(MeshVertex, rgba),
                                       buffers_.mesh_elements.get());
  particle_vao_ = make_position_colour_vao(buffers_.particle_vertices.get(), sizeof(ParticleVertex), 4,
                                           offsetof(ParticleVertex, rgba), buffers_.particle_elements.get());

  set_crash_context("compiling the GL shaders");
  mesh_program_ = make_program("mesh.vert", "mesh.frag");
  sprite_program_ = make_program("sprite.vert", "sprite.frag");
  const auto location = [](const GlProgram& p, const char* name) {
    GLint l = -1;
    DEPTHSORT_GL_CHECK(l = glGetUniformLocation(p.get(), name));
    return l;
  };
  mesh_view_ = location(mesh_program_, "u_view");
  mesh_projection_ = location(mesh_program_, "u_projection");
  mesh_opacity_ = location(mesh_program_, "u_opacity");
  mesh_lighting_ = location(mesh_program_, "u_lighting");
  sprite_view_ = location(sprite_program_, "u_view");
  sprite_projection_ = location(sprite_program_, "u_projection");
  sprite_opacity_ = location(sprite_program_, "u_opacity");
  sprite_scale_ = location(sprite_program_, "u_point_scale");
  pull_ = PulledProgram({"shade.glsl", "primitive.frag"});
  if (path == DrawPath::Expanded) {
    expanded_program_ = make_program("expanded.vert", {"shade.glsl", "primitive.frag"});
    expanded_view_ = location(expanded_program_, "u_view");
    expanded_projection_ = location(expanded_program_, "u_projection");
    expanded_opacity_ = location(expanded_program_, "u_opacity");
    expanded_lighting_ = location(expanded_program_, "u_lighting");
  }
  resize(width, height);
}

void Renderer::resize(int width, int height) {
  if (width == width_ && height == height_) return;
  width_ = width;
  height_ = height;
  transparency_.resize(width, height);
  if (!offscreen_ || width <= 0 || height <= 0) return;
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateRenderbuffers(1, &id));
  colour_ = GlRenderbuffer(id);
  DEPTHSORT_GL_CHECK(glNamedRenderbufferStorage(id, GL_RGBA8, width, height));
  DEPTHSORT_GL_CHECK(glCreateRenderbuffers(1, &id));
  depth_ = GlRenderbuffer(id);
  DEPTHSORT_GL_CHECK(glNamedRenderbufferStorage(id, GL_DEPTH_COMPONENT24, width, height));
  DEPTHSORT_GL_CHECK(glCreateFramebuffers(1, &id));
  framebuffer_ = GlFramebuffer(id);
  DEPTHSORT_GL_CHECK(glNamedFramebufferRenderbuffer(id, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_.get()));
  DEPTHSORT_GL_CHECK(glNamedFramebufferRenderbuffer(id, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_.get()));
  GLenum status = 0;
  DEPTHSORT_GL_CHECK(status = glCheckNamedFramebufferStatus(id, GL_FRAMEBUFFER));
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw GlError("offscreen framebuffer " + std::to_string(width) + "x" + std::to_string(height) +
                  " is incomplete (status 0x" + std::to_string(status) + ")");
}

void Renderer::bind_target(GLuint framebuffer) const {
  DEPTHSORT_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, framebuffer));
  DEPTHSORT_GL_CHECK(glViewport(0, 0, width_, height_));
}

void Renderer::clear_target(GLuint framebuffer, const Scene& scene) {
  bind_target(framebuffer);
  DEPTHSORT_GL_CHECK(glDepthMask(GL_TRUE));
  DEPTHSORT_GL_CHECK(glClearColor(scene.background.r, scene.background.g, scene.background.b, 1.0f));
  DEPTHSORT_GL_CHECK(glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT));
}

void Renderer::clear(const Scene& scene) { clear_target(target(), scene); }

void Renderer::draw(const Scene& scene, const Camera& camera, const FramePlan& plan, GlTimerRing& timer) {
  GlDebugGroup group("draw");
  transparency_.collect(false);  // the statistics of frames the GPU has finished
  const glm::mat4 view = camera.view();
  const float covered = std::clamp(plan.covered_left, 0.0f, 0.9f);
  // x_ndc += covered: half the covered fraction of the width (NDC spans 2). A free part narrower
  // than 4:3 shows the picture smaller, so that a scene framed for 4:3 stays whole beside the panel.
  constexpr float kFramedAspect = 4.0f / 3.0f;
  const float aspect = static_cast<float>(width_) / static_cast<float>(height_);
  const float fit = std::min(1.0f, (1.0f - covered) * aspect / kFramedAspect);
  const glm::mat4 shift =
      glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(covered, 0.0f, 0.0f)), glm::vec3(fit, fit, 1.0f));
  const glm::mat4 projection = shift * camera.projection(aspect);
  const bool reference = plan.transparency == Transparency::Reference || plan.difference;
  if (reference) transparency_.begin_frame();
  if (!plan.difference) {
    draw_mode(plan.transparency, target(), scene, view, projection, plan, timer);
  } else {
    // Both pictures offscreen (the reference's once where it is the mode), then their difference.
    const bool mode_is_reference = plan.transparency == Transparency::Reference;
    if (!mode_is_reference)
      draw_mode(plan.transparency, transparency_.mode_target(), scene, view, projection, plan, timer);
    draw_mode(Transparency::Reference, transparency_.reference_target(), scene, view, projection, plan, timer);
    transparency_.difference(target(), mode_is_reference, timer);
  }
  if (reference) transparency_.end_frame(true, plan.difference);
  // The panel is drawn next, over the picture, into the same target.
  bind_target(target());
  DEPTHSORT_GL_CHECK(glBindVertexArray(0));
  DEPTHSORT_GL_CHECK(glDepthMask(GL_TRUE));
  DEPTHSORT_GL_CHECK(glDisable(GL_BLEND));
}

void Renderer::draw_mode(Transparency mode, GLuint framebuffer, const Scene& scene, const glm::mat4& view,
                         const glm::mat4& projection, const FramePlan& plan, GlTimerRing& timer) {
  clear_target(framebuffer, scene);
  if (mode == Transparency::Weighted) {
    if (!pull_limit_.empty()) throw GlError(pull_limit_);
    transparency_.weighted(framebuffer, buffers_, pull_vao_.get(), view, projection, plan, timer);
  } else if (mode == Transparency::Reference) {
    if (!pull_limit_.empty()) throw GlError(pull_limit_);
    transparency_.reference(framebuffer, buffers_, pull_vao_.get(), view, projection, plan, scene.background, timer);
  } else {
    timer.begin_step("draw");
    draw_blended(view, projection, plan, mode == Transparency::Unsorted);
    timer.end_step();
  }
}

void Renderer::draw_blended(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan, bool unsorted) {
  const float covered = std::clamp(plan.covered_left, 0.0f, 0.9f);
  // Opaque geometry would be drawn here first, with depth writes on. Then the transparent
  // primitives, back to front: depth test on (against opaque depth), depth writes off.
  DEPTHSORT_GL_CHECK(glEnable(GL_DEPTH_TEST));
  DEPTHSORT_GL_CHECK(glDepthFunc(GL_LEQUAL));
  DEPTHSORT_GL_CHECK(glDepthMask(GL_FALSE));
  DEPTHSORT_GL_CHECK(glEnable(GL_BLEND));
  DEPTHSORT_GL_CHECK(glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA));
  DEPTHSORT_GL_CHECK(glDisable(GL_CULL_FACE));
  if (unsorted) {
    if (!pull_limit_.empty()) throw GlError(pull_limit_);
    GlDebugGroup pulled_group("draw primitives (submission order)");
    pull_.use(buffers_, pull_vao_.get(), view, projection, plan);
    pull_.draw(buffers_, true, plan.triangle_sprites ? 3 : 6);
  } else if (plan.separate) {
    draw_separate(view, projection, plan);
  } else {
    if (plan.expand && !buffers_.expanded_vertices.get())
      throw GlError("the expanded draw was asked for, but the renderer was built for --draw-path pull");
    // Expanded: the sorted side from the expanded buffer; pull only draws the wipe's unsorted side.
    const bool pull = !plan.expand || plan.wipe >= 0.0f;
    if (pull && !pull_limit_.empty()) throw GlError(pull_limit_);
    GlDebugGroup pulled_group("draw primitives");
    const GLuint vertices = plan.triangle_sprites ? 3 : 6;
    const auto draw_sorted = [&] {
      if (!plan.expand) return pull_.draw(buffers_, false, vertices);
      use_expanded(view, projection, plan);
      draw_expanded();
    };
    if (plan.wipe >= 0.0f) {
      // The wipe: unsorted blending left of the line, sorted right of it, a 2-pixel line between.
      // The fraction is of the part of the width the panel leaves free.
      const float free_from = covered * static_cast<float>(width_);
      const int split = std::clamp(
          static_cast<int>(std::lround(free_from + plan.wipe * (static_cast<float>(width_) - free_from))), 0, width_);
      if (plan.colour == ColourMode::Rank) rank_positions();
      DEPTHSORT_GL_CHECK(glEnable(GL_SCISSOR_TEST));
      DEPTHSORT_GL_CHECK(glScissor(0, 0, split, height_));
      pull_.use(buffers_, pull_vao_.get(), view, projection, plan);
      if (plan.colour == ColourMode::Rank)
        DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRankOfBinding, rank_of_.get()));
      pull_.draw(buffers_, true, vertices);
      DEPTHSORT_GL_CHECK(glScissor(split, 0, width_ - split, height_));
      draw_sorted();
      DEPTHSORT_GL_CHECK(glScissor(std::max(split - 1, 0), 0, 2, height_));
      DEPTHSORT_GL_CHECK(glClearColor(0.9f, 0.9f, 0.9f, 1.0f));
      DEPTHSORT_GL_CHECK(glClear(GL_COLOR_BUFFER_BIT));
      DEPTHSORT_GL_CHECK(glDisable(GL_SCISSOR_TEST));
    } else {
      if (pull) pull_.use(buffers_, pull_vao_.get(), view, projection, plan);
      draw_sorted();
    }
  }
}

void Renderer::rank_positions() {
  const std::size_t primitives = buffers_.triangles + buffers_.particles;
  if (!rank_program_) {
    rank_program_ = make_compute_program("rank_of.comp");
    DEPTHSORT_GL_CHECK(rank_primitives_ = glGetUniformLocation(rank_program_.get(), "u_primitives"));
    rank_of_ = make_buffer(static_cast<GLsizeiptr>(primitives * sizeof(std::uint32_t)), nullptr, GL_DYNAMIC_DRAW,
                           "rank of id");
  }
  constexpr std::size_t kGroup = 256, kMaxGroups = 65535;
  const std::size_t groups = (primitives + kGroup - 1) / kGroup;
  const auto x = static_cast<GLuint>(std::min(groups, kMaxGroups));
  const auto y = static_cast<GLuint>((groups + kMaxGroups - 1) / kMaxGroups);
  DEPTHSORT_GL_CHECK(glUseProgram(rank_program_.get()));
  DEPTHSORT_GL_CHECK(glUniform1ui(rank_primitives_, static_cast<GLuint>(primitives)));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, buffers_.primitive_order.get()));
  DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRankOfBinding, rank_of_.get()));
  DEPTHSORT_GL_CHECK(glDispatchCompute(x, y, 1));
  // The draw that follows reads what the dispatch wrote.
  DEPTHSORT_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
}

void Renderer::use_expanded(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan) {
  DEPTHSORT_GL_CHECK(glUseProgram(expanded_program_.get()));
  DEPTHSORT_GL_CHECK(glUniformMatrix4fv(expanded_view_, 1, GL_FALSE, glm::value_ptr(view)));
  DEPTHSORT_GL_CHECK(glUniformMatrix4fv(expanded_projection_, 1, GL_FALSE, glm::value_ptr(projection)));
  DEPTHSORT_GL_CHECK(glUniform1f(expanded_opacity_, plan.opacity));
  DEPTHSORT_GL_CHECK(glUniform1i(expanded_lighting_, plan.lighting ? 1 : 0));
  DEPTHSORT_GL_CHECK(glBindVertexArray(expanded_vao_.get()));
}

void Renderer::draw_expanded() {
  // Each draw binds the buffer at its first position's bytes: glDrawArrays' first vertex is a
  // GLint, which 3 vertices a position would overflow where the count itself still fits.
  const std::size_t primitives = buffers_.triangles + buffers_.particles;
  constexpr auto kStride = static_cast<GLsizei>(sizeof(ExpandedVertex));
  for (std::size_t first = 0; first < primitives; first += kPositionsPerDraw) {
    const std::size_t count = std::min(kPositionsPerDraw, primitives - first);
    DEPTHSORT_GL_CHECK(glVertexArrayVertexBuffer(expanded_vao_.get(), 0, buffers_.expanded_vertices.get(),
                                                 static_cast<GLintptr>(3 * first * sizeof(ExpandedVertex)), kStride));
    DEPTHSORT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(3 * count)));
  }
}

void Renderer::draw_separate(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan) {
  if (buffers_.triangles > 0) {
    GlDebugGroup mesh_group("draw mesh");
    DEPTHSORT_GL_CHECK(glUseProgram(mesh_program_.get()));
    DEPTHSORT_GL_CHECK(glUniformMatrix4fv(mesh_view_, 1, GL_FALSE, glm::value_ptr(view)));
    DEPTHSORT_GL_CHECK(glUniformMatrix4fv(mesh_projection_, 1, GL_FALSE, glm::value_ptr(projection)));
    DEPTHSORT_GL_CHECK(glUniform1f(mesh_opacity_, plan.opacity));
    DEPTHSORT_GL_CHECK(glUniform1i(mesh_lighting_, plan.lighting ? 1 : 0));
    DEPTHSORT_GL_CHECK(glBindVertexArray(mesh_vao_.get()));
    const GLsizei count = draw_count(std::size_t{3} * buffers_.triangles, "triangle");
    DEPTHSORT_GL_CHECK(glDrawElements(GL_TRIANGLES, count, GL_UNSIGNED_INT, nullptr));
  }
  if (buffers_.particles > 0) {
    GlDebugGroup particle_group("draw particles");
    DEPTHSORT_GL_CHECK(glEnable(GL_PROGRAM_POINT_SIZE));
    DEPTHSORT_GL_CHECK(glUseProgram(sprite_program_.get()));
    DEPTHSORT_GL_CHECK(glUniformMatrix4fv(sprite_view_, 1, GL_FALSE, glm::value_ptr(view)));
    DEPTHSORT_GL_CHECK(glUniformMatrix4fv(sprite_projection_, 1, GL_FALSE, glm::value_ptr(projection)));
    DEPTHSORT_GL_CHECK(glUniform1f(sprite_opacity_, plan.opacity));
    DEPTHSORT_GL_CHECK(glUniform1f(sprite_scale_, plan.point_scale));
    DEPTHSORT_GL_CHECK(glBindVertexArray(particle_vao_.get()));
    const GLsizei count = draw_count(buffers_.particles, "particle");
    DEPTHSORT_GL_CHECK(glDrawElements(GL_POINTS, count, GL_UNSIGNED_INT, nullptr));
  }
}

void Renderer::read_pixels(std::vector<std::uint8_t>& rgba) const {
  const std::size_t row = static_cast<std::size_t>(width_) * 4;
  std::vector<std::uint8_t> flipped(row * static_cast<std::size_t>(height_));
  DEPTHSORT_GL_CHECK(glBindFramebuffer(GL_READ_FRAMEBUFFER, offscreen_ ? framebuffer_.get() : 0));
  DEPTHSORT_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  DEPTHSORT_GL_CHECK(glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data()));
  rgba.resize(flipped.size());
  for (int y = 0; y < height_; ++y)
    std::copy_n(flipped.data() + static_cast<std::size_t>(height_ - 1 - y) * row, row,
                rgba.data() + static_cast<std::size_t>(y) * row);
}

}  // namespace depthsort::app
