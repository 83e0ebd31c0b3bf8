#version 450 core
// The pulled draw's fragments: triangles with mesh.frag's flat headlight shading, particles as
// round soft sprites (sprite.frag's falloff over the quad). Blending is SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
in vec3 v_view_position;
in vec4 v_colour;
in vec2 v_corner;
flat in int v_particle;
uniform float u_opacity;
uniform int u_lighting;
out vec4 o_colour;
void main() {
  // Derivatives outside the branch: every fragment of the 2x2 quad takes them.
  const vec3 n = normalize(cross(dFdx(v_view_position), dFdy(v_view_position)));
  if (v_particle != 0) {
    const float r2 = dot(v_corner, v_corner);
    if (r2 > 1.0) discard;
    o_colour = vec4(v_colour.rgb, v_colour.a * u_opacity * (1.0 - r2));
    return;
  }
  vec3 rgb = v_colour.rgb;
  if (u_lighting != 0) rgb *= 0.35 + 0.65 * abs(dot(n, normalize(-v_view_position)));
  o_colour = vec4(rgb, v_colour.a * u_opacity);
}
