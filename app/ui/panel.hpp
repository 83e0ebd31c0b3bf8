// The Dear ImGui panel (windowed mode): sorter combo from the registry with each sorter's options,
// sort on/off and freeze, scene and particle controls, opacity, camera, vsync, timings with
// history plots and last-second statistics, the correctness light, GPU and memory lines.
// The panel edits a copy of UiState; the app compares it with last frame's to decide what to rebuild.
#pragma once

#include <array>
#include <span>
#include <cstddef>
#include <string>
#include <string_view>

#include "depthsort/registry.hpp"
#include "cli.hpp"
#include "compare_all.hpp"
#include "depthsort/segment_ids.hpp"
#include "frame.hpp"
#include "scene/camera.hpp"
#include "timings.hpp"

struct GLFWwindow;

namespace depthsort::app {

struct UiState {
  int sorter = 0;            // index into sorter_registry()
  OptionValues options;      // of that sorter
  bool sort = true, freeze = false, simulate = true, lighting = true, vsync = true;
  float opacity = 0.3f;
  int particles = 0;         // requested count (applied with "rebuild")
  int knot_triangles = 0;    // requested knot size (applied with "rebuild"); 0 when not a knot scene
  int check_every = 30;
  bool separate_passes = false, coherent = false, triangle_sprites = false;
  int colour_mode = 0;       // ColourMode
  bool wipe_on = false;
  float wipe = 0.5f;         // fraction of the width drawn unsorted
  CameraMode camera_mode = CameraMode::Orbit;
  // One-shot requests
  bool rebuild = false, reset_camera = false, compare_all = false, histogram = false;
  int save_view = -1, load_view = -1;
  bool operator==(const UiState&) const = default;
};

struct PanelInfo {
  std::string_view device;   // GPU name or "CPU path: why" (views: the panel allocates nothing per frame)
  std::string_view gl;       // GL renderer
  std::string_view scene;    // description
  std::string_view notes;    // such as the CPU path's scaling down of the default scene
  std::string_view error;    // the last rebuild request that failed
  std::size_t triangles = 0, particles = 0;
  std::size_t device_bytes_used = 0, device_bytes_total = 0, workspace_bytes = 0;
  bool gpu_path = true;
  DrawPath draw_path = DrawPath::Pull;  // --draw-path (fixed for the run: the expanded buffer is sized at start)
  bool headless = false;     // --panel: the scene and camera controls start closed (no one to click them)
  std::size_t segments = 0;  // the current sorter's segments in the last sort (0: none)
  const char* segment_kind = "bucket";
  // Teaching views, filled on request (buttons): compare-all bars and the last histogram.
  std::span<const StepBar> compare_bars;
  const SizeHistogram* histogram = nullptr;
  std::size_t histogram_segments = 0;
  const CheckState* check = nullptr;
  const Viewpoints* views = nullptr;
  float fps = 0;
};

// ImGui context + GLFW/OpenGL3 backends, torn down in reverse order.
class ImGuiLayer {
 public:
  explicit ImGuiLayer(GLFWwindow* window);
  // Headless: no window, a fixed display of width x height (headless --panel).
  ImGuiLayer(int width, int height);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;
  void begin_frame();
  void end_frame();  // renders the draw data
  bool wants_mouse() const;
  bool wants_keyboard() const;

 private:
  GLFWwindow* window_ = nullptr;
  int width_ = 0, height_ = 0;
};

// The panel's window. Its scratch (the plot buffer) is a member, not a function-local static.
class Panel {
 public:
  void draw(UiState& state, const PanelInfo& info, const Timings& timings, double now);

 private:
  void timing_rows(const Timings& timings, const char* group, double now);
  void teaching(UiState& state, const PanelInfo& info, const Timings& timings, double now);
  // The current sorter's live bar (last-second means of its steps): storage reused every frame.
  std::array<StepBar, 1> live_{};
  std::array<float, TimingSeries::kHistory> plot_{};  // one series' history, in time order
};

}  // namespace depthsort::app
