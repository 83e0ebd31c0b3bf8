#version 450 core
// The shading of every pulled or expanded fragment, shared by the blended draw (primitive.frag),
// weighted blended OIT's accumulation (wboit.frag) and the A-buffer's lists (abuffer.frag), which
// are compiled after this file: triangles with a flat headlight from the screen-space derivatives
// of the view position (no normals stored), particles as round soft sprites.
in vec3 v_view_position;
in vec4 v_colour;
in vec2 v_corner;
flat in int v_particle;
uniform float u_opacity;
uniform int u_lighting;

// The fragment's colour and alpha (straight, not premultiplied); false where a sprite's disc does
// not cover it (the caller discards). Called first in main: the derivatives need every fragment
// of the 2x2 quad.
bool shade(out vec4 colour) {
  const vec3 n = normalize(cross(dFdx(v_view_position), dFdy(v_view_position)));
  if (v_particle != 0) {
    const float r2 = dot(v_corner, v_corner);
    colour = vec4(v_colour.rgb, v_colour.a * u_opacity * (1.0 - r2));
    return r2 <= 1.0;
  }
  vec3 rgb = v_colour.rgb;
  if (u_lighting != 0) rgb *= 0.35 + 0.65 * abs(dot(n, normalize(-v_view_position)));
  colour = vec4(rgb, v_colour.a * u_opacity);
  return true;
}
