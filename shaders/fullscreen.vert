#version 450 core
// One triangle over the whole viewport, for the passes that work per pixel: weighted blended
// OIT's composite, the A-buffer's resolve and the difference view.
void main() {
  const vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(2.0 * p - 1.0, 0.0, 1.0);
}
