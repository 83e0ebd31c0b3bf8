// The demo's settings: the one struct that the command line fills (cli/), that the panel and the
// presenter keys edit while the program runs (ui/panel, loop/window_input), and that the frame
// loop compares with last frame's copy to decide what to rebuild (loop/frame_plan.hpp:
// settings_change); each frame's plan is derived from it once (plan_frame). It sits at app/'s
// root because every folder reads it and none of them owns it.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "depthsort/frame/frame_order.hpp"
#include "depthsort/sort/registry.hpp"
#include "scene/camera.hpp"
#include "scene/scene_spec.hpp"

namespace depthsort::app {

// How the single order is drawn: pull (primitive.vert reads order, triangle list and vertices
// from storage buffers) or expanded (CUDA, or the CPU path, writes three ready vertices a sorted
// position; depthsort/frame/expand.hpp).
enum class DrawPath { Pull, Expanded };
// "pull" or "expanded": the --draw-path value, for the console, the panel and --json.
constexpr const char* draw_path_name(DrawPath path) { return path == DrawPath::Expanded ? "expanded" : "pull"; }

// The primitives' colours: the scene's own, by rank in the sorted order (far blue to near red),
// or by the segment (bucket, sublist) the sorter put them in.
enum class ColourMode { Scene, Rank, Segment };
// "scene", "rank", "segment": the --colour value, for --json.
constexpr const char* colour_mode_name(ColourMode mode) {
  return mode == ColourMode::Rank ? "rank" : mode == ColourMode::Segment ? "segment" : "scene";
}

// How the transparent primitives are blended (render/transparency.hpp): every primitive sorted
// back to front and blended in that order (the sorter's order), blended in submission order
// (no depth or sort step), weighted blended order-independent transparency (McGuire & Bavoil
// 2013: one pass into weighted sums, one composite), or the exact per-pixel reference (an
// A-buffer: every fragment kept in per-pixel lists, each pixel's sorted by depth and blended).
enum class Transparency { Sorted, Unsorted, Weighted, Reference };
inline constexpr int kTransparencyModes = 4;
// "sorted", "unsorted", "wboit", "reference": the --transparency value, for the console, the
// panel, the on-screen state line and --json.
constexpr const char* transparency_mode_name(Transparency mode) {
  switch (mode) {
    case Transparency::Unsorted:
      return "unsorted";
    case Transparency::Weighted:
      return "wboit";
    case Transparency::Reference:
      return "reference";
    default:
      return "sorted";
  }
}
// The mode a --transparency value names (transparency_mode_name's), or none.
inline std::optional<Transparency> parse_transparency(std::string_view name) {
  for (int i = 0; i < kTransparencyModes; ++i)
    if (name == transparency_mode_name(static_cast<Transparency>(i))) return static_cast<Transparency>(i);
  return std::nullopt;
}
// Whether a mode's picture is exact per primitive order (sorted) or per pixel (reference), as
// opposed to a known approximation (unsorted, wboit).
constexpr bool transparency_exact(Transparency mode) {
  return mode == Transparency::Sorted || mode == Transparency::Reference;
}

struct TransparencySettings {
  Transparency mode = Transparency::Sorted;  // --transparency, the panel, key T
  // --difference: the mode's picture against the per-pixel reference, the pixels beyond the
  // tolerance (render/transparency.hpp: kDifferenceTolerance) highlighted.
  bool difference = false;
  // --fragment-budget N: the A-buffer holds N fragments, fixed (0: sized from the window and the
  // free memory, grown once a frame asks for more).
  std::size_t fragment_budget = 0;
  bool operator==(const TransparencySettings&) const = default;
};

struct Settings {
  // Scene (its counts are applied by the panel's "rebuild scene")
  SceneSpec scene;
  bool simulate = true;  // advance the particles
  float opacity = 0.3f;  // the scene's own, or --opacity
  bool lighting = true;  // the scene's own
  // Sorting
  int sorter_index = 0;   // into sorter_registry(); resolved from --sorter when the run starts
  OptionValues options;   // that sorter's options
  bool sort = true;       // --no-sort: draw in submission order
  bool freeze = false;    // keep the last order (depth, sort and gather skipped)
  int check_every = 30;   // --check-every N (frames between correctness checks)
  bool coherent = false;  // --coherent: depths in last frame's sorted order
  // --order sorter|fused: the depth pass and the sorter, or depth-bucket (the GPU path's fused
  // order, depthsort/frame/frame_order.hpp); the separate passes and the CPU path sort with the sorter.
  OrderMethod order = OrderMethod::Sorter;
  // Drawing
  bool separate_passes = false;  // --separate-passes: sort and draw meshes and particles apart (the wrong blend)
  ColourMode colour = ColourMode::Scene;  // --colour scene|rank|segment
  bool wipe_on = false;                   // --wipe F: unsorted left of F x width
  float wipe = 0.5f;                      // F, kept while the wipe is off
  bool triangle_sprites = true;           // --sprite-shape triangle (default) or quad
  DrawPath draw_path = DrawPath::Pull;    // --draw-path (fixed for the run: the expanded buffer is sized at start)
  TransparencySettings transparency;
  // Window
  bool vsync = true;  // --no-vsync
  CameraMode camera_mode = CameraMode::Orbit;
  bool show_panel = true;   // H
  bool fullscreen = false;  // F11
  bool show_help = false;   // F1
  // Presenting
  bool state_line = true;  // L, --no-state-line: one line over the picture saying what it shows
  // --ui-scale, + and -: fonts and widgets enlarged by this factor; 0 follows the window's size and
  // the monitor's content scale (ui/ui_scale.hpp)
  float ui_scale = 0.0f;

  bool operator==(const Settings&) const = default;
};

}  // namespace depthsort::app
