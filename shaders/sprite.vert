#version 450 core
// Camera-facing particle sprites as GL points: centre + world size (depthsort::ParticleVertex).
layout(location = 0) in vec4 a_position_size;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_point_scale;  // framebuffer height / (2 tan(fov_y / 2))
out vec4 v_colour;
void main() {
  vec4 view_position = u_view * vec4(a_position_size.xyz, 1.0);
  gl_Position = u_projection * view_position;
  gl_PointSize = clamp(a_position_size.w * u_point_scale / max(-view_position.z, 1e-3), 1.0, 128.0);
  v_colour = a_colour;
}
