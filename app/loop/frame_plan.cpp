#include "loop/frame_plan.hpp"

#include "scene/scene.hpp"

namespace depthsort::app {

FramePlan plan_frame(const Settings& s, const Scene& scene, FrameClock clock, float point_scale, float covered_left,
                     bool cycling_sorters) noexcept {
  const std::size_t primitives = scene.mesh.triangles() + scene.particles;
  const bool expanded_path = s.draw_path == DrawPath::Expanded;
  // Only the sorted mode draws an order: the others need neither the depths nor the sort.
  const bool sorted_mode = s.transparency.mode == Transparency::Sorted;
  FramePlan p;
  p.order = !s.freeze && primitives > 0 && sorted_mode;
  p.sort = p.order && s.sort;
  p.simulate = scene.particles > 0 && s.simulate && scene.fixed_particles.empty();
  p.separate = s.separate_passes && sorted_mode;
  p.coherent = s.coherent;
  p.fused = s.order == OrderMethod::Fused && !p.separate;  // the separate passes sort with the sorter
  // The expanded draw draws the single order; the separate passes draw two others.
  p.expand = expanded_path && !p.separate && primitives > 0 && sorted_mode;
  // Rank, segment and the wipe show the single order; the separate passes draw the scene's colours.
  // The other modes draw submission order (its ranks mean nothing), and the difference view
  // compares the scene's colours.
  p.colour = p.separate || !sorted_mode || s.transparency.difference ? ColourMode::Scene : s.colour;
  // The expanded draw colours its vertices itself: it reads no segment ids.
  p.segments = p.order && !p.separate && !expanded_path && p.colour == ColourMode::Segment;
  p.check_every = cycling_sorters ? 1 : s.check_every;  // cycling: every frame's sorter checked
  p.emitter = scene.emitter;
  p.emitter.time = static_cast<float>(clock.now);
  p.emitter.dt = clock.dt;
  // The wipe splits the sorted mode's picture; the difference view has a picture of its own.
  p.wipe = s.wipe_on && !p.separate && sorted_mode && !s.transparency.difference ? s.wipe : -1.0f;
  p.triangle_sprites = s.triangle_sprites || expanded_path;  // the expanded draw's sprites are triangles
  p.opacity = s.opacity;
  p.lighting = s.lighting;
  // By rank the colours are the message: bright enough to read on a projector (no shading, and
  // alpha high enough that the nearest layers show their own colour).
  if (p.colour == ColourMode::Rank) {
    p.opacity = kRankOpacity;
    p.lighting = false;
  }
  p.point_scale = point_scale;
  p.covered_left = covered_left;
  p.transparency = s.transparency.mode;
  p.difference = s.transparency.difference;
  p.fragment_budget = s.transparency.fragment_budget;
  return p;
}

SettingsChange settings_change(const Settings& before, const Settings& now) noexcept {
  SettingsChange c;
  c.sorter = now.sorter_index != before.sorter_index || now.options != before.options;
  c.vsync = now.vsync != before.vsync;
  c.camera_mode = now.camera_mode != before.camera_mode;
  c.fullscreen = now.fullscreen != before.fullscreen;
  return c;
}

}  // namespace depthsort::app
