#include "cli.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "depthsort/errors.hpp"
#include "depthsort/registry.hpp"

namespace depthsort::app {

std::string version_text() {
  return std::string("depthsort ") + DEPTHSORT_VERSION +
         " (per-frame GPU depth sorting of transparent geometry; CUDA-GL interop, EGL headless)";
}

std::string help_text() {
  return "Usage: depthsort [options]\n"
         "Draws transparent meshes and particles back to front, sorted every frame (on the GPU through\n"
         "CUDA-GL interop, or on the CPU where no CUDA device exists).\n"
         "\n"
         "Scene:\n"
         "  --mesh FILE            load an OBJ mesh (several allowed; replaces the default knot)\n"
         "  --scene NAME           knot (default: a procedural torus knot of ~2M triangles, scaled\n"
         "                         down on the CPU path), test (3 overlapping triangles), none\n"
         "  --copies N             tile the mesh N times\n"
         "  --triangles N          tile the mesh up to about N triangles (5M, 250K...); for the knot:\n"
         "                         generate it with about N triangles\n"
         "  --particles N          add a CUDA-simulated particle fountain of N sprites\n"
         "  --opacity A            alpha multiplier in (0, 1]\n"
         "Sorting:\n"
         "  --sorter NAME          one of: " + sorter_names() + "\n"
         "  --sorter-options LIST  options of the --sorter given, e.g. shuffle=1,buckets=1024 (dropped,\n"
         "                         with a note, where that sorter cannot run and the CPU sorter does)\n"
         "  --cpu                  depths and sorting on the CPU even where a GPU exists\n"
         "  --no-sort              draw in submission order (shows the artifacts sorting removes)\n"
         "  --check-every N        frames between asynchronous checks of the sorted order (default 30)\n"
         "Running:\n"
         "  --headless             no window: EGL device platform, offscreen framebuffer\n"
         "  --frames N             frames to run (headless default 60; windowed: until closed)\n"
         "  --size WxH             framebuffer size (default 1280x720)\n"
         "  --camera-path orbit    orbit the camera once around the scene over the frames\n"
         "  --screenshot FILE.png  write the last frame (headless)\n"
         "  --json FILE            write per-frame timings of every phase and sort step, and medians\n"
         "  --no-draw              run map/depth/sort/gather/unmap but do not draw (timing the compute\n"
         "                         part at millions of primitives)\n"
         "  --no-vsync             windowed: swap without waiting for vertical sync\n"
         "  --quiet                print only errors\n"
         "  --help, --version\n"
         "\n"
         "Exit status: 0 success, 1 runtime error (bad OBJ file, GPU memory, no display...), 2 usage error.\n";
}

std::size_t parse_count(const std::string& text, const char* flag) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, error] = std::from_chars(begin, end, value);
  if (error != std::errc{} || ptr == begin || !std::isfinite(value) || value < 0)
    throw UsageError(std::string(flag) + " needs a count such as 1000, 250K or 5M, got '" + text + "'");
  double scale = 1.0;
  if (ptr != end) {
    const std::string suffix(ptr, end);
    if (suffix == "K" || suffix == "k") scale = 1e3;
    else if (suffix == "M" || suffix == "m") scale = 1e6;
    else if (suffix == "G" || suffix == "g") scale = 1e9;
    else throw UsageError(std::string(flag) + " needs a count such as 1000, 250K or 5M, got '" + text + "'");
  }
  const double count = std::round(value * scale);
  if (count > 4.0e9) throw UsageError(std::string(flag) + " " + text + " is above 4G");
  return static_cast<std::size_t>(count);
}

namespace {

int parse_int(const std::string& text, const char* flag, int lo, int hi) {
  int value = 0;
  const auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || ptr != text.data() + text.size() || value < lo || value > hi)
    throw UsageError(std::string(flag) + " needs an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                     ", got '" + text + "'");
  return value;
}

}  // namespace

CliResult parse_command_line(int argc, const char* const* argv) {
  CliResult result;
  Config& c = result.config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      result.action = CliAction::Help;
      return result;
    } else if (arg == "--version") {
      result.action = CliAction::Version;
      return result;
    } else if (arg == "--mesh") {
      c.meshes.push_back(value());
    } else if (arg == "--scene") {
      const std::string name = value();
      if (name == "knot") c.scene = SceneKind::Knot;
      else if (name == "test") c.scene = SceneKind::Test;
      else if (name == "none") c.scene = SceneKind::None;
      else throw UsageError("--scene: unknown scene '" + name + "'; valid scenes: knot, test, none");
    } else if (arg == "--copies") {
      c.copies = parse_count(value(), "--copies");
      if (*c.copies == 0) throw UsageError("--copies must be at least 1");
    } else if (arg == "--triangles") {
      c.triangles = parse_count(value(), "--triangles");
      if (*c.triangles == 0) throw UsageError("--triangles must be at least 1");
    } else if (arg == "--particles") {
      c.particles = parse_count(value(), "--particles");
    } else if (arg == "--opacity") {
      const std::string text = value();
      char* end = nullptr;
      const float a = std::strtof(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(a > 0.0f && a <= 1.0f))
        throw UsageError("--opacity needs a number in (0, 1], got '" + text + "'");
      c.opacity = a;
    } else if (arg == "--sorter") {
      c.sorter = value();
      if (!find_sorter(c.sorter))
        throw UsageError("--sorter: unknown sorter '" + c.sorter + "'; valid sorters: " + sorter_names());
    } else if (arg == "--sorter-options") {
      c.sorter_options = value();
    } else if (arg == "--cycle-sorters") {
      c.cycle_sorters = true;
    } else if (arg == "--cpu") {
      c.force_cpu = true;
    } else if (arg == "--no-sort") {
      c.sort = false;
    } else if (arg == "--check-every") {
      c.check_every = parse_int(value(), "--check-every", 1, 1000000);
    } else if (arg == "--headless") {
      c.headless = true;
    } else if (arg == "--frames") {
      c.frames = static_cast<std::uint64_t>(parse_int(value(), "--frames", 1, 100000000));
    } else if (arg == "--size") {
      const std::string text = value();
      const auto x = text.find('x');
      if (x == std::string::npos) throw UsageError("--size needs WxH such as 1280x720, got '" + text + "'");
      c.width = parse_int(text.substr(0, x), "--size (width)", 1, 16384);
      c.height = parse_int(text.substr(x + 1), "--size (height)", 1, 16384);
    } else if (arg == "--camera-path") {
      const std::string name = value();
      if (name == "orbit") c.orbit_path = true;
      else if (name == "none") c.orbit_path = false;
      else throw UsageError("--camera-path: unknown path '" + name + "'; valid paths: orbit, none");
    } else if (arg == "--screenshot") {
      c.screenshot = value();
    } else if (arg == "--json") {
      c.json = value();
    } else if (arg == "--no-draw") {
      c.draw = false;
    } else if (arg == "--no-vsync") {
      c.vsync = false;
    } else if (arg == "--quiet") {
      c.quiet = true;
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (c.cycle_sorters && !c.sorter.empty())
    throw UsageError("--cycle-sorters and --sorter exclude each other (cycling goes through every sorter)");
  if (c.cycle_sorters && !c.sort) throw UsageError("--cycle-sorters needs sorting on (drop --no-sort)");
  // Options belong to one sorter: they are checked against the one asked for, not against the one
  // a machine without a GPU falls back to (the app drops them then, with a note).
  if (c.sorter.empty() && !c.sorter_options.empty())
    throw UsageError("--sorter-options needs --sorter NAME (the options are that sorter's)");
  if (!c.sorter.empty() && !c.sorter_options.empty()) {
    try {
      parse_options(*find_sorter(c.sorter), c.sorter_options);
    } catch (const OptionError& e) {
      throw UsageError(std::string("--sorter-options: ") + e.what());
    }
  }
  return result;
}

}  // namespace depthsort::app
