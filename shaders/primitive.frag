// After shade.glsl: the blended draw of the pulled and the expanded paths, in the order drawn.
// Blending is SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
out vec4 o_colour;
void main() {
  vec4 colour;
  if (!shade(colour)) discard;
  o_colour = colour;
}
