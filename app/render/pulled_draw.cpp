#include "render/pulled_draw.hpp"

#include <algorithm>

#include <glm/gtc/type_ptr.hpp>

#include "render/renderer.hpp"

namespace depthsort::app {

PulledProgram::PulledProgram(std::initializer_list<const char*> fragment_parts)
    : program_(make_program("primitive.vert", fragment_parts)) {
  view_ = uniform("u_view");
  projection_ = uniform("u_projection");
  triangles_ = uniform("u_triangles");
  primitives_ = uniform("u_primitives");
  first_ = uniform("u_first");
  vertices_ = uniform("u_vertices");
  identity_ = uniform("u_identity");
  colour_ = uniform("u_colour_mode");
  point_scale_ = uniform("u_point_scale");
  opacity_ = uniform("u_opacity");
  lighting_ = uniform("u_lighting");
}

GLint PulledProgram::uniform(const char* name) const {
  GLint location = -1;
  DEPTHSORT_GL_CHECK(location = glGetUniformLocation(program_.get(), name));
  return location;
}

void PulledProgram::use(const SceneBuffers& buffers, GLuint vao, const glm::mat4& view, const glm::mat4& projection,
                        const FramePlan& plan) const {
  DEPTHSORT_GL_CHECK(glUseProgram(program_.get()));
  DEPTHSORT_GL_CHECK(glUniformMatrix4fv(view_, 1, GL_FALSE, glm::value_ptr(view)));
  DEPTHSORT_GL_CHECK(glUniformMatrix4fv(projection_, 1, GL_FALSE, glm::value_ptr(projection)));
  DEPTHSORT_GL_CHECK(glUniform1ui(triangles_, static_cast<GLuint>(buffers.triangles)));
  DEPTHSORT_GL_CHECK(glUniform1ui(primitives_, static_cast<GLuint>(buffers.triangles + buffers.particles)));
  DEPTHSORT_GL_CHECK(glUniform1i(colour_, static_cast<GLint>(plan.colour)));
  DEPTHSORT_GL_CHECK(glUniform1f(point_scale_, plan.point_scale));
  DEPTHSORT_GL_CHECK(glUniform1f(opacity_, plan.opacity));
  DEPTHSORT_GL_CHECK(glUniform1i(lighting_, plan.lighting ? 1 : 0));
  const GLuint bound[5] = {buffers.mesh_vertices.get(), buffers.mesh_indices.get(), buffers.particle_vertices.get(),
                           buffers.primitive_order.get(), buffers.segment_ids.get()};
  for (GLuint b = 0; b < 5; ++b) DEPTHSORT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, bound[b]));
  DEPTHSORT_GL_CHECK(glBindVertexArray(vao));
  DEPTHSORT_GL_CHECK(glUniform1ui(vertices_, plan.triangle_sprites ? 3u : 6u));
}

void PulledProgram::draw(const SceneBuffers& buffers, bool identity, GLuint vertices_per_primitive) const {
  DEPTHSORT_GL_CHECK(glUniform1i(identity_, identity ? 1 : 0));
  // Huge orders take several draws, each starting at u_first.
  const std::size_t primitives = buffers.triangles + buffers.particles;
  for (std::size_t first = 0; first < primitives; first += kPositionsPerDraw) {
    const std::size_t count = std::min(kPositionsPerDraw, primitives - first);
    DEPTHSORT_GL_CHECK(glUniform1ui(first_, static_cast<GLuint>(first)));
    DEPTHSORT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(vertices_per_primitive * count)));
  }
}

}  // namespace depthsort::app
