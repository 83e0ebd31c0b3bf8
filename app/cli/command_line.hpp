// The command line of `depthsort` (CLI11): one Config struct, parsed once; errors name the flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scene/camera.hpp"
#include "settings.hpp"

namespace depthsort::app {

// A command-line mistake: main prints it with a pointer to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class SceneKind { Knot, Test, Mixed, None };

// The command line: the settings it starts with (Settings, which the panel then edits) and what
// only the command line sets.
struct Config : Settings {
  // Scene
  SceneKind scene = SceneKind::Knot;
  std::vector<std::string> meshes;             // --mesh FILE (several allowed); replaces the knot
  std::optional<std::size_t> copies;           // --copies N
  std::optional<std::size_t> triangles;        // --triangles N (tiles meshes / sizes the knot)
  std::optional<std::size_t> particles;        // --particles N
  std::optional<float> given_opacity;          // --opacity A (else the scene's own)
  // Sorting
  std::string sorter;                          // --sorter NAME (empty: the default for the path)
  std::string sorter_options;                  // --sorter-options a=1,b=0
  bool force_cpu = false;                      // --cpu
  bool cycle_sorters = false;                  // --cycle-sorters (every frame the next sorter/options)
  // Running
  bool headless = false;                       // --headless
  std::optional<std::uint64_t> frames;         // --frames N (headless default 60; windowed: until closed)
  int width = 1280, height = 720;              // --size WxH
  CameraPath camera_path = CameraPath::None;   // --camera-path orbit|fly-through|cuts|none
  std::string screenshot;                      // --screenshot FILE.png
  std::string json;                            // --json FILE
  bool draw = true;                            // --no-draw
  bool quiet = false;                          // --quiet
  bool panel = false;                          // --panel: headless screenshots show the panel
};

// "pull" or "expanded": the --draw-path value, for the console, the panel and --json.
const char* draw_path_name(DrawPath path);

enum class CliAction { Run, Help, Version };

struct CliResult {
  CliAction action = CliAction::Run;
  Config config;
};

// Throws UsageError naming the offending argument. Sorter names are checked against the registry
// here (unknown names list the valid ones); counts use depthsort/host/count_text.hpp (K, M, G binary).
CliResult parse_command_line(int argc, const char* const* argv);
std::string help_text();
std::string version_text();

}  // namespace depthsort::app
