// The demo's input hardening: OBJ/MTL files read once and bounded, their encoding,
// non-regular and huge files, linear triangulation, file content escaped in messages, and any
// finite mesh framed. CPU tests: the real binary runs headless on the CPU path (Mesa EGL).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "depthsort/host/count_text.hpp"
#include "loop/frame_pipeline.hpp"
#include "depthsort/host/memory_available.hpp"
#include "scene/memory_estimate.hpp"
#include "scene/obj_loader.hpp"
#include "scene/scene.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = out_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

const std::string kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

bool printable(const std::string& text) {
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7F) return false;
  return true;
}

// ------------------------------------------------------------------ encoding

TEST(ObjEncoding, Utf8ByteOrderMarkKeepsTheFirstVertex) {
  const std::string mtl = write_file("bom.mtl", "\xEF\xBB\xBFnewmtl red\nKd 1 0 0\nd 0.5\n");
  const std::string obj = write_file("bom.obj",
                                     "\xEF\xBB\xBFv 5 0 0\nv 6 0 0\nv 5 1 0\nv 9 9 9\nmtllib bom.mtl\n"
                                     "usemtl red\nf 1 2 3\n");
  std::string notes;
  const Mesh mesh = load_obj(obj, &notes);
  ASSERT_EQ(mesh.triangles(), 1u);
  EXPECT_EQ(mesh.vertices[0].x, 5.0f) << "the first vertex was dropped (indices shifted)";
  EXPECT_EQ(mesh.vertices[1].x, 6.0f);
  EXPECT_EQ(mesh.vertices[0].rgba, pack_rgba({1, 0, 0, 0.5f})) << "the MTL's BOM hid its first line";
  EXPECT_EQ(notes, "");
}

TEST(ObjEncoding, Utf16IsRefusedSayingSo) {
  std::string le = "\xFF\xFE", be = "\xFE\xFF", bare;
  for (const char c : kTriangle) {
    le += c, le += '\0';
    be += '\0', be += c;
    bare += c, bare += '\0';
  }
  for (const auto& [name, bytes] : {std::pair{"utf16le.obj", le}, {"utf16be.obj", be}, {"utf16bare.obj", bare}}) {
    const std::string error = obj_load_error(write_file(name, bytes));
    EXPECT_NE(error.find("UTF-16"), std::string::npos) << name << ": " << error;
  }
  const std::string error = obj_load_error(write_file("nul.obj", kTriangle + std::string("v 1 2 \0 3\n", 10)));
  EXPECT_NE(error.find("nul.obj:5: a NUL byte"), std::string::npos) << error;
}

// ------------------------------------------------------------------ read once, bounded

TEST(ObjInput, PipeIsReadOnce) {
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--mesh", "/dev/stdin", "--frames", "2", "--size", "64x64"},
                    "cat '" + data_path("good.obj") + "' |");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(4 triangles)"), std::string::npos) << r.output;
}

TEST(ObjInput, FifoIsReadWhenItsWriterComes) {
  const std::string fifo = out_path("mesh.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the reader opens first
    std::ofstream(fifo) << kTriangle;
  });
  std::string error;
  std::size_t triangles = 0;
  try {
    triangles = load_obj(fifo).triangles();
  } catch (const SceneError& e) {
    error = e.what();
  }
  writer.join();
  EXPECT_EQ(triangles, 1u) << error;
  std::remove(fifo.c_str());
}

TEST(ObjInput, FifoWithoutWriterIsRefusedNotWaitedOnForever) {
  const std::string fifo = out_path("silent.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string error = obj_load_error(fifo);
  EXPECT_NE(error.find("no data from the pipe for 10 s"), std::string::npos) << error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(kPipeTimeoutSeconds + 5));
  std::remove(fifo.c_str());
}

TEST(ObjInput, DevicesAndHugeFilesAreRefusedBeforeReading) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(obj_load_error("/dev/zero").find("/dev/zero: is a character device"), std::string::npos);
  const std::string huge = out_path("huge.obj");
  { std::ofstream(huge, std::ios::binary) << ""; }
  ASSERT_EQ(truncate(huge.c_str(), static_cast<off_t>(kMaxObjBytes) + 1), 0);  // sparse: no disk used
  EXPECT_NE(obj_load_error(huge).find("above the limit of 1024 MiB"), std::string::npos) << obj_load_error(huge);
  std::remove(huge.c_str());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--mesh", "/dev/zero", "--frames", "1"}, "timeout 60");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("not an OBJ file"), std::string::npos) << r.output;
}

TEST(ObjInput, UnusableMaterialLibraryIsANote) {
  for (const auto& [name, library, why] : {std::tuple{"mtl_zero.obj", "/dev/zero", "is a character device"},
                                           std::tuple{"mtl_missing.obj", "nowhere.mtl", "no such file"},
                                           std::tuple{"mtl_empty.obj", "empty.mtl", "defines no material"}}) {
    write_file("empty.mtl", "# no newmtl\n");
    const std::string obj = write_file(name, std::string("mtllib ") + library + "\nusemtl x\n" + kTriangle);
    std::string notes;
    const auto start = std::chrono::steady_clock::now();
    const Mesh mesh = load_obj(obj, &notes);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_EQ(mesh.triangles(), 1u);
    EXPECT_NE(notes.find(std::string("mtllib '") + library + "' not used"), std::string::npos) << notes;
    EXPECT_NE(notes.find(why), std::string::npos) << notes;
    EXPECT_EQ(std::count(notes.begin(), notes.end(), '\n'), 1) << "one line: " << notes;
  }
}

// ------------------------------------------------------------------ triangulation

double area(const Mesh& mesh) {
  double sum = 0;
  for (std::size_t t = 0; t < mesh.triangles(); ++t) {
    const MeshVertex& a = mesh.vertices[mesh.indices[3 * t]];
    const MeshVertex& b = mesh.vertices[mesh.indices[3 * t + 1]];
    const MeshVertex& c = mesh.vertices[mesh.indices[3 * t + 2]];
    sum += 0.5 * std::abs((double{b.x} - a.x) * (double{c.y} - a.y) - (double{b.y} - a.y) * (double{c.x} - a.x));
  }
  return sum;
}

TEST(ObjTriangulation, HugeFaceIsLinear) {
  constexpr int kCorners = 300'000;
  std::string text;
  text.reserve(kCorners * 40);
  for (int i = 0; i < kCorners; ++i) {
    const double a = 2.0 * M_PI * i / kCorners;
    text += "v " + std::to_string(std::cos(a)) + " " + std::to_string(std::sin(a)) + " 0\n";
  }
  text += "f";
  for (int i = 1; i <= kCorners; ++i) text += " " + std::to_string(i);
  text += "\n";
  const std::string path = write_file("huge_face.obj", text);
  const auto start = std::chrono::steady_clock::now();
  const Mesh mesh = load_obj(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(mesh.triangles(), static_cast<std::size_t>(kCorners - 2));
  EXPECT_LT(seconds, 3.0) << "a 300K-corner face took " << seconds << " s";
  EXPECT_NEAR(area(mesh), M_PI, 1e-3);
}

TEST(ObjTriangulation, ConcavePolygonsStayInside) {
  // An L (area 3) and a notched square (area 10) with reflex corners: a fan from the notched
  // square's first corner would cover area 14, outside it.
  const std::string path = write_file("concave.obj",
                                      "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nf 4 5 6 1 2 3\n"
                                      "v 0 0 1\nv 4 0 1\nv 4 4 1\nv 2 1 1\nv 0 4 1\nf 7 8 9 10 11\n");
  const Mesh mesh = load_obj(path);
  EXPECT_EQ(mesh.triangles(), 4u + 3u);
  EXPECT_NEAR(area(mesh), 3.0 + 10.0, 1e-6);
}

// ------------------------------------------------------------------ messages

TEST(ObjMessages, FileContentIsEscapedAndCut) {
  const std::string hostile = "\x1b]0;owned\x07\x1b[2J" + std::string(10'000'000, 'x');
  const std::string path = write_file("hostile.obj", "v 0 0 " + hostile + "\n");
  const std::string error = obj_load_error(path);
  EXPECT_TRUE(printable(error)) << error.substr(0, 200);
  EXPECT_LT(error.size(), 300u) << error.substr(0, 300);
  EXPECT_NE(error.find("hostile.obj:1: vertex coordinate '\\x1b]0;owned\\x07\\x1b[2Jxxx"), std::string::npos) << error;
  EXPECT_NE(error.find("...(" + std::to_string(hostile.size()) + " bytes)"), std::string::npos) << error;
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--mesh", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(printable(r.output)) << r.output.substr(0, 300);
  EXPECT_LT(r.output.size(), 400u);
}

TEST(TextEscaping, PathsArePlainUnlessTheyNeedEscaping) {
  EXPECT_EQ(shown_path("meshes/a b.obj"), "meshes/a b.obj");
  EXPECT_EQ(shown_path("caf\xC3\xA9.obj"), "caf\xC3\xA9.obj");  // valid UTF-8 kept
  EXPECT_EQ(shown_path("bad\xFF\x1b[2J.obj"), "'bad\\xff\\x1b[2J.obj'");
}

// ------------------------------------------------------------------ framing

int non_background_pixels(const Image& image) {
  const auto bg = image.at(0, 0);
  int count = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) count += image.at(x, y) != bg;
  return count;
}

std::string tetrahedron(double scale, double offset) {
  std::string text;
  char line[160];
  for (const auto& v : {std::array{0, 0, 0}, std::array{1, 0, 0}, std::array{0, 1, 0}, std::array{0, 0, 1}}) {
    std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", v[0] * scale + offset, v[1] * scale + offset,
                  v[2] * scale + offset);
    text += line;
  }
  return text + "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n";
}

TEST(Framing, AnyFiniteMeshIsDrawn) {
  const struct {
    const char* name;
    double scale, offset;
  } cases[] = {{"unit", 1, 0},           {"large", 1e7, 0},    {"huge", 1e37, -1e37}, {"tiny", 1e-6, 0},
               {"small_far", 1e-3, 1e3}, {"unit_far", 1, 1e7}, {"tinier", 1e-30, 0}};
  for (const auto& c : cases) {
    const std::string obj = write_file(std::string("frame_") + c.name + ".obj", tetrahedron(c.scale, c.offset));
    const std::string png = out_path(std::string("frame_") + c.name + ".png");
    std::remove(png.c_str());
    const CommandResult r =
        run_depthsort({"--headless", "--cpu", "--mesh", obj, "--size", "96x96", "--frames", "2", "--screenshot", png});
    ASSERT_EQ(r.status, 0) << c.name << ": " << r.output;
    const Image image = read_png(png);
    EXPECT_GT(non_background_pixels(image), 96 * 96 / 20) << c.name << ": blank or nearly blank frame\n" << r.output;
  }
}

TEST(Framing, OnlyNonFiniteCoordinatesAreRefused) {
  // Beyond a float's range (3.4e38) a coordinate is infinite once read: that cannot be framed.
  for (const char* number : {"1e39", "-1e40", "inf", "nan"}) {
    const std::string error =
        obj_load_error(write_file("nonfinite.obj", std::string("v 0 0 ") + number + "\n" + kTriangle));
    EXPECT_NE(error.find(std::string("nonfinite.obj:1: vertex coordinate '") + number + "' is not a finite number"),
              std::string::npos)
        << error;
  }
}

TEST(Framing, FitLeavesOrdinaryMeshesAlone) {
  Mesh mesh = make_test_triangles();
  const Mesh before = mesh;
  EXPECT_EQ(fit_to_float_range(mesh), "");
  EXPECT_EQ(mesh.vertices[4].x, before.vertices[4].x);
  Mesh far = make_test_triangles();
  for (MeshVertex& v : far.vertices) v.x += 3e7f;
  EXPECT_NE(fit_to_float_range(far), "");
  EXPECT_LT(std::abs(far.bounds_min().x + far.bounds_max().x), 1e-3f);  // recentred
}

}  // namespace
}  // namespace depthsort::app::test

// ------------------------------------------------------------------ sizes checked first

namespace depthsort::app::test {
namespace {

TEST(Limits, MemoryIsEstimatedBeforeBuilding) {
  if (host_memory_available().value_or(0) > (std::uint64_t{400} << 30))
    GTEST_SKIP() << "this machine holds the estimates below";
  const auto timed = [](std::vector<std::string> args) {
    const auto start = std::chrono::steady_clock::now();
    const CommandResult r = run_depthsort(args, "timeout 120");
    return std::pair{r, std::chrono::steady_clock::now() - start};
  };
  // Near the triangle limit with the most particles: hundreds of GiB, refused before building.
  auto [r, took] =
      timed({"--headless", "--cpu", "--triangles", "700000000", "--particles", "2000000000", "--frames", "1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(
      r.output.find("the scene (700000000 triangles, 2000000000 particles) with the timings of 1 frames and a 1280x720 "
                    "frame needs about"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("of host memory (estimate), but"), std::string::npos) << r.output;
  EXPECT_LT(took, std::chrono::seconds(10));
  // Every frame's timings are kept for the medians: 10^8 frames is about 217 GiB.
  std::tie(r, took) = timed({"--headless", "--cpu", "--scene", "test", "--frames", "100000000"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("with the timings of 100000000 frames and a 1280x720 frame needs about"), std::string::npos)
      << r.output;
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(Limits, EstimateIsReported) {
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "test", "--frames", "1", "--size", "32x32"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("memory (estimate): "), std::string::npos) << r.output;
}

}  // namespace
}  // namespace depthsort::app::test

// ------------------------------------------------------------------ --cycle-sorters

namespace depthsort::app::test {
namespace {

TEST(CycleSorters, EveryFrameCheckedAndMemorySampled) {
  const std::string json = out_path("cycle.json");
  std::remove(json.c_str());
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--cycle-sorters", "--frames", "7", "--triangles",
                                         "3000", "--particles", "500", "--size", "64x64", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--cycle-sorters: the CPU path has only the CPU sorter"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("order checks: 7/7 passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("memory over the run (2 samples"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["meta"]["sorter"], "cycle");
  EXPECT_EQ(j["meta"]["order_checks"], 7);
  EXPECT_EQ(j["meta"]["cycle_sorters"][0]["sorter"], "cpu");
  ASSERT_EQ(j["meta"]["memory_samples"].size(), 2u);
  EXPECT_EQ(j["meta"]["memory_samples"][1]["frame"], 6);
  EXPECT_GT(j["meta"]["memory_samples"][1]["host_resident_bytes"].get<std::size_t>(), 0u);
}

TEST(CycleSorters, WindowedUnderXvfb) {
  if (!have_tool("xvfb-run")) GTEST_SKIP() << "xvfb-run not installed";
  const std::string json = out_path("cycle_windowed.json");
  std::remove(json.c_str());
  const CommandResult r = run_depthsort(
      {"--cpu", "--cycle-sorters", "--frames", "12", "--triangles", "2K", "--size", "320x200", "--json", json},
      "xvfb-run -a -s '-screen 0 800x600x24'");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(json);
  const nlohmann::json meta = nlohmann::json::parse(in)["meta"];
  EXPECT_EQ(meta["order_checks"], 12);
  EXPECT_EQ(meta["order_check_failures"], 0);
  EXPECT_EQ(meta["memory_samples"].size(), 2u);
}

TEST(CycleSorters, ConflictsAreUsageErrors) {
  EXPECT_EQ(run_depthsort({"--cycle-sorters", "--sorter", "cpu"}).status, 2);
  EXPECT_EQ(run_depthsort({"--cycle-sorters", "--no-sort"}).status, 2);
}

TEST(CycleSorters, ChoicesCoverEveryVariant) {
  const std::vector<SorterChoice> cpu = cycle_choices(Backend::Cpu);
  ASSERT_FALSE(cpu.empty());
  for (const SorterChoice& c : cpu) EXPECT_EQ(c.info->backend, Backend::Cpu);
  std::size_t variants = 0;
  for (const SorterInfo& info : sorter_registry())
    if (info.backend == Backend::Cpu) variants += option_variants(info).size();
  EXPECT_EQ(cpu.size(), variants);
}

}  // namespace
}  // namespace depthsort::app::test

// ------------------------------------------------------------------ the command line

namespace depthsort::app::test {
namespace {

void expect_usage_error(std::vector<std::string> args, const std::string& text) {
  const CommandResult r = run_depthsort(args);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(text), std::string::npos) << r.output;
}

TEST(CommandLineStrict, NothingIsSilentlyIgnored) {
  expect_usage_error({"--screenshot", ""}, "--screenshot needs a file name, got ''");
  expect_usage_error({"--json", ""}, "--json needs a file name, got ''");
  expect_usage_error({"--scene", "test", "--copies", "4"}, "--copies sizes a mesh, but --scene test has none to tile");
  expect_usage_error({"--scene", "none", "--triangles", "4K"}, "--triangles sizes a mesh, but --scene none");
  expect_usage_error({"--copies", "1.5"}, "--copies needs a count such as 1000, 250K or 2^20, got '1.5'");
  expect_usage_error({"--mesh", data_path("good.obj"), "--copies", "2", "--triangles", "100"},
                     "--copies and --triangles both size the tiling");
  for (const char* list : {"shuffle=1,", ",shuffle=1", "shuffle=1,,buckets=1024", ""})
    expect_usage_error({"--sorter", "hybrid", "--sorter-options", list}, "has an empty entry");
  expect_usage_error({"stray"}, "unexpected argument 'stray'");
  expect_usage_error({"--frames", "1000000000"}, "--frames '1000000000' is 1000000000, above the limit of 100000000");
}

TEST(CommandLineStrict, CountsAreBinaryAndDocumented) {
  const CommandResult help = run_depthsort({"--help"});
  EXPECT_NE(help.output.find("1K = 1024, 16M = 2^24"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("Exit status: 0 success"), std::string::npos) << help.output;
  for (const auto& line : {std::string("--cycle-sorters"), std::string("--screenshot FILE")})
    EXPECT_NE(help.output.find(line), std::string::npos) << line;
  const std::string json = out_path("binary_count.json");
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "none", "--particles", "1K", "--frames", "1",
                                         "--size", "32x32", "--json", json});
  EXPECT_EQ(r.status, 0) << r.output;
  std::ifstream in(json);
  EXPECT_EQ(nlohmann::json::parse(in)["meta"]["particles"], 1024);
}

}  // namespace
}  // namespace depthsort::app::test

// ------------------------------------------------------------------ outputs

namespace depthsort::app::test {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

TEST(Outputs, WriteFailuresExitOneNamingFileAndReason) {
  CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "test", "--frames", "2", "--size", "64x64",
                                   "--screenshot", "/dev/full", "--json", "/dev/full"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--screenshot: cannot write '/dev/full': No space left on device"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--json: cannot write '/dev/full': No space left on device"), std::string::npos) << r.output;

  // A disk that fills up part way: a file size limit of 8 KiB (SIGXFSZ ignored, so writes fail
  // with EFBIG). Neither output may be left behind, whole or partial, nor any temporary file.
  const std::string dir = out_path("full_disk");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string png = dir + "/frame.png", json = dir + "/frame.json";
  r = run_depthsort({"--headless", "--cpu", "--frames", "60", "--size", "256x256", "--screenshot", png, "--json", json},
                    "sh -c 'trap \"\" XFSZ; ulimit -f 8; exec \"$@\"' sh");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--screenshot: cannot write '" + png + "': File too large"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--json: cannot write '" + json + "': File too large"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a partial or temporary file was left in " << dir;
}

TEST(Outputs, AnOutputNeverReplacesAnInputOrAnotherOutput) {
  const std::string dir = out_path("clash");
  std::filesystem::remove_all(dir);  // nothing left from an earlier run
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(data_path("good.obj"), dir + "/good.obj",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(data_path("good.mtl"), dir + "/good.mtl",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string obj = dir + "/good.obj", mtl = dir + "/good.mtl";
  const auto before = std::filesystem::file_size(mtl);
  const std::vector<std::string> base = {"--headless", "--cpu", "--frames", "2", "--size", "64x64"};
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_depthsort(args);
  };
  CommandResult r = run({"--mesh", obj, "--json", dir + "/./good.obj"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("is the same file as --mesh"), std::string::npos) << r.output;
  r = run({"--mesh", obj, "--screenshot", mtl});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("is the same file as mtllib"), std::string::npos) << r.output;
  EXPECT_EQ(std::filesystem::file_size(mtl), before);
  r = run({"--scene", "test", "--screenshot", dir + "/out", "--json", dir + "/../clash/out"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("is the same file as --screenshot"), std::string::npos) << r.output;
  EXPECT_FALSE(exists(dir + "/out"));
}

}  // namespace
}  // namespace depthsort::app::test

// ------------------------------------------------------------------ paths in output

namespace depthsort::app::test {
namespace {

TEST(PathsInOutput, InvalidUtf8AndControlBytesStayOutOfTheTerminalAndTheJson) {
  const std::string dir = out_path("odd_names");
  std::filesystem::create_directories(dir);
  const std::string obj = dir + "/bad\xFF\x1b[2J.obj", json = dir + "/timings\xFE.json";
  std::filesystem::copy_file(data_path("good.obj"), obj, std::filesystem::copy_options::overwrite_existing);
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--mesh", obj, "--frames", "2", "--size", "32x32", "--json", json});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "a raw escape byte reached the terminal";
  EXPECT_EQ(r.output.find('\xFF'), std::string::npos);
  EXPECT_NE(r.output.find("bad\\xff\\x1b[2J.obj"), std::string::npos) << r.output;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);  // strict: throws on invalid UTF-8
  EXPECT_EQ(j["meta"]["triangles"], 4);
  EXPECT_NE(j["meta"]["meshes"][0].get<std::string>().find("bad\xEF\xBF\xBD"), std::string::npos)  // U+FFFD
      << j["meta"]["meshes"].dump();
}

}  // namespace
}  // namespace depthsort::app::test
