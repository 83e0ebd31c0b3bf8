// The GL side of a frame: the scene's buffers (vertex and element buffers of the mesh and the
// particles, which CUDA maps), its programs, the offscreen target of headless runs, the draw of
// the frame's plan in its transparency mode (the blended draw of the sorted or the submission
// order here; weighted blended OIT, the per-pixel reference and the difference view in
// render/transparency.hpp), GL timer queries for the draw and UI phases, and pixel read-back.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "depthsort/sort/step_timer.hpp"
#include "loop/frame_plan.hpp"
#include "render/gl.hpp"
#include "render/pulled_draw.hpp"
#include "render/transparency.hpp"
#include "scene/scene.hpp"
#include "settings.hpp"

namespace depthsort::app {

struct SceneBuffers {
  GlBuffer mesh_vertices;      // MeshVertex[vertices]; CUDA reads it (depth)
  GlBuffer mesh_elements;      // uint32[3 * triangles]; CUDA writes it (gather), GL draws it
  GlBuffer particle_vertices;  // ParticleVertex[particles]; CUDA simulates into it
  GlBuffer particle_elements;  // uint32[particles]; sorted order
  // The single order's draw (vertex pulling): the mesh's triangle list as built (read by id), the
  // sorted primitive ids (CUDA writes them: gather), and the segment of each sorted position (the
  // colour-by-segment view).
  GlBuffer mesh_indices;     // uint32[3 * triangles]
  GlBuffer primitive_order;  // uint32[triangles + particles]
  GlBuffer segment_ids;      // uint32[triangles + particles]
  // --draw-path expanded only: ExpandedVertex[3 * (triangles + particles)], three ready vertices
  // a sorted position (CUDA or the CPU path writes them: expand); 0 with --draw-path pull.
  GlBuffer expanded_vertices;
  std::size_t triangles = 0, particles = 0;  // within the scene's limits (scene.hpp), so GLsizei counts fit
};

// World to pixels at view depth 1 for a framebuffer `height` pixels high: the sprites' size rule.
float point_scale(const Camera& camera, int height);

// GL_TIME_ELAPSED queries in a ring of frames, read back later without waiting (or, for
// headless runs, waited on). Steps are named with string literals, as the StepTimer's are.
// Host mode (software GL, whose timer queries do not measure its deferred rasterisation): each
// step ends with glFinish and is timed on the host clock.
class GlTimerRing {
 public:
  // Steps a frame: the draw's phases (up to five: a mode's two, the reference's two, the
  // difference view) and the panel.
  static constexpr int kFrames = 4, kSteps = 8;
  explicit GlTimerRing(bool host_clock = false);
  void begin_frame();
  void begin_step(const char* name);
  void end_step();
  void end_frame();
  // The oldest completed frame not yet returned; never blocks.
  bool poll(std::vector<StepTime>& out);
  // Blocks for the last frame (headless).
  bool wait_last(std::vector<StepTime>& out);

 private:
  struct Frame {
    std::array<GlQuery, kSteps> queries;
    std::array<const char*, kSteps> names{};
    std::array<float, kSteps> host_ms{};
    int steps = 0;
    bool pending = false;
  };
  bool read(Frame& frame, bool wait, std::vector<StepTime>& out);
  std::array<Frame, kFrames> frames_;
  int current_ = -1;
  bool host_clock_ = false;
  std::chrono::steady_clock::time_point host_start_{};
};

class Renderer {
 public:
  // `offscreen`: draw into an RGBA8 + depth framebuffer of width x height (headless).
  // DrawPath::Expanded also allocates the expanded vertex buffer (once, here).
  Renderer(const Scene& scene, bool offscreen, int width, int height, DrawPath path = DrawPath::Pull);

  SceneBuffers& buffers() noexcept { return buffers_; }
  void resize(int width, int height);
  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }

  // Clears the target and draws every primitive in the plan's transparency mode, each phase a
  // step of `timer` ("draw" for the blended draw). Sorted: in the order of primitive_order (one
  // pulled draw) or from the expanded vertices, or with the separate passes the mesh, then the
  // particles, in their element buffers' order: blending on, depth test on, depth writes off
  // (there is no opaque geometry in these scenes). Unsorted: submission order, blended alike.
  // With the plan's difference view, the mode and the reference are drawn offscreen and the
  // target shows where they differ.
  void draw(const Scene& scene, const Camera& camera, const FramePlan& plan, GlTimerRing& timer);
  // The transparency passes' statistics (a few frames late in a window); finish_stats() reads
  // them up to the last frame drawn, waiting for it (the end of a headless run).
  const TransparencyStats& transparency_stats() const noexcept { return transparency_.stats(); }
  void finish_stats() { transparency_.collect(true); }
  // The bytes each mode's own storage takes at this size (a fixed fragment budget or 0).
  TransparencyMemory transparency_memory(std::size_t fixed_budget) const noexcept {
    return transparency_.memory(fixed_budget);
  }
  // Binds the target and clears it (used when nothing is drawn).
  void clear(const Scene& scene);
  // RGBA8 pixels, top row first.
  void read_pixels(std::vector<std::uint8_t>& rgba) const;

 private:
  GLuint target() const noexcept { return offscreen_ ? framebuffer_.get() : 0; }
  void bind_target(GLuint framebuffer) const;
  // `framebuffer` bound and cleared to the scene's background (colour and depth).
  void clear_target(GLuint framebuffer, const Scene& scene);
  // One mode's picture into `framebuffer`.
  void draw_mode(Transparency mode, GLuint framebuffer, const Scene& scene, const glm::mat4& view,
                 const glm::mat4& projection, const FramePlan& plan, GlTimerRing& timer);
  // The blended draw into the bound target: the sorted order (or the wipe, or the separate
  // passes), or with `unsorted` the submission order.
  void draw_blended(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan, bool unsorted);
  void draw_separate(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan);
  // The expanded buffer's draw of the whole order (its program bound first).
  void use_expanded(const glm::mat4& view, const glm::mat4& projection, const FramePlan& plan);
  void draw_expanded();
  SceneBuffers buffers_;
  GlVertexArray pull_vao_;  // no attributes: the vertex shader reads storage buffers
  std::string pull_limit_;  // why the pulled draw cannot read this scene's buffers ("" if it can)
  PulledProgram pull_;
  // Colours by rank on the wipe's unsorted side: each id's sorted position (rank_of.comp), made
  // on the first frame that needs it.
  void rank_positions();
  // Its storage binding: past the A-buffer's (abuffer.frag's 5-8), as primitive.vert and
  // rank_of.comp declare it.
  static constexpr GLuint kRankOfBinding = 9;
  GlBuffer rank_of_;
  GlProgram rank_program_;
  GLint rank_primitives_ = -1;
  GlVertexArray expanded_vao_;  // the ExpandedVertex attributes
  GlProgram expanded_program_;
  GLint expanded_view_ = -1, expanded_projection_ = -1, expanded_opacity_ = -1, expanded_lighting_ = -1;
  GlVertexArray mesh_vao_, particle_vao_;
  GlProgram mesh_program_, sprite_program_;
  GLint mesh_view_ = -1, mesh_projection_ = -1, mesh_opacity_ = -1, mesh_lighting_ = -1;
  GLint sprite_view_ = -1, sprite_projection_ = -1, sprite_opacity_ = -1, sprite_scale_ = -1;
  bool offscreen_ = false;
  GlFramebuffer framebuffer_;
  GlRenderbuffer colour_, depth_;
  int width_ = 0, height_ = 0;
  TransparencyPasses transparency_;
};

}  // namespace depthsort::app
