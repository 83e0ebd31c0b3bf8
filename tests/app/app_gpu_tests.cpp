// The demo on a CUDA device: the GPU path (interop, depth kernel, registry sorter, gather) must
// give the same pixels as the CPU path for every GPU sorter, and small scenes must run with their
// order checks passing. Each test reports itself skipped where no CUDA device exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "depthsort/sort/registry.hpp"
#include "intersect_check.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

#define REQUIRE_CUDA_DEVICE()                                                 \
  do {                                                                        \
    std::string why;                                                          \
    if (!cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why; \
  } while (0)

TEST(GpuPath, EverySorterGivesTheCpuPathsPixels) {
  REQUIRE_CUDA_DEVICE();
  // Not --quiet: each GPU run must say it took the GPU path with that sorter, or a silent fallback
  // to the CPU path would compare the CPU path with itself and pass.
  const std::vector<std::string> common = {"--headless", "--scene", "test", "--size", "160x120", "--frames", "3"};
  auto args = common;
  args.insert(args.end(), {"--cpu", "--quiet", "--screenshot", out_path("gpu_ref_cpu.png")});
  CommandResult r = run_depthsort(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const Image reference = read_png(out_path("gpu_ref_cpu.png"));
  int tested = 0;
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != Backend::Gpu || !info.is_available(nullptr)) continue;
    const std::string png = out_path("gpu_" + std::string(info.name) + ".png");
    args = common;
    args.insert(args.end(), {"--sorter", std::string(info.name), "--screenshot", png});
    r = run_depthsort(args);
    ASSERT_EQ(r.status, 0) << info.name << ": " << r.output;
    ASSERT_NE(r.output.find("path: GPU"), std::string::npos)
        << info.name << " did not run on the GPU path: " << r.output;
    ASSERT_NE(r.output.find("sorter: " + std::string(info.name)), std::string::npos) << info.name << ": " << r.output;
    const Image image = read_png(png);
    ASSERT_EQ(image.rgba.size(), reference.rgba.size());
    int worst = 0;
    for (std::size_t i = 0; i < image.rgba.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<int>(image.rgba[i]) - static_cast<int>(reference.rgba[i])));
    EXPECT_LE(worst, 1) << info.name << " differs from the CPU path by up to " << worst;
    ++tested;
  }
  EXPECT_GT(tested, 0);
}

// One order on the GPU path: the particle between two triangles blends in one order for
// every GPU sorter, from scratch and coherent, and drawn from CUDA's expanded vertices, each
// pixel as the CPU path's (the expanded run against the CPU path's expanded run, whose host
// expansion CI checks); --separate-passes gives the other (wrong) picture, which shows the
// comparison can fail.
TEST(GpuPath, OneOrderForTrianglesAndParticlesEverySorter) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<std::string> common = {"--headless", "--scene", "mixed",         "--size", "160x120",
                                           "--frames",   "4",       "--check-every", "1"};
  auto args = common;
  args.insert(args.end(), {"--cpu", "--quiet", "--screenshot", out_path("gpu_mixed_cpu.png")});
  CommandResult r = run_depthsort(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const Image pulled_reference = read_png(out_path("gpu_mixed_cpu.png"));
  args = common;
  args.insert(args.end(),
              {"--cpu", "--quiet", "--draw-path", "expanded", "--screenshot", out_path("gpu_mixed_cpu_expanded.png")});
  r = run_depthsort(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const Image expanded_reference = read_png(out_path("gpu_mixed_cpu_expanded.png"));
  const auto worst_difference = [&](const Image& image, const Image& reference) {
    int worst = 0;
    for (std::size_t i = 0; i < image.rgba.size() && i < reference.rgba.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<int>(image.rgba[i]) - static_cast<int>(reference.rgba[i])));
    return worst;
  };
  const std::array<int, 3> want = expected_blend({0, 1, 2});
  int tested = 0;
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != Backend::Gpu || !info.is_available(nullptr)) continue;
    for (const char* mode : {"", "--coherent", "--separate-passes", "--draw-path=expanded"}) {
      const std::string png = out_path("gpu_mixed_" + std::string(info.name) + (*mode ? mode + 1 : "") + ".png");
      args = common;
      args.insert(args.end(), {"--sorter", std::string(info.name), "--screenshot", png});
      if (*mode) args.push_back(mode);
      r = run_depthsort(args);
      ASSERT_EQ(r.status, 0) << info.name << " " << mode << ": " << r.output;
      ASSERT_NE(r.output.find("path: GPU"), std::string::npos) << info.name << ": " << r.output;
      EXPECT_NE(r.output.find("order checks: 4/4 passed"), std::string::npos) << info.name << " " << mode << r.output;
      const Image image = read_png(png);
      const Image& reference = std::string(mode) == "--draw-path=expanded" ? expanded_reference : pulled_reference;
      ASSERT_EQ(image.rgba.size(), reference.rgba.size());
      const auto centre = image.at(80, 60);
      if (std::string(mode) == "--separate-passes") {
        EXPECT_GT(worst_difference(image, reference), 60) << info.name << ": --separate-passes looks like one order";
        continue;
      }
      EXPECT_LE(worst_difference(image, reference), 1) << info.name << " " << mode << " differs from the CPU path";
      for (std::size_t c = 0; c < 3; ++c)
        EXPECT_NEAR(centre[c], want[c], 2) << info.name << " " << mode << " channel " << c;
    }
    ++tested;
  }
  EXPECT_GT(tested, 0);
}

// The expanded draw against the pulled one (--sprite-shape triangle, the same sprites) on the GPU
// path's default scene with particles, orbiting, in every colour mode (hybrid's buckets for
// segment): triangles are the same floats through the same transform; sprite corners are rounded
// differently (world space, not view space), so an edge pixel may move: at most 0.1% of the
// channels may differ by more than 2. Both runs must report the GPU path and passing checks.
TEST(GpuPath, ExpandedDrawEqualsPulledOnTheDefaultScene) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<std::string> common = {"--headless", "--sorter",      "hybrid",   "--particles", "100K",
                                           "--size",     "640x360",       "--frames", "8",           "--camera-path",
                                           "orbit",      "--check-every", "1"};
  for (const char* colour : {"scene", "rank", "segment"}) {
    Image images[2];
    const char* paths[2] = {"pull", "expanded"};
    for (int p = 0; p < 2; ++p) {
      const std::string png = out_path(std::string("gpu_default_") + colour + "_" + paths[p] + ".png");
      auto args = common;
      args.insert(args.end(), {"--colour", colour, "--screenshot", png});
      if (p == 0)
        args.insert(args.end(), {"--sprite-shape", "triangle"});
      else
        args.insert(args.end(), {"--draw-path", "expanded"});
      const CommandResult r = run_depthsort(args);
      ASSERT_EQ(r.status, 0) << paths[p] << ": " << r.output;
      ASSERT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find(std::string("draw path: ") + paths[p]), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("order checks: 8/8 passed"), std::string::npos) << r.output;
      images[p] = read_png(png);
    }
    ASSERT_EQ(images[0].rgba.size(), images[1].rgba.size());
    std::size_t off = 0, lit = 0;
    int worst = 0;
    for (std::size_t i = 0; i < images[0].rgba.size(); ++i) {
      const int d = std::abs(static_cast<int>(images[0].rgba[i]) - static_cast<int>(images[1].rgba[i]));
      worst = std::max(worst, d);
      off += d > 2 ? 1 : 0;
      lit += i % 4 != 3 && images[0].rgba[i] > 0 ? 1 : 0;
    }
    EXPECT_LE(off, images[0].rgba.size() / 1000)
        << colour << ": " << off << " channels differ by more than 2 (worst " << worst << ")";
    EXPECT_GT(lit, images[0].rgba.size() / 10) << colour << ": too little drawn to compare";
  }
}

// The expanded draw at the goal scene's size (5M triangles + 1M particles), timed: the expand step is in --json and the
// order checks pass. (Its speed is in the run's output: frame/expand and frame/draw.)
TEST(GpuPath, ExpandedDrawMillionsIsChecked) {
  REQUIRE_CUDA_DEVICE();
  const std::string json = out_path("gpu_expanded_millions.json");
  const CommandResult r = run_depthsort({"--headless", "--draw-path", "expanded", "--triangles", "2M", "--particles",
                                         "1M", "--frames", "20", "--check-every", "5", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 4/4 passed"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["meta"]["draw_path"], "expanded");
  EXPECT_TRUE(doc["median_ms"].contains("frame/expand")) << doc["median_ms"].dump();
}

// Coherent mode with the camera orbiting, every frame's order checked, and the sorter's
// per-step timings in --json.
TEST(GpuPath, CoherentOrbitIsExactEveryFrame) {
  REQUIRE_CUDA_DEVICE();
  const std::string json = out_path("gpu_coherent.json");
  const CommandResult r = run_depthsort({"--headless", "--triangles", "200K", "--particles", "100K", "--frames", "60",
                                         "--camera-path", "orbit", "--coherent", "--check-every", "1", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 60/60 passed"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["meta"]["coherent"], true);
  bool sort_steps = false;
  for (const auto& [label, ms] : doc["median_ms"].items()) sort_steps |= label.rfind("sort/", 0) == 0;
  EXPECT_TRUE(sort_steps) << doc["median_ms"].dump();
}

// The fused order (--order fused) on every kind of scene and every camera path, every frame's
// order checked: the check recomputes each primitive's key with the plain depth pass and asks for
// a permutation of the ids in that key order, so a passing frame's key sequence is the plain
// path's, bit for bit. The cuts path jumps every 30 frames; 40 frames see one cut. The separate
// passes sort with the sorter (the fused order is the single order's), and say so in --json.
TEST(GpuPath, FusedOrderIsExactOnEverySceneAndCameraPath) {
  REQUIRE_CUDA_DEVICE();
  struct Scene {
    const char* name;
    std::vector<std::string> args;
  };
  const std::vector<Scene> scenes = {
      {"knot", {"--triangles", "300K", "--particles", "200K"}},
      {"mixed", {"--scene", "mixed"}},
      {"test", {"--scene", "test"}},
      {"tiled-obj", {"--mesh", data_path("good.obj"), "--copies", "20000"}},
      {"particles-only", {"--scene", "none", "--particles", "400K"}},
      {"triangles-only", {"--triangles", "400K", "--particles", "0"}},
      {"separate-passes", {"--triangles", "200K", "--particles", "200K", "--separate-passes"}},
      {"expanded", {"--triangles", "200K", "--particles", "200K", "--draw-path", "expanded"}},
  };
  for (const Scene& scene : scenes) {
    for (const char* path : {"orbit", "fly-through", "cuts"}) {
      const std::string what = std::string(scene.name) + " " + path;
      const std::string json = out_path("gpu_fused_" + std::string(scene.name) + "_" + path + ".json");
      std::vector<std::string> args = {"--headless", "--no-draw", "--frames",      "40", "--camera-path", path,
                                       "--order",    "fused",     "--check-every", "1",  "--json",        json};
      args.insert(args.end(), scene.args.begin(), scene.args.end());
      const CommandResult r = run_depthsort(args);
      ASSERT_EQ(r.status, 0) << what << ": " << r.output;
      std::ifstream in(json);
      const nlohmann::json doc = nlohmann::json::parse(in);
      const bool separate = scene.name == std::string("separate-passes");
      EXPECT_EQ(doc["meta"]["order_method"], separate ? "sorter" : "fused") << what;
      EXPECT_NE(r.output.find("order checks: 40/40 passed"), std::string::npos) << what << ": " << r.output;
    }
  }
}

// The segment view on the GPU path: colour by segment shows the hybrid sorter's buckets (many
// colours), and headless --panel draws the panel (with compare-all and the histogram, filled on
// the last frame) over the GPU path's frame.
TEST(GpuPath, SegmentColoursAndPanel) {
  REQUIRE_CUDA_DEVICE();
  // Distinct colours (4 bits a channel) right of the panel (x > 420).
  const auto colours_of = [](const Image& image) {
    std::vector<std::uint32_t> colours;
    for (int y = 0; y < image.height; y += 3)
      for (int x = 420; x < image.width; x += 3) {
        const auto p = image.at(x, y);
        const auto c = static_cast<std::uint32_t>((p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4));
        if (std::find(colours.begin(), colours.end(), c) == colours.end()) colours.push_back(c);
      }
    return colours.size();
  };
  std::size_t colours[2] = {};
  const char* sorters[2] = {"hybrid", "cub-radix"};  // with buckets; without (one segment: one hue)
  for (int i = 0; i < 2; ++i) {
    const std::string png = out_path(std::string("gpu_segments_panel_") + sorters[i] + ".png");
    const CommandResult r =
        run_depthsort({"--headless", "--sorter", sorters[i], "--triangles", "200K", "--particles", "50K", "--frames",
                       "5", "--colour", "segment", "--panel", "--screenshot", png});
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
    const Image image = read_png(png);
    colours[i] = colours_of(image);
    int panel = 0;  // the panel's text: bright pixels in the top-left corner
    for (int y = 10; y < 200; ++y)
      for (int x = 12; x < 400; ++x) panel += image.at(x, y)[0] > 150 ? 1 : 0;
    EXPECT_GT(panel, 200) << sorters[i] << ": no panel drawn";
  }
  EXPECT_GT(colours[0], 2 * colours[1]) << "hybrid's buckets show no more colours (" << colours[0]
                                        << ") than cub-radix's single segment (" << colours[1] << ")";
}

TEST(GpuPath, SmallMeshAndParticlesRunWithChecksPassing) {
  REQUIRE_CUDA_DEVICE();
  const CommandResult r = run_depthsort({"--headless", "--triangles", "5K", "--particles", "5K", "--frames", "30",
                                         "--size", "320x200", "--check-every", "5"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 6/6 passed"), std::string::npos) << r.output;
}

TEST(GpuPath, MillionsWithoutDrawing) {
  REQUIRE_CUDA_DEVICE();
  const CommandResult r = run_depthsort(
      {"--headless", "--no-draw", "--triangles", "2M", "--particles", "1M", "--frames", "20", "--check-every", "5"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 4/4 passed"), std::string::npos) << r.output;
}

// The soak, short: every frame the next GPU sorter/option variant, every
// frame's order checked, device memory sampled every 1000 frames; after the first sample it must
// stay flat (every sorter reserved once, nothing allocated in the frame loop). The figure is the
// whole device's, so ctest runs this test alone (RUN_SERIAL in CMakeLists.txt).
TEST(GpuPath, CycleSortersSoakIsCheckedAndFlat) {
  REQUIRE_CUDA_DEVICE();
  const std::string json = out_path("gpu_cycle.json");
  const CommandResult r = run_depthsort({"--headless", "--no-draw", "--cycle-sorters", "--triangles", "50K",
                                         "--particles", "20K", "--frames", "3000", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path: GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 3000/3000 passed"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
  EXPECT_GT(meta["cycle_sorters"].size(), 3u);
  const auto& samples = meta["memory_samples"];
  ASSERT_EQ(samples.size(), 4u);  // frames 0, 1000, 2000 and the last
  const auto used = [&](std::size_t i) { return samples[i]["device_used_bytes"].get<std::int64_t>(); };
  EXPECT_LE(std::abs(used(3) - used(1)), std::int64_t{1} << 20) << samples.dump();
}

// The transparency modes on NVIDIA's GL (docs/transparency.md): the exact modes agree on the test
// scenes; on the intersecting scene the reference is the CPU per-pixel reference's blend and
// sorted primitives differ from it exactly where the CPU says (intersect_check.hpp); the
// A-buffer's budget grows to fit a million triangles and a million particles.
TEST(GpuPath, TransparencyModes) {
  REQUIRE_CUDA_DEVICE();
  const auto shot = [](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--headless", "--size",       "320x180",      "--frames",
                                     "3",          "--screenshot", out_path(name), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = run_depthsort(args);
    EXPECT_EQ(r.status, 0) << name << ": " << r.output;
    return read_png(out_path(name));
  };
  const auto beyond = [](const Image& a, const Image& b) {
    int n = 0;
    for (std::size_t p = 0; p < std::min(a.rgba.size(), b.rgba.size()) / 4; ++p) {
      int d = 0;
      for (std::size_t c = 0; c < 3; ++c)
        d = std::max(d, std::abs(static_cast<int>(a.rgba[4 * p + c]) - static_cast<int>(b.rgba[4 * p + c])));
      n += d > 2 ? 1 : 0;
    }
    return n;
  };
  for (const char* scene : {"test", "mixed"}) {
    const std::string s(scene);
    const Image sorted = shot("gpu_" + s + "_sorted.png", {"--scene", s});
    const Image reference = shot("gpu_" + s + "_reference.png", {"--scene", s, "--transparency", "reference"});
    const Image weighted = shot("gpu_" + s + "_wboit.png", {"--scene", s, "--transparency", "wboit"});
    EXPECT_EQ(beyond(sorted, reference), 0) << scene << ": sorted primitives and the reference differ";
    EXPECT_GT(beyond(weighted, reference), 100) << scene << ": wboit should differ from the reference";
  }
  const Image sorted = shot("gpu_intersect_sorted.png", {"--scene", "intersect"});
  const Image reference = shot("gpu_intersect_reference.png", {"--scene", "intersect", "--transparency", "reference"});
  const IntersectCheck check = check_intersect(sorted, reference);
  EXPECT_EQ(check.wrong_reference, 0) << check.first_failures;
  EXPECT_EQ(check.wrong_sorted, 0) << check.first_failures;
  EXPECT_EQ(check.wrong_difference, 0) << check.first_failures;
  EXPECT_GT(check.must_differ, 500);
  const std::string json = out_path("gpu_transparency.json");
  shot("gpu_intersect_difference.png", {"--scene", "intersect", "--difference", "--json", json});
  {
    std::ifstream in(json);
    const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
    EXPECT_GT(meta["difference"]["pixels"].get<int>(), 500) << meta.dump();
  }
  const std::string big = out_path("gpu_transparency_big.json");
  const CommandResult r =
      run_depthsort({"--headless", "--triangles", "1M", "--particles", "1M", "--size", "1280x720", "--frames", "8",
                     "--camera-path", "orbit", "--difference", "--json", big, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(big);
  const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
  // The first frame may go over the starting budget; the pool grows, and the last frame read must fit.
  EXPECT_EQ(meta["abuffer"]["over_budget_pixels"], 0) << meta["abuffer"].dump();
  EXPECT_LT(meta["abuffer"]["frames_over_budget"].get<int>(), meta["abuffer"]["frames_read"].get<int>());
  std::printf(
      "1M triangles + 1M particles, 1280x720: sorted primitives differ from the reference at %d pixels "
      "(largest %d/255); a-buffer %s\n",
      meta["difference"]["pixels"].get<int>(), meta["difference"]["largest"].get<int>(),
      meta["abuffer"].dump().c_str());
}

}  // namespace
}  // namespace depthsort::app::test
