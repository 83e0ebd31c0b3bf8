#version 450 core
// The wipe's unsorted side in colours by rank: each primitive id's position in the sorted order
// (the inverse of the order), so that a primitive has the same colour on both sides of the wipe
// and the colour means its depth rank (far blue to near red) wherever it is drawn. Groups run in
// two dimensions: one dimension's count is capped at 65535, below a large scene's 2^31 / 256.
layout(local_size_x = 256) in;
layout(std430, binding = 3) readonly buffer Order { uint order[]; };    // sorted primitive ids
layout(std430, binding = 9) writeonly buffer RankOf { uint rank_of[]; };  // id -> sorted position
uniform uint u_primitives;

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint position = group * 256u + gl_LocalInvocationID.x;
  if (position >= u_primitives) return;
  const uint id = order[position];
  if (id < u_primitives) rank_of[id] = position;
}
