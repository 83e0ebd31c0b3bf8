// The frame's plan: what one frame computes and draws, derived from the settings once a frame
// (plan_frame) and read by both pipelines (GPU and CPU) and by the renderer, each fact once. Every
// rule that ties one setting to another, or to the scene, lives in plan_frame. Also the diff of
// the settings against last frame's copy (settings_change), which decides what to rebuild.
#pragma once

#include <cstddef>

#include "depthsort/frame/particles.hpp"
#include "settings.hpp"

namespace depthsort::app {

struct Scene;

// The opacity of colours by rank (the scene's own opacity does not apply there).
inline constexpr float kRankOpacity = 0.8f;

struct FramePlan {
  // The compute part of the frame (both pipelines).
  bool order = false;     // depth, sort and gather run: the order is not frozen and there is something to order
  bool sort = false;      // the sort step: sorting on, on an ordered frame
  bool simulate = false;  // the particle step: a fountain of particles, simulation on
  bool separate = false;  // two orders, drawn one after the other (--separate-passes)
  bool coherent = false;  // depths asked in last frame's sorted order (where the pipeline has one)
  bool fused = false;     // the single order by depth-bucket (the GPU path; --order fused)
  bool expand = false;    // the expanded vertices written and drawn (--draw-path expanded, one order)
  bool segments = false;  // the per-position segment ids written (the pulled draw colours by segment)
  int check_every = 30;   // frames between checks of the sorted order (1 while cycling sorters)
  EmitterParams emitter;  // the fountain's rules, with this frame's time and step
  // The draw (the renderer, and the expand step's colours and sprite size).
  ColourMode colour = ColourMode::Scene;  // as drawn: the separate passes draw the scene's colours
  // Split screen: left of this fraction of the width the primitives blend in submission order
  // (unsorted), right of it in the sorted order; < 0: no wipe.
  float wipe = -1.0f;
  bool triangle_sprites = true;  // particles as one triangle around the disc (3 vertices a primitive, not 6)
  float opacity = 0.3f;
  bool lighting = true;
  float point_scale = 1.0f;  // world to pixels at view depth 1 for this framebuffer (render/renderer.hpp)
  // The fraction of the framebuffer's width, from the left, that the panel covers: the image is
  // shifted right by half of it, so the scene is centred in the part the panel leaves free, and
  // the wipe's fraction is of that part (a shift of the image only: the order does not change).
  float covered_left = 0.0f;
  // How the primitives blend (render/transparency.hpp). Only the sorted mode orders them: the
  // others draw submission order, so their frames have no depth, sort or gather step.
  Transparency transparency = Transparency::Sorted;
  bool difference = false;          // the mode's picture against the per-pixel reference
  std::size_t fragment_budget = 0;  // the A-buffer's, fixed (0: sized by the renderer)
};

// The frame's time: `now` in seconds (the particles' clock and the timings'), `dt` since the last
// frame (the particles' step).
struct FrameClock {
  double now = 0.0;
  float dt = 1.0f / 60.0f;
};

// The plan of one frame of `scene` from the settings, the frame's clock, its sprites' scale and
// the panel's share of its width; `cycling_sorters` (--cycle-sorters) checks every frame's order.
FramePlan plan_frame(const Settings& settings, const Scene& scene, FrameClock clock, float point_scale,
                     float covered_left, bool cycling_sorters) noexcept;

// What a change of settings from one frame to the next asks for.
struct SettingsChange {
  bool sorter = false;  // another sorter or other options: the pipeline is rebuilt
  bool vsync = false, camera_mode = false, fullscreen = false;
};
SettingsChange settings_change(const Settings& before, const Settings& now) noexcept;

}  // namespace depthsort::app
