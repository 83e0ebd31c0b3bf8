// How a frame is drawn: what the renderer reads from the frame's plan (settings.hpp).
#pragma once

namespace depthsort::app {

enum class ColourMode { Scene, Rank, Segment };

struct DrawOptions {
  float opacity = 0.3f;
  bool lighting = true;
  bool separate_passes = false;  // the mesh's elements, then the particles' points (the old, wrong mix)
  ColourMode colour = ColourMode::Scene;
  // Split screen: left of this fraction of the width the primitives blend in submission order
  // (unsorted), right of it in the sorted order; < 0: no wipe.
  float wipe = -1.0f;
  bool triangle_sprites = true;  // particles as one triangle around the disc (3 vertices a primitive, not 6)
  // The single order from the expanded vertex buffer (--draw-path expanded; its sprites are
  // triangles); the wipe's unsorted side is still pulled.
  bool expanded = false;
  // The fraction of the framebuffer's width, from the left, that the panel covers: the image is
  // shifted right by half of it, so the scene is centred in the part the panel leaves free, and
  // the wipe's fraction is of that part (a shift of the image only: the order does not change).
  float covered_left = 0.0f;
};

}  // namespace depthsort::app
