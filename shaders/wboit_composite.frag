#version 450 core
// Weighted blended OIT's composite (McGuire & Bavoil 2013): the weighted average colour,
// sum(C w) / sum(alpha w), over the background with the revealage as its weight. Blending is
// ONE_MINUS_SRC_ALPHA, SRC_ALPHA: average x (1 - revealage) + background x revealage.
layout(binding = 0) uniform sampler2D u_accum;
layout(binding = 1) uniform sampler2D u_revealage;
out vec4 o_colour;
void main() {
  const ivec2 p = ivec2(gl_FragCoord.xy);
  const float revealage = texelFetch(u_revealage, p, 0).r;
  if (revealage >= 1.0) discard;  // nothing covers the pixel: the background stays
  vec4 accum = texelFetch(u_accum, p, 0);
  // A sum past half float's range: the average of what is left (the paper's guard).
  if (isinf(accum.a) || isinf(accum.r) || isinf(accum.g) || isinf(accum.b)) accum.rgb = vec3(accum.a);
  o_colour = vec4(accum.rgb / clamp(accum.a, 1e-4, 5e4), 1.0 - revealage);
}
