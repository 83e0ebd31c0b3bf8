// After shade.glsl: weighted blended OIT's accumulation (McGuire & Bavoil 2013), in any order.
// Target 0 (RGBA16F, blend ONE, ONE) sums the premultiplied colour and the alpha, each times the
// weight w(z, alpha) of the paper's equation 7; target 1 (R16F, blend ZERO, ONE_MINUS_SRC_COLOR)
// multiplies the revealage, the product of (1 - alpha). wboit_composite.frag divides and blends.
layout(location = 0) out vec4 o_accum;
layout(location = 1) out vec4 o_revealage;
void main() {
  vec4 colour;
  if (!shade(colour)) discard;
  const float a = colour.a;
  const float z = -v_view_position.z;  // view depth, positive in front of the camera
  const float w = a * clamp(10.0 / (1e-5 + pow(z / 5.0, 2.0) + pow(z / 200.0, 6.0)), 1e-2, 3e3);
  o_accum = vec4(colour.rgb * a, a) * w;
  o_revealage = vec4(a);
}
