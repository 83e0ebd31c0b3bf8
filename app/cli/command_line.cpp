// The command line through CLI11: it finds options, takes their values (every occurrence: a
// repeated option that takes one value is an error) and writes --help from the same table; the
// values themselves are checked here, so that every message names the flag, quotes what was given
// and says what is valid.
#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <vector>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
#include "scene/scene.hpp"
#include "ui/controls.hpp"

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
    throw UsageError(flag + " needs a count such as 1000, 250K or 2^20, got " + quote_for_message(text) + " (" + why +
                     "; K, M, G are binary: 1K = 1024)");
  if (*any < min)
    throw UsageError(flag + " must be at least " + std::to_string(min) + ", got " + quote_for_message(text));
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
  CLI::App app{
      "Draws transparent meshes and particles back to front, sorted every frame (on the GPU\n"
      "through CUDA-GL interop, or on the CPU where no CUDA device exists).",
      "depthsort"};

  Cli(RunOptions& r, Settings& s) {
    // Flags without a value may be repeated (--quiet --quiet is still quiet); options with one take
    // every occurrence (values() below).
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.set_help_flag("-h,--help", "print this help and exit");
    app.set_version_flag("--version", version_text(), "print the version and exit");
    app.get_formatter()->column_width(kHelpColumn);
    app.footer(controls_help() + "\n" + wrap(kCountHelp, kHelpWidth) + "\n" + wrap(limits_help(), kHelpWidth) + "\n" +
               wrap("Exit status: 0 success, 1 runtime error (bad OBJ file, memory, an output that cannot be written, "
                    "a wrong sorted order...), 2 usage error (a bad flag or value, a flag that takes one value given "
                    "twice, a size above a fixed limit), 128 + the signal's number when a signal stopped it "
                    "(130 SIGINT, 143 SIGTERM, 129 SIGHUP...; the summary and --json still written).",
                    kHelpWidth));

    // Every option with a value takes every occurrence, one value each, so that none is dropped
    // unseen: a repeatable option (--mesh) uses them all, the others refuse a second one.
    const auto values = [&](const std::string& names, const std::string& help, const char* type,
                            std::function<void(const std::vector<std::string>&)> take) {
      return app
          .add_option_function<std::vector<std::string>>(names, std::move(take), wrap(help, kHelpWidth - kHelpColumn))
          ->type_name(type)
          ->expected(1)
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };
    const auto text = [&](const std::string& names, const std::string& help, const char* type,
                          std::function<void(const std::string&)> take) {
      return values(names, help, type, [names, take = std::move(take)](const std::vector<std::string>& given) {
        if (given.size() > 1) {
          std::string list;
          for (const std::string& v : given) list += (list.empty() ? "" : ", ") + quote_for_message(v);
          throw UsageError(names + " given " + std::to_string(given.size()) + " times (" + list +
                           "); it takes one value: give it once");
        }
        take(given.front());
      });
    };
    const char* scene = "Scene";
    values("--mesh",
           "load an OBJ mesh (several --mesh allowed, all drawn together; replaces the default knot); a "
           "regular file or a pipe, at most 1 GiB",
           "FILE",
           [&s](const std::vector<std::string>& given) {
             for (const std::string& v : given) s.scene.meshes.push_back(nonempty_file("--mesh", v));
           })
        ->group(scene);
    text("--scene",
         "knot (default: a procedural torus knot of ~2M triangles, scaled down on the CPU path), "
         "test (3 overlapping triangles), mixed (a particle between two triangles), intersect "
         "(triangles through each other and in a cycle: no order of whole triangles is right), none",
         "NAME",
         [&s](const std::string& v) {
           if (v == "knot")
             s.scene.kind = SceneKind::Knot;
           else if (v == "test")
             s.scene.kind = SceneKind::Test;
           else if (v == "mixed")
             s.scene.kind = SceneKind::Mixed;
           else if (v == "intersect")
             s.scene.kind = SceneKind::Intersect;
           else if (v == "none")
             s.scene.kind = SceneKind::None;
           else
             throw UsageError("--scene: unknown scene " + quote_for_message(v) +
                              "; valid scenes: knot, test, mixed, intersect, none");
         })
        ->group(scene);
    text("--copies", "tile the mesh (or the knot) N times", "N", [&s](const std::string& v) {
      s.scene.copies = count_value("--copies", v, 1, kMaxCopies);
    })->group(scene);
    text("--triangles",
         "tile the meshes up to about N triangles; for the knot: generate it with about N triangles "
         "(with --copies: N in all, over the copies)",
         "N",
         [&s](const std::string& v) {
           s.scene.triangles = count_value("--triangles", v, 1, kMaxTriangles,
                                           "triangles (OpenGL draws at most 2^31-1 indices in one call)");
         })
        ->group(scene);
    text("--particles",
         "a fountain of N particles, simulated on the GPU or, on the CPU path, the CPU (default: " +
             format_count(kDefaultParticlesGpu) + " on the GPU path and " + format_count(kDefaultParticlesCpu) +
             " on the CPU path with the default knot; none "
             "where --mesh, --triangles, --copies or another --scene sets the scene; 0: none)",
         "N",
         [&s](const std::string& v) {
           s.scene.particles = count_value("--particles", v, 0, kMaxParticles,
                                           "particles (OpenGL draws at most 2^31-1 indices in one call)");
         })
        ->group(scene);
    text("--opacity", "alpha multiplier in (0, 1]", "A", [&s](const std::string& v) {
      char* end = nullptr;
      const float a = std::strtof(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !(a > 0.0f && a <= 1.0f))
        throw UsageError("--opacity needs a number in (0, 1], got " + quote_for_message(v));
      s.scene.opacity = a;
    })->group(scene);

    const char* sorting = "Sorting";
    text("--sorter", sorter_help(), "NAME", [&r](const std::string& v) {
      if (!find_sorter(v))
        throw UsageError("--sorter: unknown sorter " + quote_for_message(v) + "; valid sorters: " + sorter_names());
      r.sorter = v;
    })->group(sorting);
    text("--sorter-options",
         "options of the --sorter given, e.g. shuffle=1,buckets=1024 (dropped, with a note, "
         "where that sorter cannot run and the CPU sorter does)",
         "LIST",
         [&r](const std::string& v) {
           if (v.empty() || v.front() == ',' || v.back() == ',' || v.find(",,") != std::string::npos)
             throw UsageError("--sorter-options " + quote_for_message(v) +
                              " has an empty entry; write name=value pairs separated by single commas");
           r.sorter_options = v;
         })
        ->group(sorting);
    app.add_flag("--cycle-sorters", r.cycle_sorters,
                 wrap("every frame the next sorter of the registry that runs here, each with its option variants (the "
                      "defaults, then each flag flipped), all reserved up front; the order is checked every frame and "
                      "memory sampled every 1000 frames (summary and --json)",
                      kHelpWidth - kHelpColumn))
        ->group(sorting);
    app.add_flag("--cpu", r.force_cpu, "depths and sorting on the CPU even where a GPU exists")->group(sorting);
    app.add_flag_callback(
           "--no-sort", [&s] { s.sort = false; }, "draw in submission order (shows the artifacts sorting removes)")
        ->group(sorting);
    text("--check-every", "frames between asynchronous checks of the sorted order (default 30)", "N",
         [&s](const std::string& v) {
           s.check_every = static_cast<int>(count_value("--check-every", v, 1, kMaxCheckEvery));
         })
        ->group(sorting);

    const char* running = "Running";
    app.add_flag("--headless", r.headless, "no window: EGL device platform, offscreen framebuffer")->group(running);
    text("--frames", "frames to run (headless default 60; windowed: until closed; at most 10^8)", "N",
         [&r](const std::string& v) { r.frames = count_value("--frames", v, 1, kMaxFrames); })
        ->group(running);
    text("--size", "framebuffer size (default 1280x720; each side 1..16384)", "WxH", [&r](const std::string& v) {
      parse_size(v, r);
    })->group(running);
    text("--camera-path",
         "orbit: once around the scene over the frames; fly-through: a smooth closed path "
         "through the middle of the scene and out past its bounds; cuts: the orbit, jumping to "
         "another viewpoint every " +
             std::to_string(kCutEvery) + " frames; none (default). Each frame's camera depends only on the frame index",
         "PATH",
         [&r](const std::string& v) {
           const auto path = parse_camera_path(v);
           if (!path)
             throw UsageError("--camera-path: unknown path " + quote_for_message(v) +
                              "; valid paths: orbit, fly-through, cuts, none");
           r.camera_path = *path;
         })
        ->group(running);
    text("--screenshot", "write the last frame as PNG (written whole or not at all)", "FILE",
         [&r](const std::string& v) { r.screenshot = nonempty_file("--screenshot", v); })
        ->group(running);
    text("--json", "write per-frame timings of every phase and sort step, and medians (written whole or not at all)",
         "FILE", [&r](const std::string& v) { r.json = nonempty_file("--json", v); })
        ->group(running);
    app.add_flag_callback(
           "--no-draw", [&r] { r.draw = false; },
           wrap("run map/depth/sort/gather/unmap but do not draw (timing the compute part at "
                "millions of primitives)",
                kHelpWidth - kHelpColumn))
        ->group(running);
    app.add_flag_callback(
           "--no-vsync", [&s] { s.vsync = false; }, "windowed: swap without waiting for vertical sync")
        ->group(running);
    app.add_flag("--quiet", r.quiet, "print only errors")->group(running);
    add_frame_options(r, s, text);
  }

  // Drawing and the frame's order.
  template <class Text>
  void add_frame_options(RunOptions& r, Settings& s, const Text& text) {
    const char* drawing = "Drawing";
    const int width = static_cast<int>(kHelpWidth - kHelpColumn);
    app.add_flag("--separate-passes", s.separate_passes,
                 wrap("sort the triangles and the particles apart and draw all triangles, then all particles (the "
                      "wrong blend where they mix; default: one order for every primitive, one draw)",
                      static_cast<std::size_t>(width)))
        ->group(drawing);
    app.add_flag("--coherent", s.coherent,
                 wrap("frame-coherent sorting: compute each frame's depths in the last frame's sorted order, so the "
                      "sorter gets nearly sorted input (still exact, still checked)",
                      static_cast<std::size_t>(width)))
        ->group("Sorting");
    text("--order",
         "sorter (default: the depth pass, then the sorter writing its ids straight into the draw "
         "order) or fused (depth-bucket, depthsort's own: the depths computed inside a sample sort's "
         "first pass, with the last frame's splitters; the cheapest order on the GPU path, see "
         "docs/algorithms/depth-bucket.md; the separate passes and the CPU path sort with the sorter)",
         "METHOD",
         [&s](const std::string& v) {
           if (v == "sorter")
             s.order = OrderMethod::Sorter;
           else if (v == "fused")
             s.order = OrderMethod::Fused;
           else
             throw UsageError("--order: unknown method " + quote_for_message(v) + "; valid methods: sorter, fused");
         })
        ->group("Sorting");
    text("--colour",
         "scene (default), rank (by position in the sorted order, far blue to near red), segment (by "
         "the bucket or sublist the sorter put each primitive in)",
         "MODE",
         [&s](const std::string& v) {
           if (v == "scene")
             s.colour = ColourMode::Scene;
           else if (v == "rank")
             s.colour = ColourMode::Rank;
           else if (v == "segment")
             s.colour = ColourMode::Segment;
           else
             throw UsageError("--colour: unknown mode " + quote_for_message(v) + "; valid modes: scene, rank, segment");
         })
        ->group(drawing);
    text("--wipe", "split screen: unsorted blending left of F x width, sorted right of it (F in [0, 1])", "F",
         [&s](const std::string& v) {
           char* end = nullptr;
           const float f = std::strtof(v.c_str(), &end);
           if (v.empty() || end != v.c_str() + v.size() || !(f >= 0.0f && f <= 1.0f))
             throw UsageError("--wipe needs a number in [0, 1], got " + quote_for_message(v));
           s.wipe = f;
           s.wipe_on = true;
         })
        ->group(drawing);
    text("--sprite-shape",
         "triangle (default: one triangle around the sprite's disc, three vertices a "
         "primitive in the single order's draw) or quad (two triangles a particle, six vertices "
         "a primitive: 31.3 ms against 20.9 a frame at 5M triangles + 1M particles on the H200)",
         "SHAPE",
         [&s](const std::string& v) {
           if (v == "quad")
             s.triangle_sprites = false;
           else if (v == "triangle")
             s.triangle_sprites = true;
           else
             throw UsageError("--sprite-shape: unknown shape " + quote_for_message(v) +
                              "; valid shapes: quad, triangle");
         })
        ->group(drawing);
    text("--draw-path",
         "pull (default: the vertex shader reads the order, the triangle list and the vertices "
         "from storage buffers) or expanded (after the sort, CUDA, or the CPU path, writes three "
         "ready vertices a sorted position into a vertex buffer of 60 bytes a primitive, drawn with "
         "plain attributes; particles as one triangle, so not with --sprite-shape quad; not with "
         "--separate-passes; the unsorted side of --wipe is drawn by pull)",
         "PATH",
         [&s](const std::string& v) {
           if (v == "pull")
             s.draw_path = DrawPath::Pull;
           else if (v == "expanded")
             s.draw_path = DrawPath::Expanded;
           else
             throw UsageError("--draw-path: unknown path " + quote_for_message(v) + "; valid paths: pull, expanded");
         })
        ->group(drawing);
    app.add_flag("--panel", r.panel,
                 wrap("headless: draw the control panel, the state line and the wipe's labels into the frames "
                      "(and the screenshot), laid out as in a window of that size",
                      static_cast<std::size_t>(width)))
        ->group(drawing);
    add_transparency_options(s, text);
    add_presenting_options(r, s, text);
  }

  // The transparency modes (docs/transparency.md).
  template <class Text>
  void add_transparency_options(Settings& s, const Text& text) {
    const char* group = "Transparency";
    text("--transparency",
         "sorted (default: every primitive in one back-to-front order), unsorted (submission "
         "order: no depth or sort step), wboit (weighted blended order-independent transparency, "
         "McGuire & Bavoil 2013: one pass, approximate), reference (exact per pixel: every "
         "fragment kept in per-pixel lists, sorted by depth and blended; costly)",
         "MODE",
         [&s](const std::string& v) {
           const auto mode = parse_transparency(v);
           if (!mode)
             throw UsageError("--transparency: unknown mode " + quote_for_message(v) +
                              "; valid modes: sorted, unsorted, wboit, reference");
           s.transparency.mode = *mode;
         })
        ->group(group);
    app.add_flag("--difference", s.transparency.difference,
                 wrap("show where the mode's picture differs from the per-pixel reference's by more than 2/255 in "
                      "a channel (orange to yellow: a larger difference), the rest dimmed; the count, share and "
                      "largest difference in the panel, the summary and --json",
                      kHelpWidth - kHelpColumn))
        ->group(group);
    text("--fragment-budget",
         "fragments the reference's per-pixel lists hold, fixed (default: 16 a pixel, grown "
         "to what a frame needs within a quarter of the free memory); pixels that lose "
         "fragments are counted and drawn in magenta stripes",
         "N",
         [&s](const std::string& v) {
           s.transparency.fragment_budget =
               count_value("--fragment-budget", v, 1, 0xFFFFFFFEu, "fragments (the lists' node indices are 32-bit)");
         })
        ->group(group);
  }

  // What the audience reads: the state line, the UI's size, and the words on screen for tests.
  template <class Text>
  void add_presenting_options(RunOptions& r, Settings& s, const Text& text) {
    const char* presenting = "Presenting";
    app.add_flag_callback(
           "--no-state-line", [&s] { s.state_line = false; },
           wrap("no line over the picture saying what it shows (sorted or not, frozen, the sorter, "
                "passes, colours, wipe); L turns it on and off",
                kHelpWidth - kHelpColumn))
        ->group(presenting);
    text("--ui-scale",
         "auto (default: from the window's size, 1 up to 1280x720, 1.5 at 1920x1080, 3 at "
         "3840x2160, and at least the monitor's content scale) or a factor in [0.75, 4] for the panel's fonts "
         "and widgets; + and - change it in the window",
         "S",
         [&s](const std::string& v) {
           if (v == "auto") {
             s.ui_scale = 0.0f;
             return;
           }
           char* end = nullptr;
           const float f = std::strtof(v.c_str(), &end);
           if (v.empty() || end != v.c_str() + v.size() || !(f >= 0.75f && f <= 4.0f))
             throw UsageError("--ui-scale needs auto or a number in [0.75, 4], got " + quote_for_message(v));
           s.ui_scale = f;
         })
        ->group(presenting);
    text("--ui-text",
         "write the words the last frame showed (the panel, the state line, notices, the wipe's "
         "labels) and where the panel's main controls were, to FILE: what tests read",
         "FILE", [&r](const std::string& v) { r.ui_text = nonempty_file("--ui-text", v); })
        ->group(presenting);
  }

  // The window's controls (ui/controls.hpp), one a line.
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
           std::to_string(kMaxParticles) + " particles (" + std::to_string(kMaxParticles) +
           " of both together), 10^8 frames; OBJ files up to 1 GiB, MTL files up to "
           "16 MiB; the scene's memory estimate must fit the host's available (and the GPU's free) memory.";
  }

  static void parse_size(const std::string& v, RunOptions& r) {
    const auto x = v.find('x');
    const auto side = [&](const std::string& part, const char* which) {
      const auto n = part.size() <= 9 ? parse_digits(part) : std::nullopt;
      if (!n || *n < 1 || *n > 16384)
        throw UsageError("--size needs WxH with each side in 1..16384, such as 1280x720; the " + std::string(which) +
                         " in " + quote_for_message(v) + " is not");
      return static_cast<int>(*n);
    };
    if (x == std::string::npos) throw UsageError("--size needs WxH such as 1280x720, got " + quote_for_message(v));
    r.width = side(v.substr(0, x), "width");
    r.height = side(v.substr(x + 1), "height");
  }
};

// Checks across options, once all are known.
void check_combinations(const RunOptions& r, const Settings& s) {
  if (r.cycle_sorters && !r.sorter.empty())
    throw UsageError("--cycle-sorters and --sorter exclude each other (cycling goes through every sorter)");
  if (r.cycle_sorters && !s.sort) throw UsageError("--cycle-sorters needs sorting on (drop --no-sort)");
  if (r.cycle_sorters && s.transparency.mode != Transparency::Sorted)
    throw UsageError("--cycle-sorters sorts every frame; --transparency " +
                     std::string(transparency_mode_name(s.transparency.mode)) + " does not sort (drop one)");
  if (s.scene.kind == SceneKind::Mixed && s.scene.particles)
    throw UsageError("--particles: --scene mixed has its own single particle");
  if (r.panel && !r.draw) throw UsageError("--panel draws the panel over the frame; drop --no-draw");
  if (s.transparency.mode != Transparency::Sorted && s.separate_passes)
    throw UsageError(std::string("--separate-passes is a way to sort; --transparency ") +
                     transparency_mode_name(s.transparency.mode) + " does not sort (drop one)");
  if (s.transparency.mode != Transparency::Sorted && s.wipe_on)
    throw UsageError("--wipe splits the sorted picture; use it with --transparency sorted");
  if (s.transparency.difference && s.colour != ColourMode::Scene)
    throw UsageError("--difference compares the scene's colours with the reference's; drop --colour");
  if (s.transparency.difference && s.wipe_on)
    throw UsageError("--difference and --wipe each fill the picture; give one of them");
  if (!r.ui_text.empty() && r.headless && !r.panel)
    throw UsageError("--ui-text writes the words of the panel and the state line; headless, add --panel");
  if (s.wipe_on && s.separate_passes)
    throw UsageError("--wipe compares the single order with submission order; drop --separate-passes");
  if (s.colour != ColourMode::Scene && s.separate_passes)
    throw UsageError("--colour rank|segment colours the single order; drop --separate-passes");
  if (s.draw_path == DrawPath::Expanded) {
    if (s.separate_passes)
      throw UsageError("--draw-path expanded draws the single order; --separate-passes draws two others (drop one)");
    if (!s.triangle_sprites)  // triangles are the default: only --sprite-shape quad clears it
      throw UsageError("--draw-path expanded draws each particle as one triangle; drop --sprite-shape quad");
  }
  if (!s.scene.meshes.empty() && s.scene.copies && s.scene.triangles)
    throw UsageError("--copies and --triangles both size the tiling of --mesh files; give one of them");
  if (s.scene.meshes.empty() && s.scene.kind != SceneKind::Knot && (s.scene.copies || s.scene.triangles))
    throw UsageError(std::string(s.scene.copies ? "--copies" : "--triangles") + " sizes a mesh, but --scene " +
                     (s.scene.kind == SceneKind::Test        ? "test"
                      : s.scene.kind == SceneKind::Mixed     ? "mixed"
                      : s.scene.kind == SceneKind::Intersect ? "intersect"
                                                             : "none") +
                     " has none to tile (use --mesh FILE or the knot)");
  // Options belong to one sorter: they are checked against the one asked for, not against the one
  // a machine without a GPU falls back to (the app drops them then, with a note).
  if (r.sorter.empty() && !r.sorter_options.empty())
    throw UsageError("--sorter-options needs --sorter NAME (the options are that sorter's)");
  if (!r.sorter_options.empty()) {
    try {
      parse_options(*find_sorter(r.sorter), r.sorter_options);
    } catch (const OptionError& e) {
      throw UsageError(std::string("--sorter-options: ") + e.what());
    }
  }
}

}  // namespace

std::string help_text() {
  RunOptions run;
  Settings settings;
  return Cli(run, settings).app.help();
}

CliResult parse_command_line(int argc, const char* const* argv) {
  CliResult result;
  Cli cli(result.run, result.settings);
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
  check_combinations(result.run, result.settings);
  return result;
}

}  // namespace depthsort::app
