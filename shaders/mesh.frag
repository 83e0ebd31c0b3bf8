#version 450 core
// Flat headlight shading from the screen-space derivatives of the view position (no normals
// stored); alpha = vertex alpha x the panel's opacity. Blending is SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
in vec3 v_view_position;
in vec4 v_colour;
uniform float u_opacity;
uniform int u_lighting;
out vec4 o_colour;
void main() {
  vec3 rgb = v_colour.rgb;
  if (u_lighting != 0) {
    vec3 n = normalize(cross(dFdx(v_view_position), dFdy(v_view_position)));
    float facing = abs(dot(n, normalize(-v_view_position)));
    rgb *= 0.35 + 0.65 * facing;
  }
  o_colour = vec4(rgb, v_colour.a * u_opacity);
}
