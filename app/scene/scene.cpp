#include "scene/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <glm/geometric.hpp>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/sorter.hpp"
#include "scene/obj_loader.hpp"

namespace depthsort::app {

namespace {
// A fixed limit of the program: a usage error (exit status 2) naming the count and the limit.
void check_count(std::size_t count, std::size_t limit, const char* what, const char* flags) {
  if (count > limit)
    throw SceneLimitError("the scene would have " + std::to_string(count) + " " + what + ", above the limit of " +
                          std::to_string(limit) + " (OpenGL draws at most 2^31-1 indices in one call); use fewer " +
                          flags);
}
constexpr const char* kTriangleFlags = "--triangles/--copies";
constexpr const char* kAdvice = "use fewer --triangles/--copies/--particles (or --frames, or a smaller --size)";
}  // namespace

std::string fit_to_float_range(Mesh& mesh) {
  if (mesh.vertices.empty()) return "";
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(std::numeric_limits<double>::lowest());
  for (const MeshVertex& v : mesh.vertices) {
    const glm::dvec3 p(v.x, v.y, v.z);
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::dvec3 centre = 0.5 * lo + 0.5 * hi;  // halves first: lo + hi may overflow a float's range
  const double radius = 0.5 * glm::length(hi - lo), offset = glm::length(centre);
  if (radius >= 1e-2 && radius <= 1e4 && offset <= 1e4 * radius) return "";
  const double scale = radius > 0 ? 1.5 / radius : 1.0;
  for (MeshVertex& v : mesh.vertices) {
    v.x = static_cast<float>((v.x - centre.x) * scale);
    v.y = static_cast<float>((v.y - centre.y) * scale);
    v.z = static_cast<float>((v.z - centre.z) * scale);
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "note: the mesh's radius is %.3g around (%.3g, %.3g, %.3g), beyond what float precision frames; "
                "drawn recentred at the origin and scaled by %.3g\n",
                radius, centre.x, centre.y, centre.z, scale);
  return buf;
}

FountainReach fountain_reach(const EmitterParams& emitter) {
  // A sample of the fountain over the longest life, the emitter's own steps (particles.hpp).
  constexpr std::uint32_t kSample = 256;
  const int steps = static_cast<int>(std::ceil(emitter.life_max / emitter.dt)) + 1;
  std::vector<float> xs, ys, zs;
  xs.reserve(static_cast<std::size_t>(kSample) * static_cast<std::size_t>(steps));
  ys.reserve(xs.capacity());
  zs.reserve(xs.capacity());
  for (std::uint32_t i = 0; i < kSample; ++i) {
    ParticleState state{};
    ParticleVertex vertex{};
    particle_init(state, vertex, emitter, i);
    for (int step = 0; step < steps; ++step) {
      particle_step(state, vertex, emitter);
      xs.push_back(vertex.x);
      ys.push_back(vertex.y);
      zs.push_back(vertex.z);
    }
  }
  const auto quantile = [](std::vector<float>& v, double q) {
    auto at = v.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), at, v.end());
    return *at;
  };
  // The jet and its top whole; the long-lived, faded stragglers that drift far down and out
  // (the last 2 percent on each side) left out, so the mesh is not shrunk to a dot for them.
  // Grown by 30 percent around its middle: Camera::framing comes close enough that a sphere
  // round the box touches the frame's edges, and the jet passes near the camera.
  const glm::vec3 lo(quantile(xs, 0.02), quantile(ys, 0.02), quantile(zs, 0.02));
  const glm::vec3 hi(quantile(xs, 0.98), *std::max_element(ys.begin(), ys.end()), quantile(zs, 0.98));
  const glm::vec3 middle = 0.5f * (lo + hi), half = 0.65f * (hi - lo) + 2.0f * emitter.size_start;
  return FountainReach{middle - half, middle + half};
}

Scene build_scene(const SceneSpec& spec, bool cpu_path, std::string& notes, const MemoryBudget& budget) {
  Scene scene;
  std::string what;
  // The default scene is the knot with a fountain of particles; a scene set otherwise (a mesh,
  // the knot at another size, the test scenes) has particles only where --particles asks.
  const bool default_scene = spec.kind == SceneKind::Knot && spec.meshes.empty() && !spec.triangles && !spec.copies;
  scene.particles =
      spec.particles.value_or(default_scene ? (cpu_path ? kDefaultParticlesCpu : kDefaultParticlesGpu) : 0);
  check_count(scene.particles, kMaxParticles, "particles", "--particles");
  // Every size is checked against the limits and the memory estimate before anything is built.
  // `triangles` as asked; the knot builds a few more (`vertices` and `built` count what is built).
  // `held`: host bytes held while the mesh is built (the OBJ files' text and vertex lists, or the
  // untiled mesh that --copies tiles).
  const auto check = [&](std::size_t triangles, std::size_t vertices, std::size_t built, std::size_t held = 0) {
    MemoryNeed need = scene_memory(built, vertices, scene.particles, cpu_path, budget.sorters, budget.expanded);
    need += budget.extra;
    need.host += held;
    std::string what = "the scene (" + std::to_string(triangles) + " triangles, " + std::to_string(scene.particles) +
                       " particles" + (budget.sorters > 1 ? ", " + std::to_string(budget.sorters) + " sorters" : "") +
                       ")";
    if (!budget.extra_what.empty()) what += " with " + budget.extra_what;
    scene.memory_line = check_memory(need, cpu_path, what, kAdvice);
  };
  if (!spec.meshes.empty()) {
    // Each file read once and checked; its triangles counted before any mesh is built.
    std::vector<ObjText> files;
    std::size_t triangles = 0, held = 0;
    for (const std::string& path : spec.meshes) {
      files.push_back(read_obj(path));
      triangles += files.back().triangles;
      held += files.back().text.size() + files.back().vertices * sizeof(glm::vec3);
    }
    what =
        spec.meshes.size() == 1 ? shown_path(spec.meshes.front()) : std::to_string(spec.meshes.size()) + " OBJ files";
    std::size_t copies = spec.copies.value_or(1);
    if (spec.triangles) copies = std::max<std::size_t>(1, (*spec.triangles + triangles - 1) / triangles);
    // copies <= 4G from the command line and triangles <= 2^30 per file: the product fits 64 bits.
    check_count(triangles * copies, kMaxTriangles, "triangles", kTriangleFlags);
    // Tiling copies the parsed mesh: that one copy is held beside the tiled mesh while it is made.
    if (copies > 1) held = std::max(held, 3 * triangles * (sizeof(MeshVertex) + sizeof(std::uint32_t)));
    check(triangles * copies, 3 * triangles * copies, triangles * copies, held);
    for (ObjText& file : files) {
      append(scene.mesh, parse_obj(file, &notes, &scene.material_files));
      file.text = std::string();  // parsed: its memory goes back now
    }
    notes += fit_to_float_range(scene.mesh);
    if (copies > 1) {
      what += " x" + std::to_string(copies);
      scene.mesh = tile(scene.mesh, copies);
    }
    scene.opacity = 0.5f;
  } else if (spec.kind == SceneKind::Knot) {
    std::size_t target = spec.triangles.value_or(cpu_path ? kKnotTrianglesCpu : kKnotTrianglesGpu);
    if (cpu_path && !spec.triangles)
      notes += default_scene && !spec.particles
                   ? "CPU path: the default scene is scaled down to " + format_count(kKnotTrianglesCpu) +
                         " triangles and " + format_count(kDefaultParticlesCpu) + " particles (from " +
                         format_count(kKnotTrianglesGpu) + " and " + format_count(kDefaultParticlesGpu) +
                         " on the GPU path) to stay interactive; --triangles N and --particles N override\n"
                   : "CPU path: the default knot is scaled down to " + format_count(kKnotTrianglesCpu) +
                         " triangles (from " + format_count(kKnotTrianglesGpu) +
                         " on the GPU path) to stay interactive; --triangles N overrides\n";
    check_count(target, kMaxTriangles, "triangles", kTriangleFlags);
    const std::size_t copies = spec.copies.value_or(1);
    if (copies > 1) {
      target /= copies;
      // --triangles N is the total: copies too many for N to hold are refused, not built larger.
      if (spec.triangles && target < kKnotMinTriangles)
        throw SceneLimitError("--triangles " + std::to_string(*spec.triangles) + " over --copies " +
                              std::to_string(copies) + " is " + std::to_string(target) +
                              " triangles a copy, but the knot has at least " + std::to_string(kKnotMinTriangles) +
                              "; give --triangles " + std::to_string(kKnotMinTriangles * copies) +
                              " or more, or fewer --copies");
    }
    // Sized as it will be built (the knot rounds its tube's segments), before it is built.
    const KnotSize size = knot_size(target);
    check_count(size.triangles() * copies, kMaxTriangles, "triangles", kTriangleFlags);
    // Tiling holds the one knot beside its copies while they are made.
    const std::size_t knot_bytes =
        copies > 1 ? size.vertices() * sizeof(MeshVertex) + 3 * size.triangles() * sizeof(std::uint32_t) : 0;
    check(target * copies, size.vertices() * copies, size.triangles() * copies, knot_bytes);
    scene.mesh = make_knot(target);
    what = "torus knot";
    if (copies > 1) {
      check_count(scene.mesh.triangles() * copies, kMaxTriangles, "triangles", kTriangleFlags);
      scene.mesh = tile(scene.mesh, copies);
      what += " x" + std::to_string(copies);
    }
    scene.opacity = 0.3f;
  } else if (spec.kind == SceneKind::Mixed) {
    // One order for every primitive: a green particle halfway between a blue
    // triangle (near) and a red one (far). Sorted together, red, green, blue blend in that order;
    // the separate passes draw both triangles first and the particle on top.
    const struct {
      float z, dx;
      glm::vec4 colour;
    } tris[2] = {{0.0f, -0.4f, {0, 0, 1, 128 / 255.0f}}, {-2.0f, 0.4f, {1, 0, 0, 128 / 255.0f}}};
    for (const auto& t : tris) {
      const auto base = static_cast<std::uint32_t>(scene.mesh.vertices.size());
      const std::uint32_t c = pack_rgba(t.colour);
      scene.mesh.vertices.push_back({-2.0f + t.dx, -1.5f, t.z, c});
      scene.mesh.vertices.push_back({2.0f + t.dx, -1.5f, t.z, c});
      scene.mesh.vertices.push_back({0.0f + t.dx, 2.0f, t.z, c});
      scene.mesh.indices.insert(scene.mesh.indices.end(), {base, base + 1, base + 2});
    }
    scene.fixed_particles.push_back(ParticleVertex{0.0f, 0.0f, -1.0f, 1.0f, pack_rgba({0, 1, 0, 128 / 255.0f})});
    scene.particles = scene.fixed_particles.size();
    what = "mixed test (2 triangles, 1 particle between them)";
    scene.opacity = 1.0f;
    scene.lighting = false;
    scene.background = glm::vec3(0.0f);
  } else if (spec.kind == SceneKind::Test || spec.kind == SceneKind::Intersect) {
    const bool test = spec.kind == SceneKind::Test;
    scene.mesh = test ? make_test_triangles() : make_intersecting_triangles();
    what = test ? "test triangles" : "intersecting triangles (2 through each other, 3 in a cycle)";
    scene.opacity = 1.0f;
    scene.lighting = false;
    scene.background = glm::vec3(0.0f);
  } else {
    what = "no mesh";
  }
  if (scene.memory_line.empty()) check(scene.mesh.triangles(), scene.mesh.vertices.size(), scene.mesh.triangles());

  check_count(scene.mesh.triangles(), kMaxTriangles, "triangles", kTriangleFlags);  // as built (knot rounding, tiling)
  // One order sorts every primitive together, as 32-bit ids of at most Sorter::kMaxPairs pairs.
  if (scene.mesh.triangles() + scene.particles > Sorter::kMaxPairs)
    throw SceneLimitError(std::to_string(scene.mesh.triangles()) + " triangles and " + std::to_string(scene.particles) +
                          " particles are sorted together, above the limit of " + std::to_string(Sorter::kMaxPairs) +
                          " primitives; use fewer --triangles/--copies/--particles");
  if (scene.particles > 0 && scene.fixed_particles.empty())
    what += " + " + format_count(scene.particles) + " particles";

  // The bounds of what is drawn: the mesh, and the fountain's reach.
  glm::vec3 lo(-1.5f), hi(1.5f);
  if (scene.mesh.triangles() > 0) {
    lo = scene.mesh.bounds_min();
    hi = scene.mesh.bounds_max();
  }
  for (const ParticleVertex& p : scene.fixed_particles) {
    lo = glm::min(lo, glm::vec3(p.x, p.y, p.z) - p.size);
    hi = glm::max(hi, glm::vec3(p.x, p.y, p.z) + p.size);
  }
  if (scene.particles > 0 && scene.fixed_particles.empty()) {
    const FountainReach reach = fountain_reach(scene.emitter);
    lo = glm::min(lo, reach.lo);
    hi = glm::max(hi, reach.hi);
  }
  scene.centre = 0.5f * (lo + hi);
  scene.radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
  // Camera: the test scenes' is fixed (their pixels are known); others frame what is there.
  if ((spec.kind == SceneKind::Test || spec.kind == SceneKind::Mixed || spec.kind == SceneKind::Intersect) &&
      spec.meshes.empty()) {
    scene.camera = Camera{};
    scene.camera.target = glm::vec3(0.0f);
    // Far enough that the near triangle (y from -1.5 to 2, x from -2.4 to 1.6) is whole in a
    // 4:3 view, with a margin: the presenter's teaching scene must not be cut at any window size.
    // The intersecting scene is smaller (x within 1.7 of the centre, y within 1.1): nearer.
    scene.camera.distance = spec.kind == SceneKind::Intersect ? 3.0f : 4.6f;
    scene.camera.yaw = 0.0f;
    scene.camera.pitch = 0.0f;
    scene.camera.fov_y = 0.9f;
    scene.camera.near_plane = 0.1f;
    scene.camera.far_plane = 100.0f;
    scene.camera.min_distance = 0.05f;
    scene.camera.max_distance = 30.0f;
    scene.camera.position = scene.camera.eye();
  } else {
    scene.camera = Camera::framing(lo, hi);
  }
  if (spec.opacity) scene.opacity = *spec.opacity;
  scene.description = what + " (" + format_count(scene.mesh.triangles()) + " triangles" +
                      (scene.particles ? ", " + format_count(scene.particles) + " particles" : std::string()) + ")";
  return scene;
}

}  // namespace depthsort::app
