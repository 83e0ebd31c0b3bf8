// After shade.glsl: the per-pixel reference's first pass. Every fragment is kept: a node (colour
// as RGBA8, window depth, the next node) taken from the pool by an atomic counter and pushed on
// its pixel's list. A fragment past the budget is not stored but counted in its pixel's lost
// count, which the resolve and the difference view show: never a wrong pixel shown as right.
// No colour is written (the pass's colour mask is off).
layout(std430, binding = 5) buffer Heads { uint heads[]; };  // per pixel: its last node, or 0xFFFFFFFF
layout(std430, binding = 6) writeonly buffer Nodes { uint nodes[]; };  // 3 words a node
layout(std430, binding = 7) buffer Lost { uint lost[]; };    // per pixel: fragments not stored
layout(std430, binding = 8) buffer Stats { uint stats[]; };  // [0]: fragments asked for (the counter)
uniform uint u_budget;  // nodes in the pool (below 2^32 - 1, the end marker)
uniform uint u_width;
void main() {
  vec4 colour;
  if (!shade(colour)) discard;
  const uint pixel = uint(gl_FragCoord.y) * u_width + uint(gl_FragCoord.x);
  const uint node = atomicAdd(stats[0], 1u);
  if (node >= u_budget) {
    atomicAdd(lost[pixel], 1u);
    return;
  }
  nodes[3u * node] = packUnorm4x8(colour);
  nodes[3u * node + 1u] = floatBitsToUint(gl_FragCoord.z);
  nodes[3u * node + 2u] = atomicExchange(heads[pixel], node);
}
