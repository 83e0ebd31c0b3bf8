// A program of the pulled draw: shaders/primitive.vert, which reads each sorted position's
// primitive from storage buffers, with one fragment shader of shade.glsl's family (the blended
// draw, weighted blended OIT's accumulation, the A-buffer's fragment lists). Its uniforms are
// looked up once; use() sets them from the frame's plan and binds the scene's buffers, and draw()
// draws every position of the order (or submission order).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <limits>

#include <glm/mat4x4.hpp>

#include "loop/frame_plan.hpp"
#include "render/gl.hpp"

namespace depthsort::app {

struct SceneBuffers;

class PulledProgram {
 public:
  PulledProgram() = default;
  // primitive.vert with the fragment shader made of `fragment_parts` (make_program).
  explicit PulledProgram(std::initializer_list<const char*> fragment_parts);

  GLuint get() const noexcept { return program_.get(); }
  explicit operator bool() const noexcept { return static_cast<bool>(program_); }
  // The location of a uniform of this program (-1 where the linker dropped it).
  GLint uniform(const char* name) const;

  // Binds the program, its uniforms (the plan's colours, opacity, lighting, sprite shape and
  // scale), the scene's storage buffers at bindings 0-4 and `vao` (no attributes).
  void use(const SceneBuffers& buffers, GLuint vao, const glm::mat4& view, const glm::mat4& projection,
           const FramePlan& plan) const;
  // Every position of the order (`identity`: submission order instead), with
  // `vertices_per_primitive` (3 or 6) vertices each, in as many draws as GLsizei counts need.
  void draw(const SceneBuffers& buffers, bool identity, GLuint vertices_per_primitive) const;

 private:
  GlProgram program_;
  GLint view_ = -1, projection_ = -1, triangles_ = -1, primitives_ = -1, first_ = -1, vertices_ = -1, identity_ = -1,
        colour_ = -1, point_scale_ = -1, opacity_ = -1, lighting_ = -1;
};

// Sorted positions per draw of the single order: up to six vertices each, and a draw's vertex
// count is a GLsizei, so huge orders take several draws (still one order: they run in sequence).
inline constexpr std::size_t kPositionsPerDraw =
    (static_cast<std::size_t>(std::numeric_limits<GLsizei>::max()) / 6) & ~std::size_t{63};

}  // namespace depthsort::app
