#version 450 core
// The per-pixel reference's resolve: each pixel's list (abuffer.frag) sorted by depth, far first,
// in place by a bottom-up merge sort of the linked list (any length: no per-pixel cap, the nodes
// stay in the pool), then blended back to front over the background as an RGBA8 target blends
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA, each step rounded to 8 bits), so that it differs from a drawn
// order only where the order differs. A pixel that lost fragments to the budget is counted and
// drawn in magenta stripes.
layout(std430, binding = 5) readonly buffer Heads { uint heads[]; };
layout(std430, binding = 6) buffer Nodes { uint nodes[]; };
layout(std430, binding = 7) readonly buffer Lost { uint lost[]; };
// [1]: pixels over the budget, [5]: the longest list
layout(std430, binding = 8) buffer Stats { uint stats[]; };
uniform uint u_width;
uniform uint u_height;
uniform uint u_budget;
uniform vec3 u_background;  // the target's clear colour, as stored in 8 bits
out vec4 o_colour;
const uint kEnd = 0xFFFFFFFFu;

uint next_of(uint node) { return nodes[3u * node + 2u]; }
float depth_of(uint node) { return uintBitsToFloat(nodes[3u * node + 1u]); }

// Ends the list after `count` nodes; returns the node that followed (kEnd if none).
uint cut_after(uint head, uint count) {
  for (uint i = 1u; head != kEnd && i < count; ++i) head = next_of(head);
  if (head == kEnd) return kEnd;
  const uint rest = next_of(head);
  nodes[3u * head + 2u] = kEnd;
  return rest;
}

// Runs of `width` merged pairwise, width doubling: O(n log n) reads, no storage beyond the list.
// Stable (a tie keeps the earlier node first); far first: the larger window depth first.
uint sort_list(uint head, uint length) {
  for (uint width = 1u; width < length; width *= 2u) {
    uint rest = head, first = kEnd, tail = kEnd;
    while (rest != kEnd) {
      uint a = rest;
      uint b = cut_after(a, width);
      rest = cut_after(b, width);
      while (a != kEnd || b != kEnd) {
        uint take;
        if (b == kEnd || (a != kEnd && depth_of(a) >= depth_of(b))) {
          take = a;
          a = next_of(a);
        } else {
          take = b;
          b = next_of(b);
        }
        if (tail == kEnd) first = take;
        else nodes[3u * tail + 2u] = take;
        tail = take;
      }
    }
    nodes[3u * tail + 2u] = kEnd;
    head = first;
  }
  return head;
}

void main() {
  const uvec2 p = uvec2(gl_FragCoord.xy);
  // Helper invocations store nothing; their list walks would be wasted, or outside the target.
  if (gl_HelperInvocation || p.x >= u_width || p.y >= u_height) {
    o_colour = vec4(0.0);
    return;
  }
  const uint pixel = p.y * u_width + p.x;
  uint length = 0u;
  for (uint n = heads[pixel]; n != kEnd && length < u_budget; n = next_of(n)) ++length;
  vec3 colour = u_background;
  uint n = sort_list(heads[pixel], length);
  for (uint i = 0u; i < length && n != kEnd; ++i, n = next_of(n)) {
    const vec4 s = unpackUnorm4x8(nodes[3u * n]);
    colour = round((s.rgb * s.a + colour * (1.0 - s.a)) * 255.0) / 255.0;
  }
  if (length > 0u) atomicMax(stats[5], length);
  if (lost[pixel] > 0u) {
    atomicAdd(stats[1], 1u);
    colour = ((p.x + p.y) / 4u) % 2u == 0u ? vec3(1.0, 0.0, 1.0) : vec3(0.0);
  }
  o_colour = vec4(colour, 1.0);
}
