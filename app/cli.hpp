// The command line of `depthsort` (CLI11): one Config struct, parsed once; errors name the flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scene/camera.hpp"

namespace depthsort::app {

// A command-line mistake: main prints it with a pointer to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class SceneKind { Knot, Test, Mixed, None };

// How the single order is drawn: pull (primitive.vert reads order, triangle list and vertices
// from storage buffers) or expanded (CUDA, or the CPU path, writes three ready vertices a sorted
// position; depthsort/expand.hpp).
enum class DrawPath { Pull, Expanded };

struct Config {
  // Scene
  SceneKind scene = SceneKind::Knot;
  std::vector<std::string> meshes;             // --mesh FILE (several allowed); replaces the knot
  std::optional<std::size_t> copies;           // --copies N
  std::optional<std::size_t> triangles;        // --triangles N (tiles meshes / sizes the knot)
  std::optional<std::size_t> particles;        // --particles N
  std::optional<float> opacity;                // --opacity A
  // Sorting
  std::string sorter;                          // --sorter NAME (empty: the default for the path)
  std::string sorter_options;                  // --sorter-options a=1,b=0
  bool force_cpu = false;                      // --cpu
  bool sort = true;                            // --no-sort
  int check_every = 30;                        // --check-every N (frames between correctness checks)
  bool cycle_sorters = false;                  // --cycle-sorters (every frame the next sorter/options)
  // Running
  bool headless = false;                       // --headless
  std::optional<std::uint64_t> frames;         // --frames N (headless default 60; windowed: until closed)
  int width = 1280, height = 720;              // --size WxH
  CameraPath camera_path = CameraPath::None;   // --camera-path orbit|fly-through|cuts|none
  std::string screenshot;                      // --screenshot FILE.png
  std::string json;                            // --json FILE
  bool draw = true;                            // --no-draw
  bool vsync = true;                           // --no-vsync
  bool quiet = false;                          // --quiet
  // Drawing and the frame's order (issues 12 and 13; the demo-frame block of cli.cpp)
  bool separate_passes = false;                // --separate-passes: sort and draw meshes and particles apart
  bool coherent = false;                       // --coherent: depths in last frame's sorted order
  int colour_mode = 0;                         // --colour scene|rank|segment (ColourMode)
  float wipe = -1.0f;                          // --wipe F: unsorted left of F x width; < 0 none
  bool panel = false;                          // --panel: headless screenshots show the panel
  bool triangle_sprites = true;                // --sprite-shape triangle (default) or quad
  DrawPath draw_path = DrawPath::Pull;         // --draw-path pull|expanded
};

// "pull" or "expanded": the --draw-path value, for the console, the panel and --json.
const char* draw_path_name(DrawPath path);

enum class CliAction { Run, Help, Version };

struct CliResult {
  CliAction action = CliAction::Run;
  Config config;
};

// Throws UsageError naming the offending argument. Sorter names are checked against the registry
// here (unknown names list the valid ones); counts use depthsort/count_text.hpp (K, M, G binary).
CliResult parse_command_line(int argc, const char* const* argv);
std::string help_text();
std::string version_text();

}  // namespace depthsort::app
