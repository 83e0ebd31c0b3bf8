#include "loop/run.hpp"
#include "loop/run_state.hpp"

#include "render/gl.hpp"  // glad before cuda_gl_interop.h (which includes GL/gl.h)

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>


#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/host/output_file.hpp"
#include "depthsort/sort/registry.hpp"
#include "loop/frame_pipeline.hpp"
#include "scene/memory_estimate.hpp"
#include "platform/egl_headless.hpp"
#include "platform/glfw_window.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"
#include "depthsort/host/count_text.hpp"
#include "loop/timings.hpp"

namespace depthsort::app {

namespace {

std::string cuda_device_name() {
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&props, device) != cudaSuccess) return "?";
  char buf[320];
  std::snprintf(buf, sizeof buf, "CUDA device %d: %s (sm_%d%d, %.0f GiB)", device, props.name, props.major,
                props.minor, static_cast<double>(props.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// True if the current GL context runs on a CUDA device (interop possible).
bool gl_context_on_cuda_device(std::string& why_not) {
  unsigned int count = 0;
  int devices[4] = {};
  const cudaError_t status = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
  if (status != cudaSuccess || count == 0) {
    why_not = std::string("the OpenGL context is not on a CUDA device (cudaGLGetDevices: ") +
              (status == cudaSuccess ? "none" : cudaGetErrorString(status)) + ")";
    cudaGetLastError();
    return false;
  }
  DEPTHSORT_CUDA_CHECK(cudaSetDevice(devices[0]));
  return true;
}

// Throws, before any frame runs, if `path` (given with `flag`) cannot be written, so that a bad
// --screenshot path does not cost the --json results of a long run (or the other way round): an
// OutputFile is opened in the target's folder, as the final write will, and dropped (which
// removes its temporary file; the target is not touched).
void check_writable(const std::string& path, const char* flag) {
  if (path.empty()) return;
  try {
    OutputFile probe(path);
  } catch (const OutputError& e) {
    throw OutputError(std::string(flag) + ": " + e.what());
  }
}

// No output may replace an input or another output: a mistyped flag must not destroy data.
void check_paths(const RunOptions& options, const SceneSpec& scene, const std::vector<std::string>& material_files) {
  std::vector<NamedPath> inputs, outputs;
  for (const std::string& mesh : scene.meshes) inputs.push_back({"--mesh", mesh});
  for (const std::string& mtl : material_files) inputs.push_back({"mtllib", mtl});
  outputs.push_back({"--screenshot", options.screenshot});
  outputs.push_back({"--json", options.json});
  if (const std::string clash = find_path_clash(inputs, outputs); !clash.empty()) throw UsageError(clash);
}

int registry_index(const SorterInfo& info) {
  const auto registry = sorter_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (&registry[i] == &info) return static_cast<int>(i);
  return 0;
}

}  // namespace

int App::run() {
  // Both outputs are checked before anything runs (exit status 1, as for other runtime errors).
  check_paths(options_, settings_.scene, {});
  check_writable(options_.screenshot, "--screenshot");
  check_writable(options_.json, "--json");
  std::string why_cpu, notes;
  const SorterInfo* info = &choose_sorter(options_.sorter, options_.force_cpu, why_cpu);
  // --sorter-options were validated against the requested sorter (cli.cpp); they apply only if
  // that sorter is the one that runs.
  OptionValues options = default_options(*info);
  bool options_applied = false;
  if (!options_.sorter_options.empty()) {
    options_applied = info->name == options_.sorter;
    if (options_applied) options = parse_options(*info, options_.sorter_options);
    else notes += dropped_options_note(*info);
  }
  bool cpu_path = info->backend == Backend::Cpu;

  // The context first: on the GPU path it must sit on the CUDA device.
  if (options_.headless) {
    egl_.emplace(cpu_path);
    gl_line_ = egl_->device_description();
  } else {
    window_.emplace(options_.width, options_.height, "depthsort", settings_.vsync);
    gl_line_ = gl_description();
  }
  if (!cpu_path) {
    std::string why_not;
    if (!gl_context_on_cuda_device(why_not)) {
      why_cpu = why_not + "; sorting on the CPU instead";
      for (const SorterInfo& entry : sorter_registry())
        if (entry.backend == Backend::Cpu) {
          info = &entry;
          break;
        }
      if (options_applied) notes += dropped_options_note(*info);
      options = default_options(*info);
      cpu_path = true;
    }
  }
  device_line_ = cpu_path ? "CPU path (depths and sort on the CPU): " + why_cpu : cuda_device_name();
  if (options_.cycle_sorters) {
    cycle_ = cycle_choices(info->backend);
    if (cpu_path)
      notes += "--cycle-sorters: the CPU path has only the CPU sorter; cycling its " + std::to_string(cycle_.size()) +
               " option variant" + (cycle_.size() == 1 ? "" : "s") + " (the GPU sorters need a CUDA device)\n";
  }
  // The timing record is reserved after the scene is built: its size joins the scene's estimate.
  MemoryBudget budget;
  budget.extra.host = Timings::bytes_for(recorded_frames());
  if (recorded_frames() > 0) budget.extra_what = "the timings of " + std::to_string(recorded_frames()) + " frames";
  budget.sorters = std::max<std::size_t>(1, cycle_.size());
  budget.expanded = settings_.draw_path == DrawPath::Expanded;
  scene_ = build_scene(settings_.scene, cpu_path, notes, budget);
  check_paths(options_, settings_.scene, scene_.material_files);  // the MTL files are known now
  say("depthsort " DEPTHSORT_VERSION ": " + std::string(options_.headless ? "headless, " : "windowed, ") + gl_line_);
  say((cpu_path ? "path: " : "path: GPU, ") + device_line_);
  if (!notes.empty()) {
    notes_ = notes.substr(0, notes.size() - 1);
    say(notes_);
  }
  if (cpu_path) {
    say("CPU path: only the CPU sorter runs here; the GPU sorters (and their options such as shuffle), compare all "
        "and the bucket sizes need a CUDA GPU. Sorting, the order checks, colour by rank, the wipe, freeze and the "
        "separate passes all work.");
    if (settings_.colour == ColourMode::Segment) {
      const std::string note = "note: --colour segment: the CPU sorter has no buckets or sublists, so every primitive "
                               "is in one segment and drawn in one colour; --colour rank shows the order here";
      say(note);
      notes_ += (notes_.empty() ? "" : "\n") + note;
    }
  }
  say("scene: " + scene_.description);
  say(scene_.memory_line);
  say(draw_line());
  if (cycle_.empty())
    say("sorter: " + std::string(info->name) + (options.empty() ? "" : " (" + format_options(options) + ")") + ": " +
        std::string(info->origin));
  else
    say("sorters: every frame the next of " + std::to_string(cycle_.size()) + " (" + cycle_names() +
        "), the order checked every frame");

  settings_.sorter_index = registry_index(*info);
  settings_.options = options;
  settings_.opacity = scene_.opacity;
  settings_.lighting = scene_.lighting;
  // The panel edits the counts as built (the knot's rounded size, the mixed scene's one particle).
  settings_.scene.particles = scene_.particles;
  if (settings_.scene.meshes.empty() && settings_.scene.kind == SceneKind::Knot)
    settings_.scene.triangles = scene_.mesh.triangles();
  camera_ = scene_.camera;
  views_.saved[0] = camera_;
  views_.used[0] = true;

  build(*info, options);
  return options_.headless ? run_headless() : run_windowed();
}


// Frames whose timings are kept: every frame headless (medians, --json), up to --frames
// (default 3600) in a window with --json.
std::size_t App::recorded_frames() const {
  if (options_.headless) return options_.frames.value_or(60);
  return options_.json.empty() ? 0 : options_.frames.value_or(3600);
}

void App::say(const std::string& line) const {
  if (!options_.quiet) std::printf("%s\n", line.c_str());
}

// A scene too large to be interactive runs as asked, but says so once (on the console and in
// the panel's note), with the size that would be: the second frame is timed (the first pays for
// first-use costs), and the size scaled to a 50 ms frame, as the work is about linear in it.
void App::note_slow_frames(std::uint64_t frame, float host_ms) {
  constexpr float kInteractiveMs = 100.0f, kTargetMs = 50.0f;
  if (slow_noted_ || frame != 1 || host_ms <= kInteractiveMs) return;
  slow_noted_ = true;
  const double scale = static_cast<double>(kTargetMs / host_ms);
  const auto scaled = [&](std::size_t n) { return format_count(static_cast<std::size_t>(static_cast<double>(n) * scale)); };
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(host_ms));
  std::string line = std::string("note: a frame takes ") + ms + " ms on the " + (pipeline_->on_gpu() ? "GPU" : "CPU") +
                     " path, too slow to be interactive; about " + scaled(scene_.mesh.triangles() + scene_.particles) +
                     " primitives would be (";
  if (scene_.particles > 0) line += "--particles " + scaled(scene_.particles);
  if (scene_.particles > 0 && scene_.mesh.triangles() > 0) line += " ";
  if (scene_.mesh.triangles() > 0) line += "--triangles " + scaled(scene_.mesh.triangles());
  line += ")";
  if (!pipeline_->on_gpu()) line += "; a CUDA GPU sorts millions in a few milliseconds";
  say(line);
  notes_ += (notes_.empty() ? "" : "\n") + line;
}

void App::reserve_memory_samples(std::uint64_t frames) {
  if (!cycle_.empty()) memory_samples_.reserve(static_cast<std::size_t>(frames / kMemoryEvery + 2));
}

// --cycle-sorters, before frame f: its sorter (allocation-free).
void App::cycle_select(std::uint64_t f) {
  if (!cycle_.empty()) pipeline_->select(static_cast<std::size_t>(f % cycle_.size()));
}

// --cycle-sorters, after frame f: its order checked now (the next frame sorts with another
// sorter), memory sampled on schedule (after the frame, so frame 0 counts what it set up).
void App::cycle_finish(std::uint64_t f, std::uint64_t frames) {
  if (cycle_.empty()) return;
  pipeline_->finish_checks();
  if ((f % kMemoryEvery == 0 || f + 1 == frames) && memory_samples_.size() < memory_samples_.capacity())
    memory_samples_.push_back(sample_memory(f, pipeline_->on_gpu()));
}

// With --cycle-sorters every sorter of cycle_ is created and reserved here, once.
void App::build(const SorterInfo& info, const OptionValues& options) {
  pipeline_.reset();
  renderer_.reset();
  renderer_.emplace(scene_, options_.headless, options_.width, options_.height, settings_.draw_path);
  const SorterChoice single{&info, options};
  const std::span<const SorterChoice> choices =
      cycle_.empty() ? std::span<const SorterChoice>(&single, 1) : std::span<const SorterChoice>(cycle_);
  pipeline_ = info.backend == Backend::Gpu ? make_gpu_pipeline(renderer_->buffers(), scene_, choices)
                                           : make_cpu_pipeline(renderer_->buffers(), scene_, choices);
  // Software GL (the CPU path's llvmpipe) is timed on the host clock; its timer queries do not
  // cover the deferred rasterisation.
  gl_timer_.emplace(!pipeline_->on_gpu());
}

// The frame's plan from the settings (plan_frame), with what only the frame knows: the sprites'
// scale for this framebuffer and the emitter's clock.
FramePlan App::frame_plan(FrameClock clock, float covered_left) const {
  return plan_frame(settings_, scene_, clock, point_scale(camera_, renderer_->height()), covered_left, !cycle_.empty());
}

// After a windowed frame: what the panel (or a key) changed since `before`, and its requests.
void App::apply_changes(const Settings& before, PanelRequests& requests) {
  const SettingsChange change = settings_change(before, settings_);
  if (change.vsync) window_->set_vsync(settings_.vsync);
  if (change.camera_mode) camera_.set_mode(settings_.camera_mode);
  if (change.fullscreen) window_->set_fullscreen(settings_.fullscreen);
  if (requests.reset_camera) camera_ = views_.saved[0];
  if (requests.save_view >= 0) {
    views_.saved[static_cast<std::size_t>(requests.save_view)] = camera_;
    views_.used[static_cast<std::size_t>(requests.save_view)] = true;
  }
  if (requests.load_view >= 0 && views_.used[static_cast<std::size_t>(requests.load_view)])
    camera_ = views_.saved[static_cast<std::size_t>(requests.load_view)];
  settings_.camera_mode = camera_.mode;
  if (change.sorter && !cycle_.empty()) {
    cycle_.clear();  // a sorter chosen in the panel ends --cycle-sorters
    say("--cycle-sorters ended: a sorter was chosen in the panel");
  }
  if (requests.rebuild || change.sorter) {
    // Rebuilding is a user action, outside the steady frame loop: allocation is fine here. A
    // request that cannot be met (GPU memory, a sorter's options) is reported and undone.
    try {
      rebuild(settings_, requests.rebuild);
      panel_error_.clear();
    } catch (const std::exception& e) {
      panel_error_ = e.what();
      std::fprintf(stderr, "depthsort: %s (kept the previous settings)\n", e.what());
      settings_.sorter_index = before.sorter_index;
      settings_.options = before.options;
      settings_.scene = before.scene;
      rebuild(settings_, true);
    }
  }
  if (requests.compare_all || requests.histogram) {
    try {
      run_view_requests(requests.compare_all, requests.histogram);
    } catch (const std::exception& e) {
      panel_error_ = e.what();
    }
  }
  requests = PanelRequests{};
}

// Rebuilds the pipeline for settings.sorter_index (and, with `scene`, the scene for its counts).
void App::rebuild(const Settings& settings, bool scene) {
  const SorterInfo& info = sorter_registry()[static_cast<std::size_t>(settings.sorter_index)];
  if (scene) {
    std::string notes;
    const Camera keep = camera_;
    pipeline_.reset();
    renderer_.reset();
    MemoryBudget budget;
    budget.expanded = settings.draw_path == DrawPath::Expanded;
    scene_ = build_scene(settings.scene, info.backend == Backend::Cpu, notes, budget);
    camera_ = keep;
  }
  build(info, settings.options);
}

void App::collect(Timings& timings, bool wait, bool sorted, double now, std::uint64_t frame, float host_ms) {
  if (wait) {
    for (const StepTime& s : pipeline_->timer().wait_last()) timings.add("frame", s.name, s.ms, now, frame);
    timings.add("frame", "compute", pipeline_->timer().last_frame_ms(), now, frame);
    if (sorted && pipeline_->sorter())
      for (const StepTime& s : pipeline_->sorter()->timer().wait_last()) timings.add("sort", s.name, s.ms, now, frame);
    if (sorted && pipeline_->particle_sorter())
      for (const StepTime& s : pipeline_->particle_sorter()->timer().wait_last())
        timings.add("particle sort", s.name, s.ms, now, frame);
    if (gl_timer_->wait_last(steps_))
      for (const StepTime& s : steps_) timings.add("frame", s.name, s.ms, now, frame);
  } else {
    if (pipeline_->timer().poll(steps_)) {
      // poll() gives the steps, not the first-to-last event span that headless runs record as
      // "compute": the sum of the steps has its own name.
      float total = 0;
      for (const StepTime& s : steps_) {
        timings.add("frame", s.name, s.ms, now, frame);
        total += s.ms;
      }
      timings.add("frame", "step sum", total, now, frame);
    }
    if (pipeline_->sorter() && pipeline_->sorter()->timer().poll(steps_))
      for (const StepTime& s : steps_) timings.add("sort", s.name, s.ms, now, frame);
    if (pipeline_->particle_sorter() && pipeline_->particle_sorter()->timer().poll(steps_))
      for (const StepTime& s : steps_) timings.add("particle sort", s.name, s.ms, now, frame);
    if (gl_timer_->poll(steps_))
      for (const StepTime& s : steps_) timings.add("frame", s.name, s.ms, now, frame);
  }
  timings.add("frame", "host frame", host_ms, now, frame);
}

int run(const RunOptions& options, const Settings& settings) {
  App app(options, settings);
  return app.run();
}

}  // namespace depthsort::app
