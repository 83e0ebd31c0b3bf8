#version 450 core
// Transparent mesh: position and RGBA8 colour per vertex (depthsort::MeshVertex).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view;
uniform mat4 u_projection;
out vec3 v_view_position;
out vec4 v_colour;
void main() {
  vec4 view_position = u_view * vec4(a_position, 1.0);
  v_view_position = view_position.xyz;
  v_colour = a_colour;
  gl_Position = u_projection * view_position;
}
