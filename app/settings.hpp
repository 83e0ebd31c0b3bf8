// The demo's settings: ONE struct that the command line fills (Config derives from it, cli.hpp)
// and that the panel and the presenter keys edit while the program runs. The frame loop keeps last
// frame's copy and compares the two to decide what to rebuild (settings_change), and the frame's
// plan (which steps run, which draw, which colours) is derived from it once a frame (plan_frame)
// and read by both pipelines (GPU and CPU) and by the renderer.
#pragma once

#include <cstdint>

#include "depthsort/frame/particles.hpp"
#include "depthsort/sort/registry.hpp"
#include "render/draw_options.hpp"
#include "scene/camera.hpp"

namespace depthsort::app {

// How the single order is drawn: pull (primitive.vert reads order, triangle list and vertices
// from storage buffers) or expanded (CUDA, or the CPU path, writes three ready vertices a sorted
// position; depthsort/frame/expand.hpp).
enum class DrawPath { Pull, Expanded };

struct Settings {
  // Sorting
  int sorter_index = 0;       // into sorter_registry(); resolved from --sorter when the run starts
  OptionValues options;       // that sorter's options
  bool sort = true;           // --no-sort: draw in submission order
  bool freeze = false;        // keep the last order (depth, sort and gather skipped)
  int check_every = 30;       // --check-every N (frames between correctness checks)
  bool coherent = false;      // --coherent: depths in last frame's sorted order
  // Drawing
  bool separate_passes = false;  // --separate-passes: sort and draw meshes and particles apart (the wrong blend)
  int colour_mode = 0;           // --colour scene|rank|segment (ColourMode)
  bool wipe_on = false;          // --wipe F: unsorted left of F x width
  float wipe = 0.5f;             // F, kept while the wipe is off
  bool triangle_sprites = true;  // --sprite-shape triangle (default) or quad
  DrawPath draw_path = DrawPath::Pull;  // --draw-path (fixed for the run: the expanded buffer is sized at start)
  bool lighting = true;
  float opacity = 0.3f;          // the scene's, or --opacity
  // Scene (applied by "rebuild scene")
  int scene_particles = 0;
  int knot_triangles = 0;        // 0 when the scene is not the knot
  bool simulate = true;          // advance the particles
  // Window
  bool vsync = true;             // --no-vsync
  CameraMode camera_mode = CameraMode::Orbit;
  bool show_panel = true;        // H
  bool fullscreen = false;       // F11
  bool show_help = false;        // F1

  bool operator==(const Settings&) const = default;
};

// What a change of settings from one frame to the next asks for.
struct SettingsChange {
  bool sorter = false;  // another sorter or other options: the pipeline is rebuilt
  bool vsync = false, camera_mode = false, fullscreen = false;
};
SettingsChange settings_change(const Settings& before, const Settings& now) noexcept;

// The compute part of a frame as the settings ask for it (the pipelines add what their scene
// allows: no particles, nothing to order); see FramePipeline::steps.
struct FramePlan {
  bool sort = true;          // sorting on (a frozen frame keeps the order it last made)
  bool freeze = false;
  bool simulate = true;
  int check_every = 30;      // frames between correctness checks (1 while cycling sorters)
  bool separate_passes = false;
  bool coherent = false;
  bool segment_ids = false;  // fill the per-position segment ids (colour by segment, pulled draw)
  bool expanded = false;     // write the expanded vertex buffer (--draw-path expanded)
  int colour_mode = 0;       // ColourMode as drawn (the separate passes draw the scene's colours)
  float point_scale = 1.0f;  // renderer.hpp point_scale() for this frame's framebuffer
  EmitterParams emitter;     // time and dt set per frame
  DrawOptions draw;          // what the renderer does with the frame's order
};

// The frame's plan from the settings: every rule that ties one setting to another lives here
// (rank, segment and the wipe show the single order; the expanded draw's sprites are triangles;
// cycling sorters checks every frame).
FramePlan plan_frame(const Settings& settings, bool cycling_sorters) noexcept;

}  // namespace depthsort::app
