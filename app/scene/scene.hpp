// What a run draws: the mesh (OBJ files, the procedural knot or the test triangles, tiled), the
// particle emitter, and the look (camera, opacity, background), built from a scene description
// (SceneSpec).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "depthsort/frame/particles.hpp"
#include "scene/camera.hpp"
#include "scene/memory_estimate.hpp"
#include "scene/mesh.hpp"
#include "scene/scene_spec.hpp"

namespace depthsort::app {

// A scene above a fixed limit of the program (the counts OpenGL draws in one call, the pairs one
// order sorts): a usage error, exit status 2, like a count above the limit on the command line.
class SceneLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Scene {
  Mesh mesh;
  std::size_t particles = 0;
  // Particles that stay where they are (no simulation): the test scenes'. Empty: the fountain.
  std::vector<ParticleVertex> fixed_particles;
  EmitterParams emitter;
  Camera camera;
  // A sphere around everything drawn (the mesh and where the particles can fly): the camera's
  // near and far planes are fitted to it every frame (Camera::fit_planes).
  glm::vec3 centre{0.0f};
  float radius = 1.0f;
  float opacity = 0.35f;
  bool lighting = true;
  glm::vec3 background{0.06f, 0.065f, 0.08f};
  std::string description;                  // one line for the console and the panel
  std::string memory_line;                  // the memory estimate it was checked against (scene/memory_estimate.hpp)
  std::vector<std::string> material_files;  // the MTL files its OBJ files named (read or tried)
};

// The knot's default size on each path: the GPU path draws millions; the CPU path (software GL,
// CPU sort) scales itself down to stay interactive.
constexpr std::size_t kKnotTrianglesGpu = 2'000'000;
constexpr std::size_t kKnotTrianglesCpu = 20'000;
// The default scene's fountain (the knot at its default size, no --particles): as many particles
// as stay interactive beside the knot on each path.
constexpr std::size_t kDefaultParticlesGpu = 200 * 1024;
constexpr std::size_t kDefaultParticlesCpu = 5 * 1024;

// The largest scenes a run accepts: glDrawElements takes its index count as a GLsizei (int32),
// three indices per triangle and one per particle.
constexpr std::size_t kMaxTriangles = INT32_MAX / 3;
constexpr std::size_t kMaxParticles = INT32_MAX;

// What else a run holds beside the scene, for the memory check.
struct MemoryBudget {
  MemoryNeed extra;         // such as the timing record
  std::string extra_what;   // "the timings of 60 frames"
  std::size_t sorters = 1;  // sorters reserved at once (--cycle-sorters reserves every variant)
  bool expanded = false;    // --draw-path expanded: its vertex buffer of three vertices a primitive
};

// Builds the scene, checking its size before building anything: counts above kMaxTriangles /
// kMaxParticles throw SceneLimitError (a fixed limit: exit status 2); a scene whose memory
// estimate, with `budget`, exceeds the host's available or the device's free memory throws
// CapacityError. Bad OBJ files throw SceneError (scene/input_file.hpp). `notes` receives lines to
// print (such as the CPU path's scaling down, an unusable material library, a mesh recentred to
// be framed).
Scene build_scene(const SceneSpec& spec, bool cpu_path, std::string& notes, const MemoryBudget& budget = {});

// Where the fountain's particles go (a sample run of the emitter): the whole jet and its top,
// without the last 2 percent of faded stragglers on each side.
struct FountainReach {
  glm::vec3 lo{0.0f}, hi{0.0f};
};
FountainReach fountain_reach(const EmitterParams& emitter);

// Recentres and rescales (in double) a mesh whose coordinates float precision cannot frame: a
// radius below 1e-2 or above 1e4, or a centre more than 1e4 radii from the origin. Returns a
// note saying so, or "" if the mesh was left as it is. Drawing and depth order are unchanged by
// a translation and a uniform scale.
std::string fit_to_float_range(Mesh& mesh);

}  // namespace depthsort::app
