#version 450 core
// Round soft sprite: alpha falls off to the rim.
in vec4 v_colour;
uniform float u_opacity;
out vec4 o_colour;
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(d, d);
  if (r2 > 1.0) discard;
  o_colour = vec4(v_colour.rgb, v_colour.a * u_opacity * (1.0 - r2));
}
