#include "settings.hpp"

namespace depthsort::app {

SettingsChange settings_change(const Settings& before, const Settings& now) noexcept {
  SettingsChange c;
  c.sorter = now.sorter_index != before.sorter_index || now.options != before.options;
  c.vsync = now.vsync != before.vsync;
  c.camera_mode = now.camera_mode != before.camera_mode;
  c.fullscreen = now.fullscreen != before.fullscreen;
  return c;
}

FramePlan plan_frame(const Settings& s, bool cycling_sorters) noexcept {
  FramePlan p;
  p.sort = s.sort;
  p.freeze = s.freeze;
  p.simulate = s.simulate;
  p.check_every = cycling_sorters ? 1 : s.check_every;  // cycling: every frame's sorter checked
  p.separate_passes = s.separate_passes;
  p.coherent = s.coherent;
  p.expanded = s.draw_path == DrawPath::Expanded;
  // Rank, segment and the wipe show the single order; the separate passes draw the scene's colours.
  p.colour_mode = s.separate_passes ? 0 : s.colour_mode;
  // The expanded draw colours its vertices itself; it reads no segment ids.
  p.segment_ids = !s.separate_passes && !p.expanded && p.colour_mode == static_cast<int>(ColourMode::Segment);
  p.draw.opacity = s.opacity;
  p.draw.lighting = s.lighting;
  p.draw.separate_passes = s.separate_passes;
  p.draw.triangle_sprites = s.triangle_sprites || p.expanded;  // the expanded draw's sprites are triangles
  p.draw.expanded = p.expanded;
  p.draw.colour = static_cast<ColourMode>(p.colour_mode);
  p.draw.wipe = s.wipe_on && !s.separate_passes ? s.wipe : -1.0f;
  return p;
}

}  // namespace depthsort::app
