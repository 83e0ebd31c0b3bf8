#include "scene/scene.hpp"

#include <algorithm>
#include <cmath>

#include "scene/obj_loader.hpp"

namespace depthsort::app {

namespace {
std::string count_text(std::size_t n) {
  if (n >= 1'000'000 && n % 10'000 == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fM", static_cast<double>(n) / 1e6);
    return buf;
  }
  return std::to_string(n);
}

// Throws SceneError naming the count and the limit.
void check_count(std::size_t count, std::size_t limit, const char* what, const char* flags) {
  if (count > limit)
    throw SceneError("the scene would have " + std::to_string(count) + " " + what + ", above the limit of " +
                     std::to_string(limit) + " (OpenGL draws at most 2^31-1 indices in one call); use fewer " +
                     flags);
}
constexpr const char* kTriangleFlags = "--triangles/--copies";
}  // namespace

Scene build_scene(const Config& config, bool cpu_path, std::string& notes) {
  Scene scene;
  std::string what;
  scene.particles = config.particles.value_or(0);
  check_count(scene.particles, kMaxParticles, "particles", "--particles");
  if (!config.meshes.empty()) {
    for (const std::string& path : config.meshes) append(scene.mesh, load_obj(path));
    what = config.meshes.size() == 1 ? config.meshes.front() : std::to_string(config.meshes.size()) + " OBJ files";
    std::size_t copies = config.copies.value_or(1);
    if (config.triangles && !config.copies)
      copies = std::max<std::size_t>(1, (*config.triangles + scene.mesh.triangles() - 1) / scene.mesh.triangles());
    // Checked before tiling (copies <= 4G from the command line: the product fits 64 bits).
    check_count(scene.mesh.triangles() * copies, kMaxTriangles, "triangles", kTriangleFlags);
    if (copies > 1) {
      what += " x" + std::to_string(copies);
      scene.mesh = tile(scene.mesh, copies);
    }
    scene.opacity = 0.5f;
  } else if (config.scene == SceneKind::Knot) {
    std::size_t target = config.triangles.value_or(cpu_path ? kKnotTrianglesCpu : kKnotTrianglesGpu);
    if (cpu_path && !config.triangles)
      notes += "CPU path: the default knot is scaled down to " + count_text(kKnotTrianglesCpu) +
               " triangles (from " + count_text(kKnotTrianglesGpu) + " on the GPU path) to stay interactive; "
               "--triangles N overrides\n";
    check_count(target, kMaxTriangles, "triangles", kTriangleFlags);
    if (config.copies && *config.copies > 1) target = std::max<std::size_t>(target / *config.copies, 64);
    scene.mesh = make_knot(target);
    what = "torus knot";
    if (config.copies && *config.copies > 1) {
      check_count(scene.mesh.triangles() * *config.copies, kMaxTriangles, "triangles", kTriangleFlags);
      scene.mesh = tile(scene.mesh, *config.copies);
      what += " x" + std::to_string(*config.copies);
    }
    scene.opacity = 0.3f;
  } else if (config.scene == SceneKind::Test) {
    scene.mesh = make_test_triangles();
    what = "test triangles";
    scene.opacity = 1.0f;
    scene.lighting = false;
    scene.background = glm::vec3(0.0f);
  } else {
    what = "no mesh";
  }

  check_count(scene.mesh.triangles(), kMaxTriangles, "triangles", kTriangleFlags);  // as built (knot rounding, tiling)
  if (scene.particles > 0) what += " + " + count_text(scene.particles) + " particles";

  // Camera: the test scene's is fixed (its pixels are known); others frame what is there.
  if (config.scene == SceneKind::Test && config.meshes.empty()) {
    scene.camera = Camera{};
    scene.camera.target = glm::vec3(0.0f);
    scene.camera.distance = 3.0f;
    scene.camera.yaw = 0.0f;
    scene.camera.pitch = 0.0f;
    scene.camera.fov_y = 0.9f;
    scene.camera.near_plane = 0.1f;
    scene.camera.far_plane = 100.0f;
    scene.camera.position = scene.camera.eye();
  } else {
    glm::vec3 lo(-1.5f), hi(1.5f);
    if (scene.mesh.triangles() > 0) {
      lo = scene.mesh.bounds_min();
      hi = scene.mesh.bounds_max();
    }
    if (scene.particles > 0) {
      // The fountain rises about speed^2 / (2 g) above its origin.
      const EmitterParams& e = scene.emitter;
      const float top = e.origin[1] + e.speed * e.speed / (2.0f * e.gravity);
      lo = glm::min(lo, glm::vec3(-1.2f, e.origin[1] - 1.0f, -1.2f));
      hi = glm::max(hi, glm::vec3(1.2f, top, 1.2f));
    }
    scene.camera = Camera::framing(lo, hi);
  }
  if (config.opacity) scene.opacity = *config.opacity;
  scene.description = what + " (" + count_text(scene.mesh.triangles()) + " triangles" +
                      (scene.particles ? ", " + count_text(scene.particles) + " particles" : std::string()) + ")";
  return scene;
}

}  // namespace depthsort::app
