// The expanded draw path (it takes the vertex cost out of the draw): after the sort, every sorted
// position r becomes three ready vertices at [3r, 3r + 3) of a GL vertex buffer, so that GL draws
// glDrawArrays(GL_TRIANGLES) with plain vertex attributes and a vertex shader that only
// transforms. The pulled draw (shaders/primitive.vert) spends 3 or 6 vertex invocations a
// primitive on dependent random reads of storage buffers (order -> triangle list -> vertex); here
// one CUDA thread a primitive does them once. The pixels are the pulled draw's with
// --sprite-shape triangle: the same corners, the same colour modes (ramp() and segment_colour()
// are primitive.vert's, ported), the same sprite size rule.
//
// expand_primitive is __host__ __device__: the CPU path runs it on the host, so CI's pixel tests
// cover the expansion that the GPU path's kernel (kernels/frame/expand.cu) runs.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/frame/segment_ids.hpp"

namespace depthsort {

// One vertex of the expanded buffer: world-space position, RGBA8 colour with the colour mode
// applied (r in the low byte), and the sprite's corner in the disc's units divided by 2, as
// normalized int16 (the triangle sprite's corners reach radius 2). A triangle's corner is (0, 0)
// at all three vertices, a sprite's never is: the vertex shader reads that as the particle flag,
// which keeps the vertex at 20 bytes.
struct ExpandedVertex {
  float x, y, z;
  std::uint32_t rgba;
  std::int16_t corner[2];
};
static_assert(sizeof(ExpandedVertex) == 20);

// What the expansion needs of the camera and the draw. right and up are rows 0 and 1 of the view
// matrix (a rigid transform, so they are the camera's axes in world space).
struct ExpandView {
  float right[3] = {1, 0, 0}, up[3] = {0, 1, 0};
  DepthPlane plane{};             // row 2 of the view matrix: a sprite's distance for its size rule
  float point_scale = 1.0f;       // framebuffer height / (2 tan(fov_y / 2)): world to pixels at depth 1
  std::uint32_t colour_mode = 0;  // 0 the scene's colours, 1 by rank in the order, 2 by segment
};

// primitive.vert's colour ramp over [0, 1]: far (blue) to near (red) through cyan, green and
// yellow, at full value (both ends bright on a projector).
DEPTHSORT_HD void rank_ramp(float t, float rgb[3]) {
  const float hue = 0.62f * (1.0f - fminf(fmaxf(t, 0.0f), 1.0f));
  const float offset[3] = {1.0f, 2.0f / 3.0f, 1.0f / 3.0f};
  for (int c = 0; c < 3; ++c) {
    const float y = hue + offset[c];
    const float pure = fminf(fmaxf(fabsf((y - floorf(y)) * 6.0f - 3.0f) - 1.0f, 0.0f), 1.0f);
    rgb[c] = 0.25f + 0.75f * pure;
  }
}

// primitive.vert's colour of segment s: golden-ratio hue steps, so neighbours differ.
DEPTHSORT_HD void segment_rgb(std::uint32_t s, float rgb[3]) {
  const float x = static_cast<float>(s) * 0.61803398875f;
  const float h = x - floorf(x);
  const float offset[3] = {0.0f, 2.0f / 3.0f, 1.0f / 3.0f};
  for (int c = 0; c < 3; ++c) {
    const float y = h + offset[c];
    rgb[c] = fminf(fmaxf(fabsf((y - floorf(y)) * 6.0f - 3.0f) - 1.0f, 0.0f), 1.0f);
  }
}

// rgb in [0, 1] as the low three bytes, with `rgba`'s alpha byte kept.
DEPTHSORT_HD std::uint32_t with_rgb(std::uint32_t rgba, const float rgb[3]) {
  std::uint32_t out = rgba & 0xFF000000u;
  for (int c = 0; c < 3; ++c)
    out |= static_cast<std::uint32_t>(fminf(fmaxf(rgb[c], 0.0f), 1.0f) * 255.0f + 0.5f) << (8 * c);
  return out;
}

// The primitive at sorted position r of n (ids: order[r], or r where order is null) as three
// vertices at out[0..2]. Triangles keep their corners and scene colours; a particle becomes its
// camera-facing triangle sprite, built in world space from the view's right and up axes with
// half-size max(size / 2, half a pixel at its depth). segment_starts (count of them, null or 0:
// one segment) are the sort's, indexed by position. An id out of range (a broken order) draws a
// zero-area triangle; the order check reports it.
DEPTHSORT_HD void expand_primitive(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                                   const ParticleVertex* particles, std::size_t n, const std::uint32_t* order,
                                   const std::uint32_t* segment_starts, std::uint32_t segment_count,
                                   const ExpandView& view, std::size_t r, ExpandedVertex* out) {
  const std::uint32_t id = order ? order[r] : static_cast<std::uint32_t>(r);
  if (id >= n) {
    for (int k = 0; k < 3; ++k) out[k] = ExpandedVertex{0.0f, 0.0f, 0.0f, 0u, {0, 0}};
    return;
  }
  if (id < triangles) {
    for (int k = 0; k < 3; ++k) {
      const MeshVertex& v = vertices[indices[3 * static_cast<std::size_t>(id) + static_cast<std::size_t>(k)]];
      out[k] = ExpandedVertex{v.x, v.y, v.z, v.rgba, {0, 0}};
    }
  } else {
    // The equilateral triangle whose inscribed circle is the unit disc (circumradius 2), as in
    // primitive.vert, and its corners as stored (halved, in normalized int16, rounded).
    constexpr float corner[3][2] = {{0.0f, 2.0f}, {-1.7320508f, -1.0f}, {1.7320508f, -1.0f}};
    constexpr std::int16_t stored[3][2] = {{0, 32767}, {-28378, -16384}, {28378, -16384}};
    const ParticleVertex p = particles[id - triangles];
    const float depth = fmaxf(-point_key(view.plane, p.x, p.y, p.z), 1e-3f);
    const float half = fmaxf(0.5f * p.size, 0.5f * depth / view.point_scale);
    for (int k = 0; k < 3; ++k) {
      const float cx = corner[k][0] * half, cy = corner[k][1] * half;
      out[k] = ExpandedVertex{p.x + cx * view.right[0] + cy * view.up[0],
                              p.y + cx * view.right[1] + cy * view.up[1],
                              p.z + cx * view.right[2] + cy * view.up[2],
                              p.rgba,
                              {stored[k][0], stored[k][1]}};
    }
  }
  if (view.colour_mode == 0) return;
  float rgb[3];
  if (view.colour_mode == 1)
    rank_ramp(n > 1 ? static_cast<float>(r) / static_cast<float>(n - 1) : 0.0f, rgb);
  else
    segment_rgb(segment_starts && segment_count > 0
                    ? segment_of(segment_starts, segment_count, static_cast<std::uint32_t>(r))
                    : 0u,
                rgb);
  // The three vertices share the rank and the segment; by segment each keeps its own alpha, by
  // rank they are opaque (the frame's opacity alone sets it), as in primitive.vert.
  for (int k = 0; k < 3; ++k) out[k].rgba = with_rgb(view.colour_mode == 1 ? 0xFF000000u : out[k].rgba, rgb);
}

// The GPU expansion of every position r < n (kernels/frame/expand.cu): expand_primitive into
// out[3r..3r+2], written through shared memory so a block's stores are contiguous.
void launch_expand(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                   const ParticleVertex* particles, std::size_t n, const std::uint32_t* order, const Segments& segments,
                   const ExpandView& view, ExpandedVertex* out, cudaStream_t stream);

}  // namespace depthsort
