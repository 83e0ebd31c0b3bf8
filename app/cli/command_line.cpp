// The command line through CLI11: it finds options, takes their values (the last of a repeated
// one wins) and writes --help from the same table; the values themselves are checked here, so
// that every message names the flag, quotes what was given and says what is valid.
#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
#include "ui/controls.hpp"
#include "scene/scene.hpp"

namespace depthsort::app {

std::string version_text() {
  return std::string("depthsort ") + DEPTHSORT_VERSION +
         " (per-frame GPU depth sorting of transparent geometry; CUDA-GL interop, EGL headless)";
}

namespace {

constexpr std::uint64_t kMaxFrames = 100'000'000;
constexpr std::uint64_t kMaxCopies = std::uint64_t{1} << 32;
constexpr int kMaxCheckEvery = 1'000'000;

// A count (depthsort/host/count_text.hpp spellings) in [min, max]; `what` names the unit in the
// message for a value above a fixed limit ("triangles").
std::uint64_t count_value(const std::string& flag, const std::string& text, std::uint64_t min, std::uint64_t max,
                          const std::string& why_limit = "") {
  std::string why;
  const auto any = parse_count(text, 0, std::numeric_limits<std::uint64_t>::max(), &why);
  if (!any)
    throw UsageError(flag + " needs a count such as 1000, 250K or 2^20, got " + quote_for_message(text) + " (" +
                     why + "; K, M, G are binary: 1K = 1024)");
  if (*any < min) throw UsageError(flag + " must be at least " + std::to_string(min) + ", got " + quote_for_message(text));
  if (*any > max)
    throw UsageError(flag + " " + quote_for_message(text) + " is " + std::to_string(*any) + ", above the limit of " +
                     std::to_string(max) + (why_limit.empty() ? "" : " " + why_limit));
  return *any;
}

// Greedy word wrap at `width` columns (CLI11 indents the lines after each '\n' under the column).
std::string wrap(const std::string& text, std::size_t width) {
  std::string out, line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}
constexpr std::size_t kHelpColumn = 26, kHelpWidth = 100;

std::string nonempty_file(const std::string& flag, const std::string& text) {
  if (text.empty()) throw UsageError(flag + " needs a file name, got ''");
  return text;
}

// Names of the registry's sorters, for --help.
std::string sorter_help() {
  return "one of: " + sorter_names() + " (default: hybrid where a CUDA device works, else cpu)";
}

const std::string kCountHelp = std::string("Counts (N): ") + std::string(kCountSpellings) + ".";

struct Cli {
  CLI::App app{"Draws transparent meshes and particles back to front, sorted every frame (on the GPU\n"
               "through CUDA-GL interop, or on the CPU where no CUDA device exists).",
               "depthsort"};

  explicit Cli(Config& c) {
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.set_help_flag("-h,--help", "print this help and exit");
    app.set_version_flag("--version", version_text(), "print the version and exit");
    app.get_formatter()->column_width(kHelpColumn);
    app.footer(controls_help() + "\n" + wrap(kCountHelp, kHelpWidth) + "\n" + wrap(limits_help(), kHelpWidth) + "\n" +
               wrap("Exit status: 0 success, 1 runtime error (bad OBJ file, memory, an output that cannot be written, "
                    "a wrong sorted order...), 2 usage error (a bad flag or value, a size above a fixed limit), "
                    "130 / 143 stopped by SIGINT / SIGTERM (the summary and --json still written).",
                    kHelpWidth));

    const auto text = [&](const std::string& names, const std::string& help, const char* type,
                          std::function<void(const std::string&)> take) {
      return app.add_option_function<std::string>(names, std::move(take), wrap(help, kHelpWidth - kHelpColumn))
          ->type_name(type);
    };
    const char* scene = "Scene";
    text("--mesh", "load an OBJ mesh (several --mesh allowed; replaces the default knot); a regular file or a pipe, "
                   "at most 1 GiB",
         "FILE", [&c](const std::string& v) { c.meshes.push_back(nonempty_file("--mesh", v)); })
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(scene);
    text("--scene", "knot (default: a procedural torus knot of ~2M triangles, scaled down on the CPU path), "
                    "test (3 overlapping triangles), mixed (a particle between two triangles), none",
         "NAME", [&c](const std::string& v) {
           if (v == "knot") c.scene = SceneKind::Knot;
           else if (v == "test") c.scene = SceneKind::Test;
           else if (v == "mixed") c.scene = SceneKind::Mixed;
           else if (v == "none") c.scene = SceneKind::None;
           else throw UsageError("--scene: unknown scene " + quote_for_message(v) +
                                 "; valid scenes: knot, test, mixed, none");
         })->group(scene);
    text("--copies", "tile the mesh (or the knot) N times", "N", [&c](const std::string& v) {
      c.copies = count_value("--copies", v, 1, kMaxCopies);
    })->group(scene);
    text("--triangles", "tile the meshes up to about N triangles; for the knot: generate it with about N triangles "
                        "(with --copies: N in all, over the copies)",
         "N", [&c](const std::string& v) {
           c.triangles = count_value("--triangles", v, 1, kMaxTriangles,
                                     "triangles (OpenGL draws at most 2^31-1 indices in one call)");
         })->group(scene);
    text("--particles", "add a CUDA-simulated particle fountain of N sprites", "N", [&c](const std::string& v) {
      c.particles = count_value("--particles", v, 0, kMaxParticles,
                                "particles (OpenGL draws at most 2^31-1 indices in one call)");
    })->group(scene);
    text("--opacity", "alpha multiplier in (0, 1]", "A", [&c](const std::string& v) {
      char* end = nullptr;
      const float a = std::strtof(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !(a > 0.0f && a <= 1.0f))
        throw UsageError("--opacity needs a number in (0, 1], got " + quote_for_message(v));
      c.given_opacity = a;
    })->group(scene);

    const char* sorting = "Sorting";
    text("--sorter", sorter_help(), "NAME", [&c](const std::string& v) {
      if (!find_sorter(v))
        throw UsageError("--sorter: unknown sorter " + quote_for_message(v) + "; valid sorters: " + sorter_names());
      c.sorter = v;
    })->group(sorting);
    text("--sorter-options", "options of the --sorter given, e.g. shuffle=1,buckets=1024 (dropped, with a note, "
                             "where that sorter cannot run and the CPU sorter does)",
         "LIST", [&c](const std::string& v) {
           if (v.empty() || v.front() == ',' || v.back() == ',' || v.find(",,") != std::string::npos)
             throw UsageError("--sorter-options " + quote_for_message(v) +
                              " has an empty entry; write name=value pairs separated by single commas");
           c.sorter_options = v;
         })->group(sorting);
    app.add_flag("--cycle-sorters", c.cycle_sorters,
                 wrap("every frame the next sorter of the registry that runs here, each with its option variants (the "
                 "defaults, then each flag flipped), all reserved up front; the order is checked every frame and "
                 "memory sampled every 1000 frames (summary and --json)", kHelpWidth - kHelpColumn))
        ->group(sorting);
    app.add_flag("--cpu", c.force_cpu, "depths and sorting on the CPU even where a GPU exists")->group(sorting);
    app.add_flag_callback("--no-sort", [&c] { c.sort = false; },
                          "draw in submission order (shows the artifacts sorting removes)")
        ->group(sorting);
    text("--check-every", "frames between asynchronous checks of the sorted order (default 30)", "N",
         [&c](const std::string& v) {
           c.check_every = static_cast<int>(count_value("--check-every", v, 1, kMaxCheckEvery));
         })->group(sorting);

    const char* running = "Running";
    app.add_flag("--headless", c.headless, "no window: EGL device platform, offscreen framebuffer")->group(running);
    text("--frames", "frames to run (headless default 60; windowed: until closed; at most 10^8)", "N",
         [&c](const std::string& v) { c.frames = count_value("--frames", v, 1, kMaxFrames); })->group(running);
    text("--size", "framebuffer size (default 1280x720; each side 1..16384)", "WxH",
         [&c](const std::string& v) { parse_size(v, c); })->group(running);
    text("--camera-path", "orbit: once around the scene over the frames; fly-through: a smooth closed path "
                          "through the middle of the scene and out past its bounds; cuts: the orbit, jumping to "
                          "another viewpoint every " + std::to_string(kCutEvery) +
                          " frames; none (default). Each frame's camera depends only on the frame index",
         "PATH", [&c](const std::string& v) {
           const auto path = parse_camera_path(v);
           if (!path)
             throw UsageError("--camera-path: unknown path " + quote_for_message(v) +
                              "; valid paths: orbit, fly-through, cuts, none");
           c.camera_path = *path;
         })->group(running);
    text("--screenshot", "write the last frame as PNG (written whole or not at all)", "FILE",
         [&c](const std::string& v) { c.screenshot = nonempty_file("--screenshot", v); })->group(running);
    text("--json", "write per-frame timings of every phase and sort step, and medians (written whole or not at all)",
         "FILE", [&c](const std::string& v) { c.json = nonempty_file("--json", v); })->group(running);
    app.add_flag_callback("--no-draw", [&c] { c.draw = false; },
                          wrap("run map/depth/sort/gather/unmap but do not draw (timing the compute part at "
                               "millions of primitives)", kHelpWidth - kHelpColumn))
        ->group(running);
    app.add_flag_callback("--no-vsync", [&c] { c.vsync = false; }, "windowed: swap without waiting for vertical sync")
        ->group(running);
    app.add_flag("--quiet", c.quiet, "print only errors")->group(running);
    add_frame_options(c, text);
  }

  // Drawing and the frame's order (issues 12 and 13), kept together for merges.
  template <class Text>
  void add_frame_options(Config& c, const Text& text) {
    const char* drawing = "Drawing";
    const int width = static_cast<int>(kHelpWidth - kHelpColumn);
    app.add_flag("--separate-passes", c.separate_passes,
                 wrap("sort the triangles and the particles apart and draw all triangles, then all particles (the "
                      "wrong blend where they mix; default: one order for every primitive, one draw)",
                      static_cast<std::size_t>(width)))
        ->group(drawing);
    app.add_flag("--coherent", c.coherent,
                 wrap("frame-coherent sorting: compute each frame's depths in the last frame's sorted order, so the "
                      "sorter gets nearly sorted input (still exact, still checked)", static_cast<std::size_t>(width)))
        ->group("Sorting");
    text("--colour", "scene (default), rank (by position in the sorted order, far blue to near red), segment (by "
                     "the bucket or sublist the sorter put each primitive in)",
         "MODE", [&c](const std::string& v) {
           if (v == "scene") c.colour_mode = 0;
           else if (v == "rank") c.colour_mode = 1;
           else if (v == "segment") c.colour_mode = 2;
           else throw UsageError("--colour: unknown mode " + quote_for_message(v) + "; valid modes: scene, rank, segment");
         })->group(drawing);
    text("--wipe", "split screen: unsorted blending left of F x width, sorted right of it (F in [0, 1])", "F",
         [&c](const std::string& v) {
           char* end = nullptr;
           const float f = std::strtof(v.c_str(), &end);
           if (v.empty() || end != v.c_str() + v.size() || !(f >= 0.0f && f <= 1.0f))
             throw UsageError("--wipe needs a number in [0, 1], got " + quote_for_message(v));
           c.wipe = f;
           c.wipe_on = true;
         })->group(drawing);
    text("--sprite-shape", "triangle (default: one triangle around the sprite's disc, three vertices a "
                           "primitive in the single order's draw) or quad (two triangles a particle, six vertices "
                           "a primitive: 31.3 ms against 20.9 a frame at 5M triangles + 1M particles on the H200)",
         "SHAPE", [&c](const std::string& v) {
           if (v == "quad") c.triangle_sprites = false;
           else if (v == "triangle") c.triangle_sprites = true;
           else throw UsageError("--sprite-shape: unknown shape " + quote_for_message(v) + "; valid shapes: quad, triangle");
         })->group(drawing);
    text("--draw-path", "pull (default: the vertex shader reads the order, the triangle list and the vertices "
                        "from storage buffers) or expanded (after the sort, CUDA, or the CPU path, writes three "
                        "ready vertices a sorted position into a vertex buffer of 60 bytes a primitive, drawn with "
                        "plain attributes; particles as one triangle, so not with --sprite-shape quad; not with "
                        "--separate-passes; the unsorted side of --wipe is drawn by pull)",
         "PATH", [&c](const std::string& v) {
           if (v == "pull") c.draw_path = DrawPath::Pull;
           else if (v == "expanded") c.draw_path = DrawPath::Expanded;
           else throw UsageError("--draw-path: unknown path " + quote_for_message(v) + "; valid paths: pull, expanded");
         })->group(drawing);
    app.add_flag("--panel", c.panel, "headless: draw the control panel into the frames (and the screenshot)")
        ->group(drawing);
  }

  // The window's controls (keys.hpp), one a line.
  static std::string controls_help() {
    std::string text = "Controls in the window (F1 shows them there too):\n";
    for (const ControlHelp& c : kControls) {
      std::string line = "  " + std::string(c.control);
      line.resize(std::max<std::size_t>(line.size() + 1, 22), ' ');
      text += line + c.action + "\n";
    }
    return text;
  }

  static std::string limits_help() {
    return "Limits (checked before anything is built): " + std::to_string(kMaxTriangles) + " triangles, " +
           std::to_string(kMaxParticles) + " particles (" + std::to_string(kMaxParticles) + " of both together), 10^8 frames; OBJ files up to 1 GiB, MTL files up to "
           "16 MiB; the scene's memory estimate must fit the host's available (and the GPU's free) memory.";
  }

  static void parse_size(const std::string& v, Config& c) {
    const auto x = v.find('x');
    const auto side = [&](const std::string& part, const char* which) {
      const auto n = part.size() <= 9 ? parse_digits(part) : std::nullopt;
      if (!n || *n < 1 || *n > 16384)
        throw UsageError("--size needs WxH with each side in 1..16384, such as 1280x720; the " + std::string(which) +
                         " in " + quote_for_message(v) + " is not");
      return static_cast<int>(*n);
    };
    if (x == std::string::npos) throw UsageError("--size needs WxH such as 1280x720, got " + quote_for_message(v));
    c.width = side(v.substr(0, x), "width");
    c.height = side(v.substr(x + 1), "height");
  }
};

// Checks across options, once all are known.
void check_combinations(Config& c) {
  if (c.cycle_sorters && !c.sorter.empty())
    throw UsageError("--cycle-sorters and --sorter exclude each other (cycling goes through every sorter)");
  if (c.cycle_sorters && !c.sort) throw UsageError("--cycle-sorters needs sorting on (drop --no-sort)");
  if (c.scene == SceneKind::Mixed && c.particles)
    throw UsageError("--particles: --scene mixed has its own single particle");
  if (c.panel && !c.draw) throw UsageError("--panel draws the panel over the frame; drop --no-draw");
  if (c.wipe_on && c.separate_passes)
    throw UsageError("--wipe compares the single order with submission order; drop --separate-passes");
  if (c.colour_mode != 0 && c.separate_passes)
    throw UsageError("--colour rank|segment colours the single order; drop --separate-passes");
  if (c.draw_path == DrawPath::Expanded) {
    if (c.separate_passes)
      throw UsageError("--draw-path expanded draws the single order; --separate-passes draws two others (drop one)");
    if (!c.triangle_sprites)  // triangles are the default: only --sprite-shape quad clears it
      throw UsageError("--draw-path expanded draws each particle as one triangle; drop --sprite-shape quad");
  }
  if (!c.meshes.empty() && c.copies && c.triangles)
    throw UsageError("--copies and --triangles both size the tiling of --mesh files; give one of them");
  if (c.meshes.empty() && c.scene != SceneKind::Knot && (c.copies || c.triangles))
    throw UsageError(std::string(c.copies ? "--copies" : "--triangles") + " sizes a mesh, but --scene " +
                     (c.scene == SceneKind::Test ? "test" : c.scene == SceneKind::Mixed ? "mixed" : "none") +
                     " has none to tile (use --mesh FILE or the knot)");
  // Options belong to one sorter: they are checked against the one asked for, not against the one
  // a machine without a GPU falls back to (the app drops them then, with a note).
  if (c.sorter.empty() && !c.sorter_options.empty())
    throw UsageError("--sorter-options needs --sorter NAME (the options are that sorter's)");
  if (!c.sorter_options.empty()) {
    try {
      parse_options(*find_sorter(c.sorter), c.sorter_options);
    } catch (const OptionError& e) {
      throw UsageError(std::string("--sorter-options: ") + e.what());
    }
  }
}

}  // namespace

const char* draw_path_name(DrawPath path) { return path == DrawPath::Expanded ? "expanded" : "pull"; }

std::string help_text() {
  Config scratch;
  return Cli(scratch).app.help();
}

CliResult parse_command_line(int argc, const char* const* argv) {
  CliResult result;
  Cli cli(result.config);
  try {
    cli.app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.action = CliAction::Help;
    return result;
  } catch (const CLI::CallForVersion&) {
    result.action = CliAction::Version;
    return result;
  } catch (const CLI::ExtrasError&) {
    const std::vector<std::string> extras = cli.app.remaining();
    const std::string first = extras.empty() ? std::string() : extras.front();
    throw UsageError(first.rfind("-", 0) == 0 ? "unknown option " + quote_for_message(first)
                                              : "unexpected argument " + quote_for_message(first) +
                                                    " (every value belongs to a flag, such as --mesh FILE)");
  } catch (const CLI::ArgumentMismatch& e) {
    throw UsageError(std::string(e.what()) + " (a value is missing)");
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  check_combinations(result.config);
  return result;
}

}  // namespace depthsort::app
