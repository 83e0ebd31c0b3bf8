// The demo's CI tests (no GPU needed): the headless frame loop on Mesa's EGL device platform with
// the CPU path, checked by the pixels of a known scene; the command line; the OBJ loader; and the
// per-element functions the GPU kernels share with the CPU path.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <cstdlib>
#include <string>
#include <utility>

#include "cli/command_line.hpp"
#include "depthsort/frame/depth.hpp"
#include "depthsort/frame/gather.hpp"
#include "loop/frame_pipeline.hpp"
#include "depthsort/frame/particles.hpp"
#include "scene/camera.hpp"
#include "scene/mesh.hpp"
#include "scene/obj_loader.hpp"
#include "support.hpp"
#include "loop/timings.hpp"

namespace depthsort::app::test {
namespace {

constexpr int kW = 160, kH = 120;

Image render_test_scene(const std::string& name, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--headless", "--cpu", "--screenshot", out_path(name), "--quiet"};
  // The test scene's defaults where the case gives no value of its own (a flag that takes one value
  // is given once).
  for (const auto& [flag, value] : {std::pair{"--scene", "test"}, {"--size", "160x120"}, {"--frames", "3"}})
    if (std::find(extra.begin(), extra.end(), flag) == extra.end()) args.insert(args.end(), {flag, value});
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult r = run_depthsort(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return read_png(out_path(name));
}

void expect_pixel(const Image& image, int x, int y, std::array<int, 3> want, const char* what) {
  const auto got = image.at(x, y);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(got[static_cast<std::size_t>(c)], want[static_cast<std::size_t>(c)], 2)
        << what << ": channel " << c << " at (" << x << "," << y << ") is (" << got[0] << "," << got[1] << "," << got[2]
        << "), want (" << want[0] << "," << want[1] << "," << want[2] << ")";
}

int max_channel_difference(std::array<int, 3> a, std::array<int, 3> b) {
  int d = 0;
  for (std::size_t c = 0; c < 3; ++c) d = std::max(d, std::abs(a[c] - b[c]));
  return d;
}

// ------------------------------------------------------------------ the pixels of sorting

TEST(HeadlessBlend, SortedSceneEqualsBackToFrontBlend) {
  const std::array<int, 3> back_to_front = expected_blend({0, 1, 2});  // red (far), green, blue (near)
  const std::array<int, 3> submission = expected_blend({2, 1, 0});     // blue first: the unsorted order
  // The scene must tell the two orders apart, or the test would prove nothing.
  ASSERT_GT(max_channel_difference(back_to_front, submission), 60);
  const Image image = render_test_scene("sorted.png", {});
  ASSERT_EQ(image.width, kW);
  ASSERT_EQ(image.height, kH);
  expect_pixel(image, kW / 2, kH / 2, back_to_front, "centre, sorted back to front");
  EXPECT_GT(max_channel_difference(
                {image.at(kW / 2, kH / 2)[0], image.at(kW / 2, kH / 2)[1], image.at(kW / 2, kH / 2)[2]}, submission),
            60)
      << "the centre pixel looks like the unsorted (or reversed) order";
  expect_pixel(image, 1, 1, {0, 0, 0}, "corner (background)");
}

TEST(HeadlessBlend, NoSortDrawsSubmissionOrder) {
  const Image image = render_test_scene("unsorted.png", {"--no-sort"});
  expect_pixel(image, kW / 2, kH / 2, expected_blend({2, 1, 0}), "centre, submission order");
}

TEST(HeadlessBlend, OrderFollowsTheCamera) {
  // Two frames of the orbit path: the last looks from behind (yaw + pi), where blue is farthest.
  const Image image = render_test_scene("behind.png", {"--camera-path", "orbit", "--frames", "2"});
  expect_pixel(image, kW / 2, kH / 2, expected_blend({2, 1, 0}), "centre seen from behind, sorted");
}

// One order: a particle (green) halfway between a near blue and a far red triangle. One
// order for every primitive blends red, green, blue; the separate passes draw both triangles
// first and the particle last, which is wrong, and the test must see the difference.
TEST(HeadlessBlend, OneOrderForTrianglesAndParticles) {
  const std::array<int, 3> one_order = expected_blend({0, 1, 2});
  const std::array<int, 3> separate = expected_blend({0, 2, 1});
  ASSERT_GT(max_channel_difference(one_order, separate), 60);
  for (const char* mode : {"", "--coherent", "--sprite-shape=triangle", "--draw-path=expanded"}) {
    std::vector<std::string> extra = {"--scene", "mixed", "--check-every", "1"};
    if (*mode) extra.push_back(mode);
    const Image image = render_test_scene(std::string("mixed") + (*mode ? mode + 2 : "") + ".png", extra);
    expect_pixel(image, kW / 2, kH / 2, one_order, "centre: red, then the green particle, then blue");
    expect_pixel(image, 1, 1, {0, 0, 0}, "corner (background)");
  }
  const Image wrong = render_test_scene("mixed_separate.png", {"--scene", "mixed", "--separate-passes"});
  expect_pixel(wrong, kW / 2, kH / 2, separate, "centre with --separate-passes: the particle over both triangles");
}

// The particle is a camera-facing quad with a round soft edge: green at its centre, none outside
// its radius (1 world unit wide, 4 units from the camera: about 31 pixels at 160x120), where only
// the red and blue triangles show.
TEST(HeadlessBlend, ParticleQuadIsRound) {
  for (const char* shape : {"quad", "triangle"}) {
    const Image image =
        render_test_scene(std::string("mixed_") + shape + ".png", {"--scene", "mixed", "--sprite-shape", shape});
    EXPECT_GT(image.at(kW / 2, kH / 2)[1], 50) << shape << ": no green particle at the centre";
    // 10 pixels up and right of the centre: inside the quad's square, outside its disc (r ~ 11 px).
    EXPECT_LE(image.at(kW / 2 + 10, kH / 2 - 10)[1], 2) << shape << ": drawn outside the disc";
    EXPECT_GT(image.at(kW / 2 + 4, kH / 2 - 4)[1], 20) << shape << ": the disc is missing inside its radius";
    EXPECT_GT(image.at(kW / 2, kH / 2 + 9)[1], 5) << shape << ": the disc is cut at its bottom";
  }
}

// --draw-path expanded writes the vertices that --sprite-shape triangle pulls: the same picture in
// every colour mode, with the wipe (whose unsorted side stays pulled), and on a scene of
// thousands of triangles and particles under a moving camera. Triangles are the same floats;
// sprite corners are rounded differently (world space, not view space), which may move an edge
// pixel, so a few pixels may differ by more than a step of rounding.
TEST(HeadlessBlend, ExpandedDrawEqualsPulledTriangleSprites) {
  const auto compare = [](const std::string& name, std::vector<std::string> extra, int allowed) {
    std::vector<std::string> pulled_args = extra, expanded_args = extra;
    pulled_args.insert(pulled_args.end(), {"--sprite-shape", "triangle"});
    expanded_args.insert(expanded_args.end(), {"--draw-path", "expanded"});
    const Image pulled = render_test_scene(name + "_pull.png", pulled_args);
    const Image expanded = render_test_scene(name + "_expanded.png", expanded_args);
    ASSERT_EQ(pulled.rgba.size(), expanded.rgba.size());
    int worst = 0, off = 0, lit = 0;
    for (std::size_t i = 0; i < pulled.rgba.size(); ++i) {
      const int d = std::abs(static_cast<int>(pulled.rgba[i]) - static_cast<int>(expanded.rgba[i]));
      worst = std::max(worst, d);
      off += d > 2 ? 1 : 0;
      lit += i % 4 != 3 && pulled.rgba[i] > 0 ? 1 : 0;  // colour, not alpha
    }
    EXPECT_LE(off, allowed) << name << ": " << off << " channels differ by more than 2 (worst " << worst << ")";
    EXPECT_GT(lit, 1000) << name << ": nothing drawn, so nothing compared";
  };
  for (const char* colour : {"scene", "rank", "segment"})
    compare(std::string("expanded_mixed_") + colour, {"--scene", "mixed", "--colour", colour}, 0);
  compare("expanded_wipe", {"--scene", "mixed", "--wipe", "0.3"}, 0);
  compare("expanded_knot",
          {"--scene", "knot", "--triangles", "3K", "--particles", "2K", "--camera-path", "orbit", "--frames", "4",
           "--size", "200x150"},
          20);
}

// The views that teach: left of the wipe the submission order, right of it
// the sorted order, each pixel as in the full-screen render of that order.
TEST(HeadlessBlend, WipeShowsUnsortedLeftAndSortedRight) {
  const Image wipe = render_test_scene("wipe.png", {"--wipe", "0.5"});
  const Image sorted = render_test_scene("wipe_sorted.png", {});
  const Image unsorted = render_test_scene("wipe_unsorted.png", {"--no-sort"});
  const auto rgb = [](const Image& image, int x, int y) {
    const auto p = image.at(x, y);
    return std::array<int, 3>{p[0], p[1], p[2]};
  };
  for (const int x : {kW / 2 - 8, kW / 2 - 3})
    expect_pixel(wipe, x, kH / 2, rgb(unsorted, x, kH / 2), "left of the wipe");
  for (const int x : {kW / 2 + 3, kW / 2 + 8})
    expect_pixel(wipe, x, kH / 2, rgb(sorted, x, kH / 2), "right of the wipe");
  ASSERT_GT(max_channel_difference(rgb(sorted, kW / 2 - 8, kH / 2), rgb(unsorted, kW / 2 - 8, kH / 2)), 60);
}

TEST(HeadlessBlend, ColourModesRun) {
  for (const char* mode : {"rank", "segment"}) {
    const Image image =
        render_test_scene(std::string("colour_") + mode + ".png", {"--scene", "mixed", "--colour", mode});
    expect_pixel(image, 1, 1, {0, 0, 0}, "corner (background)");
    const auto centre = image.at(kW / 2, kH / 2);
    EXPECT_GT(centre[0] + centre[1] + centre[2], 40) << mode;
  }
}

// Headless --panel draws the ImGui panel (top left) into the screenshot; without it that corner
// is background.
TEST(HeadlessRun, PanelIsDrawnIntoTheScreenshot) {
  const std::vector<std::string> common = {"--headless", "--cpu",    "--scene", "mixed",  "--size",
                                           "800x600",    "--frames", "3",       "--quiet"};
  auto args = common;
  args.insert(args.end(), {"--panel", "--screenshot", out_path("panel.png")});
  CommandResult r = run_depthsort(args);
  ASSERT_EQ(r.status, 0) << r.output;
  args = common;
  args.insert(args.end(), {"--screenshot", out_path("no_panel.png")});
  r = run_depthsort(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const Image with = read_png(out_path("panel.png")), without = read_png(out_path("no_panel.png"));
  int differing = 0;
  for (int y = 10; y < 200; ++y)
    for (int x = 10; x < 200; ++x) differing += with.at(x, y)[0] != without.at(x, y)[0] ? 1 : 0;
  EXPECT_GT(differing, 1000) << "no panel in the top-left corner";
  EXPECT_EQ(with.at(795, 5)[0], without.at(795, 5)[0]) << "the panel covers the whole frame";
  EXPECT_EQ(run_depthsort({"--headless", "--cpu", "--panel", "--no-draw", "--quiet"}).status, 2);
}

TEST(HeadlessRun, CoherentModeKeepsEveryCheckPassing) {
  const std::string json = out_path("coherent.json");
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--frames", "12", "--size", "200x120", "--triangles", "3K", "--particles",
                     "2K", "--camera-path", "orbit", "--coherent", "--check-every", "1", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("order checks: 12/12 passed"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["meta"]["coherent"], true);
  EXPECT_EQ(doc["meta"]["order"], "single");
  bool sort_steps = false;
  for (const auto& [label, ms] : doc["median_ms"].items()) sort_steps |= label.rfind("sort/", 0) == 0;
  EXPECT_TRUE(sort_steps) << "the sorter's per-step timings are missing from --json";
}

TEST(HeadlessRun, DefaultSceneWithParticlesRunsAndWritesJson) {
  const std::string json = out_path("default.json");
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--frames", "8", "--size", "200x120", "--particles",
                                         "5000", "--camera-path", "orbit", "--check-every", "2", "--json", json,
                                         "--screenshot", out_path("default.png")});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CPU path"), std::string::npos) << r.output;  // says so on the console
  EXPECT_NE(r.output.find("order checks: 4/4 passed"), std::string::npos) << r.output;
  FILE* f = std::fopen(json.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  for (const char* key : {"\"median_ms\"", "\"frame/depth\"", "\"frame/sort\"", "\"frame/draw\"", "\"frame/simulate\"",
                          "\"frames\": [", "\"path\": \"cpu\""})
    EXPECT_NE(text.find(key), std::string::npos) << key;
  // One order: the draw reads the sorted ids, there is nothing to gather (as on the GPU path).
  EXPECT_EQ(text.find("\"frame/gather\""), std::string::npos) << text;
}

TEST(HeadlessRun, UnwritableOutputFailsBeforeAnyFrame) {
  const std::string json = out_path("never.json");
  std::remove(json.c_str());
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "test", "--size", "64x64", "--frames", "2",
                                         "--screenshot", "/nonexistent-folder/x.png", "--json", json});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--screenshot: cannot create a temporary file in '/nonexistent-folder' for "
                          "'/nonexistent-folder/x.png': No such file or directory"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("path:"), std::string::npos) << "ran before checking its outputs: " << r.output;
  FILE* f = std::fopen(json.c_str(), "r");  // the check leaves no file behind
  EXPECT_EQ(f, nullptr);
  if (f) std::fclose(f);
}

TEST(HeadlessRun, TooManyParticlesOrTrianglesNameCountAndLimit) {
  // A fixed limit of the program is a usage error (exit status 2), found before building anything.
  CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "none", "--particles", "3G", "--frames", "1"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--particles '3G' is 3221225472, above the limit of 2147483647 particles"), std::string::npos)
      << r.output;
  r = run_depthsort({"--headless", "--cpu", "--triangles", "800M", "--frames", "1"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--triangles '800M' is 838860800, above the limit of 715827882 triangles"), std::string::npos)
      << r.output;
  // A product known once the OBJ is read (4 triangles x 200M copies): still a usage error, before tiling.
  r = run_depthsort({"--headless", "--cpu", "--mesh", data_path("good.obj"), "--copies", "200M", "--frames", "1"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("the scene would have 838860800 triangles, above the limit of 715827882"), std::string::npos)
      << r.output;
}

TEST(Windowed, NoDisplaySuggestsHeadless) {
  const CommandResult r = run_depthsort({"--frames", "2"}, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("run with --headless"), std::string::npos) << r.output;
}

TEST(Windowed, PanelFramesUnderXvfb) {
  if (!have_tool("xvfb-run")) GTEST_SKIP() << "xvfb-run not installed";
  const std::string png = out_path("windowed.png");
  std::remove(png.c_str());
  const CommandResult r = run_depthsort(
      {"--frames", "40", "--particles", "2000", "--triangles", "5K", "--cpu", "--size", "640x400", "--screenshot", png},
      "xvfb-run -a -s '-screen 0 800x600x24'");
  ASSERT_EQ(r.status, 0) << r.output;
  const Image image = read_png(png);  // the last frame, panel included
  EXPECT_EQ(image.width, 640);
  EXPECT_EQ(image.height, 400);
}

// ------------------------------------------------------------------ the command line

TEST(CommandLine, HelpAndVersion) {
  CommandResult r = run_depthsort({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("Usage: depthsort"), std::string::npos);
  EXPECT_NE(r.output.find("--headless"), std::string::npos);
  r = run_depthsort({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("depthsort " DEPTHSORT_VERSION), std::string::npos) << r.output;
}

TEST(CommandLine, UnknownOptionIsAUsageError) {
  const CommandResult r = run_depthsort({"--bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("unknown option '--bogus'"), std::string::npos) << r.output;
}

TEST(CommandLine, UnknownSorterListsTheValidOnes) {
  const CommandResult r = run_depthsort({"--sorter", "quicksort9000"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("unknown sorter 'quicksort9000'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("valid sorters: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cpu"), std::string::npos) << r.output;
}

TEST(CommandLine, BadValues) {
  EXPECT_EQ(run_depthsort({"--particles", "5X"}).status, 2);
  EXPECT_EQ(run_depthsort({"--size", "wide"}).status, 2);
  EXPECT_EQ(run_depthsort({"--frames"}).status, 2);
  EXPECT_EQ(run_depthsort({"--opacity", "3"}).status, 2);
}

TEST(CommandLine, SorterOptionsBelongToTheRequestedSorter) {
  // Checked against the sorter asked for: a usage error for bad options or options without --sorter.
  CommandResult r = run_depthsort({"--sorter-options", "shuffle=1"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--sorter-options needs --sorter"), std::string::npos) << r.output;
  r = run_depthsort({"--sorter", "hybrid", "--sorter-options", "bogus=1"});
  EXPECT_EQ(r.status, 2) << r.output;
  // Valid for hybrid, which cannot run with --cpu: the CPU sorter runs and the options are dropped
  // with a note, not rejected by the CPU sorter.
  r = run_depthsort({"--headless", "--cpu", "--scene", "test", "--size", "64x64", "--frames", "2", "--sorter", "hybrid",
                     "--sorter-options", "buckets=1024"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--sorter-options buckets=1024 (for hybrid) dropped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sorter: cpu"), std::string::npos) << r.output;
}

TEST(CommandLine, MissingObjExitsOneNamingTheFile) {
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--mesh", "/nonexistent/nope.obj"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent/nope.obj: no such file"), std::string::npos) << r.output;
}

TEST(CommandLine, MalformedObjExitsOneNamingFileAndLine) {
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--mesh", data_path("bad_face.obj")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad_face.obj:6: face refers to vertex 9"), std::string::npos) << r.output;
}

TEST(CommandLine, EmptyObjExitsOne) {
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--mesh", data_path("empty.obj")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("empty.obj: contains no faces"), std::string::npos) << r.output;
}

CliResult parse(std::vector<const char*> args) {
  args.insert(args.begin(), "depthsort");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(CommandLine, FrameOrderAndViewOptions) {
  const CliResult c = parse({"--coherent", "--colour", "segment", "--wipe", "0.25", "--sprite-shape", "triangle",
                             "--panel", "--scene", "mixed"});
  EXPECT_TRUE(c.settings.coherent);
  EXPECT_EQ(c.settings.colour, ColourMode::Segment);
  EXPECT_FLOAT_EQ(c.settings.wipe, 0.25f);
  EXPECT_TRUE(c.settings.triangle_sprites);
  EXPECT_TRUE(c.run.panel);
  EXPECT_EQ(c.settings.scene.kind, SceneKind::Mixed);
  EXPECT_TRUE(parse({"--separate-passes"}).settings.separate_passes);
  EXPECT_THROW(parse({"--wipe", "1.5"}), UsageError);
  EXPECT_THROW(parse({"--wipe", "half"}), UsageError);
  EXPECT_THROW(parse({"--colour", "blue"}), UsageError);
  EXPECT_THROW(parse({"--sprite-shape", "circle"}), UsageError);
  EXPECT_THROW(parse({"--separate-passes", "--wipe", "0.5"}), UsageError);
  EXPECT_THROW(parse({"--separate-passes", "--colour", "rank"}), UsageError);
  EXPECT_THROW(parse({"--panel", "--no-draw"}), UsageError);
  EXPECT_THROW(parse({"--scene", "mixed", "--particles", "10"}), UsageError);
}

TEST(CommandLine, DrawPath) {
  EXPECT_EQ(parse({}).settings.draw_path, DrawPath::Pull);
  const Settings expanded = parse({"--draw-path", "expanded", "--wipe", "0.5", "--colour", "rank"}).settings;
  EXPECT_EQ(expanded.draw_path, DrawPath::Expanded);
  EXPECT_TRUE(expanded.triangle_sprites);  // its sprites are triangles
  EXPECT_EQ(parse({"--draw-path", "pull"}).settings.draw_path, DrawPath::Pull);
  EXPECT_TRUE(parse({"--draw-path", "expanded", "--sprite-shape", "triangle"}).settings.triangle_sprites);
  EXPECT_THROW(parse({"--draw-path", "pushed"}), UsageError);
  EXPECT_THROW(parse({"--draw-path", "expanded", "--sprite-shape", "quad"}), UsageError);
  EXPECT_THROW(parse({"--draw-path", "expanded", "--separate-passes"}), UsageError);
  EXPECT_NE(help_text().find("--draw-path"), std::string::npos);
}

// The expanded draw's run: its expand step timed (and no gather), the path in --json and on the
// console, every order check passing.
TEST(HeadlessRun, ExpandedDrawPathIsTimedAndReported) {
  const std::string json = out_path("expanded.json");
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--frames", "6", "--size", "200x120", "--triangles", "3K", "--particles",
                     "2K", "--camera-path", "orbit", "--draw-path", "expanded", "--check-every", "1", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("order checks: 6/6 passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("draw path: expanded"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["meta"]["draw_path"], "expanded");
  EXPECT_EQ(doc["meta"]["sprite_shape"], "triangle");
  EXPECT_TRUE(doc["median_ms"].contains("frame/expand")) << doc["median_ms"].dump();
  EXPECT_FALSE(doc["median_ms"].contains("frame/gather")) << doc["median_ms"].dump();
}

TEST(CommandLine, ParseCounts) {
  // The shared spelling (depthsort/host/count_text.hpp), as in depthsort-bench: K, M, G are binary.
  EXPECT_EQ(parse({"--triangles", "5M"}).settings.scene.triangles, std::size_t{5} << 20);
  EXPECT_EQ(parse({"--triangles", "250K"}).settings.scene.triangles, 250u * 1024u);
  EXPECT_EQ(parse({"--particles", "2^20"}).settings.scene.particles, std::size_t{1} << 20);
  EXPECT_EQ(parse({"--triangles", "42"}).settings.scene.triangles, 42u);
  EXPECT_THROW(parse({"--frames", "3", "--frames", "5"}), UsageError);  // never silently the last one
  EXPECT_THROW(parse({"--triangles", "1.5M"}), UsageError);
  EXPECT_THROW(parse({"--triangles", "-3"}), UsageError);
  EXPECT_THROW(parse({"--triangles", "3Q"}), UsageError);
  EXPECT_THROW(parse({"--copies", "1.5"}), UsageError);
  EXPECT_THROW(parse({"--copies", "0"}), UsageError);
}

// ------------------------------------------------------------------ OBJ loading

TEST(ObjLoader, GoodFileWithMaterial) {
  const Mesh mesh = load_obj(data_path("good.obj"));
  ASSERT_EQ(mesh.triangles(), 4u);  // two triangles + a triangulated quad
  const std::uint32_t glass = pack_rgba({0.2f, 0.4f, 0.8f, 0.5f});
  int glassy = 0;
  for (std::size_t t = 0; t < mesh.triangles(); ++t) {
    const std::uint32_t rgba = mesh.vertices[mesh.indices[3 * t]].rgba;
    if (rgba == glass)
      ++glassy;
    else
      EXPECT_EQ(rgba >> 24, 255u);  // no material: opaque shape colour
  }
  EXPECT_EQ(glassy, 2);
  for (const std::uint32_t i : mesh.indices) EXPECT_LT(i, mesh.vertices.size());
}

void expect_scene_error(const std::string& file, const std::string& text) {
  try {
    load_obj(data_path(file));
    ADD_FAILURE() << file << " loaded without error";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(ObjLoader, BadFilesNameFileAndLine) {
  expect_scene_error("bad_vertex.obj", "bad_vertex.obj:3: vertex coordinate 'one'");
  expect_scene_error("bad_face.obj", "bad_face.obj:6:");
  expect_scene_error("short_face.obj", "short_face.obj:4: face with fewer than 3 vertices");
  expect_scene_error("no_faces.obj", "no_faces.obj: contains no faces");
  expect_scene_error("empty.obj", "empty.obj: contains no faces");
  expect_scene_error("missing.obj", "missing.obj: no such file");
  expect_scene_error("", "is a directory");
}

// ------------------------------------------------------------------ shared per-element functions

TEST(DepthKeys, AscendingIsFarToNear) {
  Camera camera;
  camera.target = glm::vec3(0.0f);
  camera.distance = 5.0f;
  camera.yaw = 0.7f;
  camera.pitch = -0.4f;
  const DepthPlane plane = camera.depth_plane();
  const glm::vec3 eye = camera.eye(), f = camera.forward();
  const glm::vec3 near_point = eye + 2.0f * f, far_point = eye + 9.0f * f;
  const float near_key = point_key(plane, near_point.x, near_point.y, near_point.z);
  const float far_key = point_key(plane, far_point.x, far_point.y, far_point.z);
  EXPECT_NEAR(near_key, -2.0f, 1e-4f);
  EXPECT_NEAR(far_key, -9.0f, 1e-4f);
  EXPECT_TRUE(key_less(far_key, near_key));
}

TEST(DepthKeys, TriangleCentroidAndGather) {
  const Mesh mesh = make_test_triangles();
  const DepthPlane plane{0, 0, 1, -3};  // camera at z=3 looking down -z
  float keys[3];
  for (std::size_t t = 0; t < 3; ++t) keys[t] = triangle_key(plane, mesh.vertices.data(), mesh.indices.data(), t);
  EXPECT_FLOAT_EQ(keys[0], -3.0f);
  EXPECT_FLOAT_EQ(keys[2], -5.0f);
  const std::uint32_t order[3] = {2, 1, 0};
  std::uint32_t elements[9];
  for (std::size_t i = 0; i < 3; ++i) gather_triangle(mesh.indices.data(), order, i, elements);
  EXPECT_EQ(elements[0], mesh.indices[6]);
  EXPECT_EQ(elements[8], mesh.indices[2]);
}

// One order for every primitive: ids below the triangle count are triangles, the rest particles,
// each keyed as its own kind is.
TEST(DepthKeys, PrimitiveIdsCoverBothKinds) {
  const Mesh mesh = make_test_triangles();
  const DepthPlane plane{0, 0, 1, -3};
  const ParticleVertex particles[2] = {{0, 0, -1.5f, 1, 0}, {0, 0, 2.5f, 1, 0}};
  const std::size_t triangles = mesh.triangles();
  for (std::uint32_t t = 0; t < triangles; ++t)
    EXPECT_EQ(primitive_key(plane, mesh.vertices.data(), mesh.indices.data(), triangles, particles, t),
              triangle_key(plane, mesh.vertices.data(), mesh.indices.data(), t));
  EXPECT_FLOAT_EQ(primitive_key(plane, mesh.vertices.data(), mesh.indices.data(), triangles, particles, 3), -4.5f);
  EXPECT_FLOAT_EQ(primitive_key(plane, mesh.vertices.data(), mesh.indices.data(), triangles, particles, 4), -0.5f);
}

TEST(Particles, StepIsDeterministicAndFinite) {
  EmitterParams e;
  ParticleState a{}, b{};
  ParticleVertex va{}, vb{};
  particle_init(a, va, e, 7);
  particle_init(b, vb, e, 7);
  for (int i = 0; i < 500; ++i) {
    particle_step(a, va, e);
    particle_step(b, vb, e);
  }
  EXPECT_EQ(va.x, vb.x);
  EXPECT_TRUE(std::isfinite(va.x) && std::isfinite(va.y) && std::isfinite(va.z));
  EXPECT_GT(va.size, 0.0f);
  EXPECT_LE(a.age, a.life);
}

// ------------------------------------------------------------------ order-check bookkeeping, timings

TEST(OrderChecks, AnyFailureFailsTheRunNotOnlyTheLast) {
  CheckState state;
  EXPECT_EQ(check_exit_status(state), 0);
  record_check(state, 0, 0, 0);
  record_check(state, 30, 5, 1);  // a wrong order...
  record_check(state, 60, 0, 0);  // ...then a right one: the light is green again, the run still failed
  EXPECT_EQ(state.light, CheckLight::Ok);
  EXPECT_EQ(state.checks, 3u);
  EXPECT_EQ(state.failures, 1u);
  EXPECT_EQ(state.failed_frame, 30u);
  EXPECT_EQ(state.failed_mesh, 5u);
  EXPECT_EQ(state.failed_particles, 1u);
  EXPECT_EQ(check_exit_status(state), 1);
}

TEST(TimingsRecord, RepeatedStepIsSummedUnderOneName) {
  Timings timings(2);
  timings.add("sort", "refine", 1.0f, 0.0, 0);
  timings.add("sort", "count", 0.5f, 0.0, 0);
  timings.add("sort", "refine", 2.0f, 0.0, 0);  // the same step again in frame 0
  timings.add("sort", "refine", 4.0f, 0.1, 1);
  const int refine = timings.series("sort", "refine");
  EXPECT_FLOAT_EQ(timings.median(refine), 3.5f);  // frames 0 (1 + 2) and 1 (4)
  EXPECT_EQ(timings.all()[static_cast<std::size_t>(refine)].count, 2);
  // The text as written (nlohmann::json, indented): one object per frame, "frame" first.
  const std::string text = timings.json_text({{"test", true}});
  EXPECT_EQ(nlohmann::json::parse(text)["frames"][0]["sort/refine"], 3.0) << text;
  const std::size_t frame0 = text.find("\"frame\": 0,");
  ASSERT_NE(frame0, std::string::npos) << text;
  const std::string line = text.substr(frame0, text.find('}', frame0) - frame0);
  EXPECT_NE(line.find("\"sort/refine\": 3.0"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"sort/refine\"", line.find("\"sort/refine\"") + 1), std::string::npos)
      << "duplicate key: " << line;
  EXPECT_NE(text.find("\"dropped_samples\": 0"), std::string::npos) << text;
}

TEST(TimingsRecord, EveryTimersStepsFitAndOverflowIsCounted) {
  Timings timings(1);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < Timings::kMaxSamplesPerFrame + 3; ++i) names.push_back("step " + std::to_string(i));
  for (const std::string& name : names) timings.add("frame", name, 1.0f, 0.0, 0);
  EXPECT_EQ(timings.dropped(), 3u);  // one frame holds kMaxSamplesPerFrame; the rest is counted, not lost silently
  EXPECT_GE(Timings::kMaxSamplesPerFrame, static_cast<std::size_t>(4 * StepTimer::kMaxSteps));
}

// The panel's figures: the last second's frames; where a frame takes longer than a second, the
// newest frame's (not "not run" for every phase); a phase absent from the newest frame is not shown.
TEST(TimingsRecord, ThePanelShowsTheLastSecondOrTheNewestFrame) {
  Timings timings;
  for (int f = 0; f < 4; ++f) timings.add("frame", "draw", 1.0f + static_cast<float>(f), 0.25 * f, f);
  const TimingSeries& draw = timings.all()[static_cast<std::size_t>(timings.series("frame", "draw"))];
  TimingSeries::Stats st = timings.recent(draw, 1.1);  // frames at 0.25, 0.5, 0.75 s
  EXPECT_EQ(st.samples, 3);
  EXPECT_FLOAT_EQ(st.mean, 3.0f);
  // Slow frames: 2.5 s apart; two seconds into the next one the newest frame is shown.
  timings.add("frame", "gather", 7.0f, 0.75, 3);  // ran in frame 3 only
  timings.add("frame", "draw", 9.0f, 3.25, 4);
  st = timings.recent(draw, 5.25);
  EXPECT_EQ(st.samples, 1);
  EXPECT_FLOAT_EQ(st.mean, 9.0f);
  EXPECT_EQ(timings.recent(timings.all()[static_cast<std::size_t>(timings.series("frame", "gather"))], 5.25).samples,
            0);
}

TEST(Scene, TilingAndKnotSizes) {
  const Mesh tiled = tile(make_test_triangles(), 10);
  EXPECT_EQ(tiled.triangles(), 30u);
  for (const std::uint32_t i : tiled.indices) ASSERT_LT(i, tiled.vertices.size());
  const Mesh knot = make_knot(20000);
  EXPECT_NEAR(static_cast<double>(knot.triangles()), 20000.0, 2000.0);
  for (const std::uint32_t i : knot.indices) ASSERT_LT(i, knot.vertices.size());
}

}  // namespace
}  // namespace depthsort::app::test
