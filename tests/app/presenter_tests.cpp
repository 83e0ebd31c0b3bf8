// The demo in front of an audience, in-process: the frame-rate figure, the camera's planes and
// zoom, the initial framing with the particles, and the one settings struct's frame plan.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include "cli/command_line.hpp"
#include "depthsort/frame/particles.hpp"
#include "ui/frame_rate.hpp"
#include "scene/camera.hpp"
#include "scene/scene.hpp"
#include "loop/frame_plan.hpp"
#include "settings.hpp"

namespace depthsort::app::test {
namespace {

// ------------------------------------------------------------------ the frame rate

double rate_of_frames(double frame_seconds, int frames) {
  FrameRate rate;
  for (int i = 0; i < frames; ++i) rate.add(10.0 + frame_seconds * i);
  return rate.fps();
}

TEST(FrameRate, SlowFramesShowTheirOwnRate) {
  // 856 ms a frame (1M particles on the CPU path): 1.17 fps, not the 10 that a frame time
  // capped at 0.1 s gives, from the second frame on (no slow average to climb down).
  EXPECT_NEAR(rate_of_frames(0.856, 2), 1.0 / 0.856, 1e-6);
  EXPECT_NEAR(rate_of_frames(0.856, 5), 1.0 / 0.856, 1e-6);
  EXPECT_NEAR(rate_of_frames(1.0, 4), 1.0, 1e-6);
  EXPECT_NEAR(rate_of_frames(3.0, 3), 1.0 / 3.0, 1e-6);
}

TEST(FrameRate, FastFramesShowTheirOwnRate) {
  EXPECT_NEAR(rate_of_frames(0.001, 3000), 1000.0, 1e-3);
  EXPECT_NEAR(rate_of_frames(1.0 / 60.0, 200), 60.0, 1e-6);
  // Above the ring's capacity a second: still the rate.
  EXPECT_NEAR(rate_of_frames(1.0 / 8000.0, 20000), 8000.0, 1e-2);
}

TEST(FrameRate, FollowsAChangeWithinASecond) {
  FrameRate rate;
  double t = 0;
  for (int i = 0; i < 600; ++i) rate.add(t += 0.01);  // 100 fps for 6 s
  for (int i = 0; i < 3; ++i) rate.add(t += 0.5);     // then 2 fps
  EXPECT_NEAR(rate.fps(), 2.0, 1e-6);
  for (int i = 0; i < 120; ++i) rate.add(t += 0.005);  // then 200 fps
  EXPECT_NEAR(rate.fps(), 200.0, 1e-3);
}

TEST(FrameRate, NothingBeforeTwoFramesAndAfterAReset) {
  FrameRate rate;
  EXPECT_EQ(rate.fps(), 0.0);
  rate.add(1.0);
  EXPECT_EQ(rate.fps(), 0.0);
  rate.add(1.5);
  EXPECT_NEAR(rate.fps(), 2.0, 1e-9);
  rate.reset();
  rate.add(9.0);
  EXPECT_EQ(rate.fps(), 0.0);
}

// ------------------------------------------------------------------ the camera keeps the scene

SceneSpec knot_spec(std::size_t particles) {
  SceneSpec spec;
  spec.triangles = 4000;
  if (particles > 0) spec.particles = particles;
  return spec;
}

// Every corner of the scene's bounding cube around (centre, radius) lies between the planes.
void expect_between_planes(const Camera& camera, glm::vec3 centre, float radius, const std::string& what) {
  const glm::mat4 view = camera.view();
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 offset((corner & 1) ? radius : -radius, (corner & 2) ? radius : -radius,
                           (corner & 4) ? radius : -radius);
    // The sphere's points: the corner direction scaled to the radius.
    const glm::vec3 p = centre + offset / std::sqrt(3.0f);
    const float depth = -(view * glm::vec4(p, 1.0f)).z;
    EXPECT_LE(depth, camera.far_plane) << what << ": corner " << corner << " beyond the far plane";
    EXPECT_GE(depth, camera.near_plane) << what << ": corner " << corner << " before the near plane";
  }
}

TEST(CameraPlanes, ZoomingOutKeepsTheWholeScene) {
  std::string notes;
  const Scene scene = build_scene(knot_spec(0), true, notes);
  Camera camera = scene.camera;
  for (int step = 1; step <= 40; ++step) {
    camera.zoom(std::pow(0.9f, -1.0f));  // one wheel step out
    camera.fit_planes(scene.centre, scene.radius);
    expect_between_planes(camera, scene.centre, scene.radius, "after " + std::to_string(step) + " steps out");
  }
  // The zoom stops at a sensible distance: ten times the framing distance.
  EXPECT_LE(camera.distance, 10.0f * scene.camera.distance * 1.0001f);
  for (int step = 0; step < 200; ++step) camera.zoom(0.9f);  // all the way in
  EXPECT_GE(camera.distance, 0.02f * scene.radius * 0.999f);
  EXPECT_GT(camera.distance, 0.0f);
}

TEST(CameraPlanes, DepthPrecisionIsSpentOnTheScene) {
  std::string notes;
  const Scene scene = build_scene(knot_spec(0), true, notes);
  Camera camera = scene.camera;
  camera.fit_planes(scene.centre, scene.radius);
  // Outside the scene: the planes hug it (the old planes spanned 0.001 x distance to distance + 4 radii).
  EXPECT_GT(camera.near_plane, 0.5f * (scene.camera.distance - scene.radius));
  EXPECT_LT(camera.far_plane, 1.1f * (scene.camera.distance + scene.radius));
  // Inside it (fly mode through the middle): near is a fixed fraction of far, never 0.
  camera.set_mode(CameraMode::Fly);
  camera.position = scene.centre;
  camera.fit_planes(scene.centre, scene.radius);
  EXPECT_GT(camera.near_plane, 0.0f);
  EXPECT_LE(camera.far_plane / camera.near_plane, 4000.0f * 1.001f);
  EXPECT_GE(camera.far_plane, scene.radius);
}

TEST(CameraFraming, TheFountainIsInsideTheFirstFrame) {
  std::string notes;
  const Scene scene = build_scene(knot_spec(3000), true, notes);
  Camera camera = scene.camera;
  camera.fit_planes(scene.centre, scene.radius);
  const float aspect = 16.0f / 9.0f;
  const glm::mat4 clip = camera.projection(aspect) * camera.view();
  std::vector<ParticleState> states(scene.particles);
  std::vector<ParticleVertex> vertices(scene.particles);
  for (std::size_t i = 0; i < scene.particles; ++i)
    particle_init(states[i], vertices[i], scene.emitter, static_cast<std::uint32_t>(i));
  // Ten seconds of the fountain: the jet's upper part and its top (every position more than 1
  // above the emitter) inside the window, and nearly every position of the rest (the faded
  // stragglers may drift out).
  int outside = 0, outside_above = 0, positions = 0;
  float highest = -1e9f;
  for (int frame = 0; frame < 600; ++frame) {
    for (std::size_t i = 0; i < scene.particles; ++i) {
      particle_step(states[i], vertices[i], scene.emitter);
      const glm::vec4 c = clip * glm::vec4(vertices[i].x, vertices[i].y, vertices[i].z, 1.0f);
      highest = std::max(highest, vertices[i].y);
      const bool out = std::abs(c.x) > c.w || std::abs(c.y) > c.w || c.z < -c.w || c.z > c.w;
      outside += out ? 1 : 0;
      outside_above += out && vertices[i].y > scene.emitter.origin[1] + 1.0f ? 1 : 0;
      ++positions;
    }
  }
  EXPECT_EQ(outside_above, 0) << "the jet leaves the first frame's view; the highest reached y = " << highest;
  EXPECT_LT(outside, positions / 100) << outside << " of " << positions << " positions outside the view";
}

// ------------------------------------------------------------------ one settings struct

TEST(Settings, ThePlanAppliesEachRuleOnce) {
  Scene scene;  // four particles of the fountain, no mesh
  scene.particles = 4;
  const FrameClock clock{2.0, 0.5f};
  Settings s;
  s.colour = ColourMode::Segment;
  s.wipe_on = true;
  s.wipe = 0.25f;
  FramePlan p = plan_frame(s, scene, clock, 100.0f, 0.0f, false);
  EXPECT_TRUE(p.order && p.sort && p.simulate);
  EXPECT_TRUE(p.segments);
  EXPECT_EQ(p.colour, ColourMode::Segment);
  EXPECT_FLOAT_EQ(p.wipe, 0.25f);
  EXPECT_EQ(p.check_every, 30);
  EXPECT_FLOAT_EQ(p.emitter.time, 2.0f);
  EXPECT_FLOAT_EQ(p.emitter.dt, 0.5f);
  // The separate passes draw the scene's colours and no wipe.
  s.separate_passes = true;
  p = plan_frame(s, scene, clock, 100.0f, 0.0f, false);
  EXPECT_FALSE(p.segments);
  EXPECT_EQ(p.colour, ColourMode::Scene);
  EXPECT_LT(p.wipe, 0.0f);
  // The expanded draw writes its own colours (no segment ids) and draws triangle sprites.
  s.separate_passes = false;
  s.draw_path = DrawPath::Expanded;
  s.triangle_sprites = false;
  p = plan_frame(s, scene, clock, 100.0f, 0.0f, true);
  EXPECT_FALSE(p.segments);
  EXPECT_TRUE(p.expand && p.triangle_sprites);
  EXPECT_EQ(p.check_every, 1);  // cycling sorters: every frame checked
  // A frozen order is neither ordered nor sorted; an empty scene has nothing to order or expand.
  s.freeze = true;
  p = plan_frame(s, scene, clock, 100.0f, 0.0f, false);
  EXPECT_FALSE(p.order || p.sort || p.segments);
  s.freeze = false;
  p = plan_frame(s, Scene{}, clock, 100.0f, 0.0f, false);
  EXPECT_FALSE(p.order || p.expand || p.simulate);
}

TEST(Settings, AChangeOfSorterOrOptionsAsksForARebuild) {
  Settings a;
  Settings b = a;
  EXPECT_FALSE(settings_change(a, b).sorter);
  b.freeze = true;
  EXPECT_FALSE(settings_change(a, b).sorter);  // a frame-plan setting: nothing to rebuild
  b.options["shuffle"] = 1;
  EXPECT_TRUE(settings_change(a, b).sorter);
  b = a;
  b.sorter_index = 3;
  EXPECT_TRUE(settings_change(a, b).sorter);
  b = a;
  b.fullscreen = true;
  EXPECT_TRUE(settings_change(a, b).fullscreen);
}

TEST(Settings, HelpListsThePresenterKeys) {
  const std::string help = help_text();
  for (const char* key : {"Esc", "Ctrl+Q", "F1", "F11", "Space", "W A S D, Q E", "wheel"})
    EXPECT_NE(help.find(key), std::string::npos) << key;
}

}  // namespace
}  // namespace depthsort::app::test
