// The transparency modes on the CPU path (Mesa's llvmpipe), checked by their pixels: the exact
// modes (sorted primitives, the per-pixel reference) agree where sorting whole primitives is
// exact; weighted blended OIT differs by a measured amount; on the intersecting scene the sorted
// picture differs from the reference exactly where a CPU per-pixel reference says it must; a
// budget overflow is reported and shown. Also the budget's sizing rule and the flags' checks.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "intersect_check.hpp"
#include "render/abuffer.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

Image render(const std::string& name, const std::string& scene, const std::string& size,
             std::vector<std::string> extra) {
  std::vector<std::string> args = {"--headless", "--cpu", "--scene",      scene,          "--size", size,
                                   "--frames",   "2",     "--screenshot", out_path(name), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult r = run_depthsort(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return read_png(out_path(name));
}

int pixel_difference(const Image& a, const Image& b, std::size_t pixel) {
  int d = 0;
  for (std::size_t c = 0; c < 3; ++c)
    d = std::max(d, std::abs(static_cast<int>(a.rgba[4 * pixel + c]) - static_cast<int>(b.rgba[4 * pixel + c])));
  return d;
}

struct Comparison {
  int beyond = 0, worst = 0;  // pixels differing by more than 2/255, and the largest difference
};
Comparison compare(const Image& a, const Image& b) {
  Comparison c;
  EXPECT_EQ(a.rgba.size(), b.rgba.size());
  for (std::size_t p = 0; p < std::min(a.rgba.size(), b.rgba.size()) / 4; ++p) {
    const int d = pixel_difference(a, b, p);
    c.worst = std::max(c.worst, d);
    c.beyond += d > 2 ? 1 : 0;
  }
  return c;
}

// ------------------------------------------------------------------ where sorting is exact

TEST(Transparency, ExactModesAgreeAndWeightedDiffers) {
  for (const char* scene : {"test", "mixed"}) {
    const std::string s(scene);
    const Image sorted = render(s + "_sorted.png", s, "160x120", {"--transparency", "sorted"});
    const Image expanded =
        render(s + "_sorted_expanded.png", s, "160x120", {"--transparency", "sorted", "--draw-path", "expanded"});
    const Image reference = render(s + "_reference.png", s, "160x120", {"--transparency", "reference"});
    const Image weighted = render(s + "_wboit.png", s, "160x120", {"--transparency", "wboit"});
    const Comparison exact = compare(sorted, reference), exact_expanded = compare(expanded, reference);
    EXPECT_EQ(exact.beyond, 0) << scene << ": sorted primitives and the per-pixel reference differ by up to "
                               << exact.worst << "/255";
    EXPECT_EQ(exact_expanded.beyond, 0) << scene << ": the expanded draw and the reference differ by up to "
                                        << exact_expanded.worst << "/255";
    // Weighted blended OIT is an approximation: at alpha 0.5 its average is far from the blend.
    const Comparison approximate = compare(weighted, reference);
    std::printf("%s: wboit differs from the reference at %d of %d pixels, by up to %d/255\n", scene, approximate.beyond,
                sorted.width * sorted.height, approximate.worst);
    EXPECT_GT(approximate.worst, 2) << scene << ": wboit equal to the reference would test nothing";
    EXPECT_GT(approximate.beyond, 100) << scene;
  }
}

// ------------------------------------------------------------------ where it is not: a CPU reference

// Sorted primitives against the per-pixel reference on the intersecting scene, both against a CPU
// per-pixel reference (intersect_check.hpp).
TEST(Transparency, SortedDiffersFromTheReferenceExactlyWhereTheCpuSaysItMust) {
  const Image sorted = render("intersect_sorted.png", "intersect", "320x180", {"--transparency", "sorted"});
  const Image reference = render("intersect_reference.png", "intersect", "320x180", {"--transparency", "reference"});
  ASSERT_EQ(sorted.width, 320);
  ASSERT_EQ(reference.height, 180);
  const IntersectCheck check = check_intersect(sorted, reference);
  std::printf(
      "intersect 320x180: %d pixels compared, %d within a pixel of an edge or a crossing skipped; sorted "
      "primitives must differ from the reference at %d\n",
      check.compared, check.skipped, check.must_differ);
  EXPECT_EQ(check.wrong_reference, 0) << check.first_failures;
  EXPECT_EQ(check.wrong_sorted, 0) << check.first_failures;
  EXPECT_EQ(check.wrong_difference, 0) << check.first_failures;
  EXPECT_GT(check.must_differ, 500) << "the scene must show where sorting whole triangles is wrong";
  EXPECT_GT(check.compared, 320 * 180 / 2) << "most pixels must be compared, not skipped";
}

// The difference view's count in --json: none on the test scene, the intersecting scene's many.
TEST(Transparency, DifferenceViewCountsInJson) {
  const auto difference = [](const std::string& scene, const std::string& mode) {
    const std::string json = out_path("difference_" + scene + "_" + mode + ".json");
    const Image image = render("difference_" + scene + "_" + mode + ".png", scene, "320x180",
                               {"--transparency", mode, "--difference", "--json", json});
    std::ifstream in(json);
    const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
    EXPECT_EQ(meta["transparency"], mode);
    EXPECT_EQ(meta["difference"]["tolerance"], 2);
    EXPECT_EQ(meta["difference"]["not_compared"], 0);
    EXPECT_GT(meta["transparency_memory_bytes"]["reference"].get<std::size_t>(), 0u);
    return meta["difference"];
  };
  EXPECT_EQ(difference("test", "sorted")["pixels"], 0);
  EXPECT_EQ(difference("test", "reference")["pixels"], 0);
  const nlohmann::json intersect = difference("intersect", "sorted");
  EXPECT_GT(intersect["pixels"].get<int>(), 500);
  EXPECT_GT(intersect["largest"].get<int>(), 20);
  EXPECT_GT(difference("test", "wboit")["pixels"].get<int>(), 100);
}

// The state line names the mode (the words of a headless --panel frame, --ui-text): a picture in
// another mode says so, with the panel hidden too.
TEST(Transparency, TheStateLineNamesTheMode) {
  const auto words = [](const std::string& mode) {
    const std::string file = out_path("state_line_" + mode + ".words");
    const CommandResult r = run_depthsort({"--headless", "--cpu", "--panel", "--scene", "test", "--size", "800x600",
                                           "--frames", "2", "--transparency", mode, "--ui-text", file, "--quiet"});
    EXPECT_EQ(r.status, 0) << r.output;
    return read_text(file);
  };
  EXPECT_NE(words("sorted").find("sorted back to front"), std::string::npos);
  EXPECT_NE(words("unsorted").find("NOT SORTED: transparency unsorted"), std::string::npos);
  EXPECT_NE(words("wboit").find("APPROXIMATE: weighted blended OIT"), std::string::npos);
  EXPECT_NE(words("reference").find("per-pixel reference: every pixel's fragments sorted"), std::string::npos);
}

// In a window (Xvfb): the passes draw into the window's own framebuffer, the difference view's
// pictures are textures of the window's size, and the counts reach the summary.
TEST(Transparency, DifferenceViewInAWindow) {
  if (!have_tool("xvfb-run")) GTEST_SKIP() << "xvfb-run not installed";
  const std::string png = out_path("window_difference.png");
  const CommandResult r = run_depthsort(
      {"--cpu", "--scene", "intersect", "--size", "800x450", "--frames", "12", "--difference", "--screenshot", png},
      "xvfb-run -a -s '-screen 0 800x600x24'");
  ASSERT_EQ(r.status, 0) << r.output;
  const Image image = read_png(png);
  ASSERT_EQ(image.width, 800);
  // The differing pixels, orange to yellow, right of the panel (which covers the left half).
  int differing = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 420; x < image.width; ++x) {
      const auto p = image.at(x, y);
      differing += p[0] > 240 && p[1] > 60 && p[2] < 100 ? 1 : 0;
    }
  EXPECT_GT(differing, 300) << r.output;
}

// ------------------------------------------------------------------ the budget

TEST(Transparency, BudgetOverflowIsReportedAndShown) {
  const std::string json = out_path("over_budget.json");
  const std::vector<std::string> args = {"--headless",
                                         "--cpu",
                                         "--scene",
                                         "test",
                                         "--size",
                                         "160x120",
                                         "--frames",
                                         "2",
                                         "--transparency",
                                         "reference",
                                         "--fragment-budget",
                                         "100",
                                         "--difference",
                                         "--screenshot",
                                         out_path("over_budget.png"),
                                         "--json",
                                         json,
                                         "--quiet"};
  const CommandResult r = run_depthsort(args);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("fragment budget (100 fragments) was exceeded"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
  EXPECT_EQ(meta["abuffer"]["budget_fragments"], 100);
  EXPECT_GT(meta["abuffer"]["over_budget_pixels"].get<int>(), 1000);
  EXPECT_EQ(meta["abuffer"]["frames_over_budget"], meta["abuffer"]["frames_read"]);
  EXPECT_EQ(meta["difference"]["not_compared"], meta["abuffer"]["over_budget_pixels"]);
  // The pixels that lost fragments are striped magenta and black, never the triangles' blend.
  const Image image = read_png(out_path("over_budget.png"));
  int magenta = 0;
  for (int y = 50; y < 70; ++y)
    for (int x = 70; x < 90; ++x) {
      const auto p = image.at(x, y);
      magenta += p[0] == 255 && p[1] == 0 && p[2] == 255 ? 1 : 0;
      EXPECT_TRUE((p[0] == 255 && p[1] == 0 && p[2] == 255) || (p[0] == 0 && p[1] == 0 && p[2] == 0))
          << "(" << x << "," << y << ") is neither stripe";
    }
  EXPECT_GT(magenta, 100);
}

TEST(Transparency, BudgetSizing) {
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30, kBlock = std::uint64_t{1} << 31;
  const std::size_t pixels = 1920 * 1080;
  EXPECT_EQ(abuffer_budget(pixels, 16 * kGiB, kBlock, 0), pixels * kStartLayers);
  // Grown to 5/4 of what a frame asked for.
  EXPECT_EQ(abuffer_budget(pixels, 16 * kGiB, kBlock, 100'000'000), 125'000'000u);
  // Within a quarter of the free memory and one storage block.
  EXPECT_EQ(abuffer_budget(pixels, kGiB, kBlock, 0), kGiB / 4 / kNodeBytes);
  EXPECT_EQ(abuffer_budget(pixels, 64 * kGiB, kBlock, 1'000'000'000), kBlock / kNodeBytes);
  EXPECT_GE(abuffer_budget(pixels, 0, kBlock, 0), 1u);
}

TEST(Transparency, FlagsAreChecked) {
  const auto status = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"--headless", "--cpu", "--scene", "test", "--frames", "1", "--quiet"});
    return run_depthsort(args);
  };
  const CommandResult unknown = status({"--transparency", "depth-peeling"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.output.find("valid modes: sorted, unsorted, wboit, reference"), std::string::npos)
      << unknown.output;
  EXPECT_EQ(status({"--transparency", "wboit", "--separate-passes"}).status, 2);
  EXPECT_EQ(status({"--difference", "--wipe", "0.5"}).status, 2);
  EXPECT_EQ(status({"--fragment-budget", "0"}).status, 2);
  EXPECT_EQ(status({"--difference", "--colour", "rank"}).status, 2);
  EXPECT_EQ(status({"--cycle-sorters", "--transparency", "wboit"}).status, 2);
  EXPECT_EQ(status({"--transparency", "unsorted"}).status, 0);
}

}  // namespace
}  // namespace depthsort::app::test
