#version 450 core
// The expanded draw (--draw-path expanded, depthsort/frame/expand.hpp): every vertex of the sorted
// order was written ready, three a position, by CUDA (or the CPU path) after the sort, so this
// only transforms. Its outputs are primitive.vert's, for primitive.frag.
layout(location = 0) in vec3 a_position;  // world space
layout(location = 1) in vec4 a_colour;    // colour mode already applied
layout(location = 2) in vec2 a_corner;    // sprite corner / 2 (normalized int16); (0, 0) on triangles
uniform mat4 u_view;
uniform mat4 u_projection;
out vec3 v_view_position;
out vec4 v_colour;
out vec2 v_corner;
flat out int v_particle;

void main() {
  const vec4 view_position = u_view * vec4(a_position, 1.0);
  v_view_position = view_position.xyz;
  v_colour = a_colour;
  v_corner = 2.0 * a_corner;
  // A sprite has no corner at (0, 0), a triangle only that: the flag without a fifth word.
  v_particle = a_corner != vec2(0.0) ? 1 : 0;
  gl_Position = u_projection * view_position;
}
