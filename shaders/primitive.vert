#version 450 core
// Every transparent primitive of a frame in ONE back-to-front order, by programmable vertex
// pulling: glDrawArrays(GL_TRIANGLES) with u_vertices (6 or 3) vertices per position of the
// sorted order; vertex k of position r fetches primitive id u_order[r] and, by its
// kind, a triangle's corner (k < 3; k >= 3 collapse to a point and draw nothing) or a corner of
// the particle's camera-facing sprite, sized in world units (no point-size clamp): with 6, a quad
// of two triangles; with 3 (--sprite-shape triangle), one triangle around the sprite's disc, which
// spends no vertex work on empty slots behind triangles at the cost of ~30% more discarded
// fragments per particle.
// Ids: id < u_triangles is triangle id, else particle id - u_triangles (depthsort/frame/depth.hpp).
layout(std430, binding = 0) readonly buffer MeshVertices { uint mesh_words[]; };      // MeshVertex: x y z rgba
layout(std430, binding = 1) readonly buffer MeshIndices { uint mesh_indices[]; };     // 3 per triangle
layout(std430, binding = 2) readonly buffer Particles { uint particle_words[]; };     // ParticleVertex: x y z size rgba
layout(std430, binding = 3) readonly buffer Order { uint order[]; };                  // sorted primitive ids
layout(std430, binding = 4) readonly buffer SegmentIds { uint segment_of_position[]; };
layout(std430, binding = 9) readonly buffer RankOf { uint rank_of[]; };  // id -> sorted position (rank_of.comp)
uniform mat4 u_view;
uniform mat4 u_projection;
uniform uint u_triangles;
uniform uint u_primitives;
uniform uint u_vertices;      // per primitive: 6 (quad sprites) or 3 (triangle sprites)
uniform uint u_first;         // position of this draw's first primitive (draws are split below 2^31 vertices)
uniform int u_identity;       // 1: submission order (the unsorted side of the wipe), not u_order
uniform int u_colour_mode;    // 0 the scene's colours, 1 by rank in the sorted order, 2 by segment
uniform float u_point_scale;  // framebuffer height / (2 tan(fov_y / 2)): world to pixels at depth 1
out vec3 v_view_position;
out vec4 v_colour;
out vec2 v_corner;
flat out int v_particle;

// The rank view's ramp over [0, 1]: far (blue) to near (red) through cyan, green and yellow, at
// full value, so that both ends are bright on a projector (depthsort/frame/expand.hpp: rank_ramp).
vec3 ramp(float t) {
  const float hue = 0.62 * (1.0 - clamp(t, 0.0, 1.0));
  const vec3 pure = clamp(abs(fract(hue + vec3(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
  return mix(vec3(1.0), pure, 0.75);
}
// Neighbouring segments get distinct colours (golden-ratio hue steps).
vec3 segment_colour(uint s) {
  float h = fract(float(s) * 0.61803398875);
  return clamp(abs(fract(h + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
}

void main() {
  const uint position = u_first + uint(gl_VertexID) / u_vertices;
  const uint corner = uint(gl_VertexID) % u_vertices;
  const uint id = u_identity != 0 ? position : order[position];
  v_corner = vec2(0.0);
  v_particle = 0;
  uint rgba = 0u;
  vec4 view_position;
  if (position >= u_primitives || id >= u_primitives || (id < u_triangles && corner >= 3u)) {
    // Nothing to draw: every vertex of the triangle at one point outside the clip volume.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    v_view_position = vec3(0.0);
    v_colour = vec4(0.0);
    return;
  }
  if (id < u_triangles) {
    const uint v = mesh_indices[3u * id + corner];
    const vec3 p = uintBitsToFloat(uvec3(mesh_words[4u * v], mesh_words[4u * v + 1u], mesh_words[4u * v + 2u]));
    rgba = mesh_words[4u * v + 3u];
    view_position = u_view * vec4(p, 1.0);
  } else {
    const uint base = 5u * (id - u_triangles);
    const vec4 ps = uintBitsToFloat(uvec4(particle_words[base], particle_words[base + 1u], particle_words[base + 2u],
                                          particle_words[base + 3u]));
    rgba = particle_words[base + 4u];
    // Quad corners (-1,-1) (1,-1) (1,1), (-1,-1) (1,1) (-1,1); or the equilateral triangle whose
    // inscribed circle is the unit disc (circumradius 2).
    const vec2 quad[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    const vec2 triangle[3] = vec2[3](vec2(0.0, 2.0), vec2(-1.7320508, -1.0), vec2(1.7320508, -1.0));
    v_corner = u_vertices == 3u ? triangle[corner] : quad[corner];
    v_particle = 1;
    const vec4 centre = u_view * vec4(ps.xyz, 1.0);
    // Half the world size, and at least half a pixel (as the point sprites' 1-pixel minimum).
    const float half_size = max(0.5 * ps.w, 0.5 * max(-centre.z, 1e-3) / u_point_scale);
    view_position = vec4(centre.xyz + vec3(v_corner * half_size, 0.0), 1.0);
  }
  vec4 colour = unpackUnorm4x8(rgba);
  if (u_colour_mode == 1) {
    // The rank in the sorted order, on the wipe's unsorted side too; opaque alpha (the frame's
    // opacity alone sets it), so the ramp's colours read as they are.
    const uint rank = u_identity != 0 ? rank_of[id] : position;
    colour = vec4(ramp(u_primitives > 1u ? float(rank) / float(u_primitives - 1u) : 0.0), 1.0);
  }
  else if (u_colour_mode == 2) colour.rgb = segment_colour(segment_of_position[position]);
  v_view_position = view_position.xyz;
  v_colour = colour;
  gl_Position = u_projection * view_position;
}
