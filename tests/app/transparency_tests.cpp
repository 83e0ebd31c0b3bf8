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
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "depthsort/frame/depth.hpp"
#include "render/abuffer.hpp"
#include "scene/mesh.hpp"
#include "scene/scene.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

Image render(const std::string& name, const std::string& scene, const std::string& size,
             std::vector<std::string> extra) {
  std::vector<std::string> args = {"--headless", "--cpu", "--scene", scene, "--size", size, "--frames", "2",
                                   "--screenshot", out_path(name), "--quiet"};
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
    const Image expanded = render(s + "_sorted_expanded.png", s, "160x120",
                                  {"--transparency", "sorted", "--draw-path", "expanded"});
    const Image reference = render(s + "_reference.png", s, "160x120", {"--transparency", "reference"});
    const Image weighted = render(s + "_wboit.png", s, "160x120", {"--transparency", "wboit"});
    const Comparison exact = compare(sorted, reference), exact_expanded = compare(expanded, reference);
    EXPECT_EQ(exact.beyond, 0) << scene << ": sorted primitives and the per-pixel reference differ by up to "
                               << exact.worst << "/255";
    EXPECT_EQ(exact_expanded.beyond, 0) << scene << ": the expanded draw and the reference differ by up to "
                                        << exact_expanded.worst << "/255";
    // Weighted blended OIT is an approximation: at alpha 0.5 its average is far from the blend.
    const Comparison approximate = compare(weighted, reference);
    std::printf("%s: wboit differs from the reference at %d of %d pixels, by up to %d/255\n", scene,
                approximate.beyond, sorted.width * sorted.height, approximate.worst);
    EXPECT_GT(approximate.worst, 2) << scene << ": wboit equal to the reference would test nothing";
    EXPECT_GT(approximate.beyond, 100) << scene;
  }
}

// ------------------------------------------------------------------ where it is not: a CPU reference

// The intersecting scene as the app builds it, seen by the app's camera, rasterised on the CPU:
// which triangles cover a pixel's centre (edge functions in window coordinates, GL's sample
// point) and their window depths (affine in screen space, as GL interpolates them).
class CpuRaster {
 public:
  CpuRaster(int width, int height) : width_(width), height_(height) {
    std::string notes;
    SceneSpec spec;
    spec.kind = SceneKind::Intersect;
    scene_ = build_scene(spec, true, notes);
    Camera camera = scene_.camera;
    camera.fit_planes(scene_.centre, scene_.radius);  // as every frame does
    const glm::mat4 clip = camera.projection(static_cast<float>(width) / static_cast<float>(height)) * camera.view();
    const Mesh& mesh = scene_.mesh;
    for (std::size_t t = 0; t < mesh.triangles(); ++t) {
      Triangle tri;
      for (int k = 0; k < 3; ++k) {
        const MeshVertex& v = mesh.vertices[mesh.indices[3 * t + static_cast<std::size_t>(k)]];
        const glm::vec4 c = clip * glm::vec4(v.x, v.y, v.z, 1.0f);
        tri.x[k] = (c.x / c.w * 0.5 + 0.5) * width;
        tri.y[k] = (c.y / c.w * 0.5 + 0.5) * height;
        tri.z[k] = c.z / c.w * 0.5 + 0.5;
        tri.rgba = v.rgba;
      }
      tri.key = primitive_key(camera.depth_plane(), mesh.vertices.data(), mesh.indices.data(), mesh.triangles(),
                              nullptr, static_cast<std::uint32_t>(t));
      triangles_.push_back(tri);
    }
    // The sorted mode's order: ascending keys, far first.
    order_.resize(triangles_.size());
    std::iota(order_.begin(), order_.end(), 0);
    const auto key = [&](int id) { return triangles_[static_cast<std::size_t>(id)].key; };
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) < key(b); });
  }

  // The triangles covering window point (x, y), far first by their depth there.
  std::vector<int> layers(double x, double y) const {
    std::vector<std::pair<double, int>> found;
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
      const Triangle& tri = triangles_[t];
      const auto edge = [&](int a, int b) {
        return (tri.x[b] - tri.x[a]) * (y - tri.y[a]) - (tri.y[b] - tri.y[a]) * (x - tri.x[a]);
      };
      const double e0 = edge(1, 2), e1 = edge(2, 0), e2 = edge(0, 1), area = e0 + e1 + e2;
      if (area == 0 || !((e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0))) continue;
      const double z = (e0 * tri.z[0] + e1 * tri.z[1] + e2 * tri.z[2]) / area;
      found.emplace_back(z, static_cast<int>(t));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> ids;
    for (const auto& f : found) ids.push_back(f.second);
    return ids;
  }

  // Whether a pixel's layers are the same over its neighbourhood (its centre and +-1 pixel):
  // no edge and no crossing of two triangles within one pixel of it.
  bool settled(int px, int py) const {
    const std::vector<int> centre = layers(px + 0.5, py + 0.5);
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (layers(px + 0.5 + dx, py + 0.5 + dy) != centre) return false;
    return true;
  }

  // The blend of `ids` in that order over black, each step rounded to 8 bits (an RGBA8 target).
  std::array<int, 3> blend(const std::vector<int>& ids) const {
    double rgb[3] = {0, 0, 0};
    for (const int id : ids) {
      const std::uint32_t c = triangles_[static_cast<std::size_t>(id)].rgba;
      const double a = static_cast<double>((c >> 24) & 255) / 255.0;
      for (int k = 0; k < 3; ++k) {
        const double s = static_cast<double>((c >> (8 * k)) & 255) / 255.0;
        rgb[k] = std::round((s * a + rgb[k] * (1 - a)) * 255.0) / 255.0;
      }
    }
    return {static_cast<int>(std::lround(rgb[0] * 255)), static_cast<int>(std::lround(rgb[1] * 255)),
            static_cast<int>(std::lround(rgb[2] * 255))};
  }

  // `ids` in the sorted mode's order (by centroid key) instead of per pixel.
  std::vector<int> primitive_order(const std::vector<int>& ids) const {
    std::vector<int> out;
    for (const int id : order_)
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) out.push_back(id);
    return out;
  }

 private:
  struct Triangle {
    double x[3], y[3], z[3];
    std::uint32_t rgba = 0;
    float key = 0;
  };
  int width_, height_;
  Scene scene_;
  std::vector<Triangle> triangles_;
  std::vector<int> order_;
};

int channel_difference(std::array<int, 4> got, std::array<int, 3> want) {
  int d = 0;
  for (std::size_t c = 0; c < 3; ++c) d = std::max(d, std::abs(got[c] - want[c]));
  return d;
}

TEST(Transparency, SortedDiffersFromTheReferenceExactlyWhereTheCpuSaysItMust) {
  constexpr int kW = 320, kH = 180;
  const Image sorted = render("intersect_sorted.png", "intersect", "320x180", {"--transparency", "sorted"});
  const Image reference = render("intersect_reference.png", "intersect", "320x180", {"--transparency", "reference"});
  ASSERT_EQ(sorted.width, kW);
  ASSERT_EQ(reference.height, kH);
  const CpuRaster cpu(kW, kH);
  int compared = 0, skipped = 0, must = 0, wrong_reference = 0, wrong_difference = 0, wrong_sorted = 0;
  for (int py = 0; py < kH; ++py) {
    for (int px = 0; px < kW; ++px) {
      if (!cpu.settled(px, py)) {
        ++skipped;
        continue;
      }
      ++compared;
      const std::vector<int> per_pixel = cpu.layers(px + 0.5, py + 0.5);
      const std::array<int, 3> exact = cpu.blend(per_pixel), by_primitive = cpu.blend(cpu.primitive_order(per_pixel));
      int d = 0;
      for (std::size_t c = 0; c < 3; ++c) d = std::max(d, std::abs(exact[c] - by_primitive[c]));
      const bool must_differ = d > 2;
      must += must_differ ? 1 : 0;
      const int image_y = kH - 1 - py;  // the screenshot's top row first
      const std::size_t pixel = static_cast<std::size_t>(image_y) * kW + static_cast<std::size_t>(px);
      if (channel_difference(reference.at(px, image_y), exact) > 2 && ++wrong_reference <= 5)
        ADD_FAILURE() << "reference at (" << px << "," << image_y << ") is not the CPU reference's blend";
      if (channel_difference(sorted.at(px, image_y), by_primitive) > 2 && ++wrong_sorted <= 5)
        ADD_FAILURE() << "sorted at (" << px << "," << image_y << ") is not the CPU's blend in primitive order";
      if ((pixel_difference(sorted, reference, pixel) > 2) != must_differ && ++wrong_difference <= 5)
        ADD_FAILURE() << "at (" << px << "," << image_y << ") the sorted picture "
                      << (must_differ ? "equals the reference where the CPU says it must differ"
                                      : "differs from the reference where the CPU says it must not");
    }
  }
  std::printf("intersect %dx%d: %d pixels compared, %d within a pixel of an edge or a crossing skipped; sorted "
              "primitives must differ from the reference at %d\n",
              kW, kH, compared, skipped, must);
  EXPECT_EQ(wrong_reference, 0);
  EXPECT_EQ(wrong_sorted, 0);
  EXPECT_EQ(wrong_difference, 0);
  EXPECT_GT(must, 500) << "the scene must show where sorting whole triangles is wrong";
  EXPECT_GT(compared, kW * kH / 2) << "most pixels must be compared, not skipped";
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

// ------------------------------------------------------------------ the budget

TEST(Transparency, BudgetOverflowIsReportedAndShown) {
  const std::string json = out_path("over_budget.json");
  const std::vector<std::string> args = {"--headless", "--cpu", "--scene", "test", "--size", "160x120",
                                         "--frames", "2", "--transparency", "reference", "--fragment-budget", "100",
                                         "--difference", "--screenshot", out_path("over_budget.png"),
                                         "--json", json, "--quiet"};
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
