#include "app.hpp"

#include "render/gl.hpp"  // glad before cuda_gl_interop.h (which includes GL/gl.h)

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "depthsort/errors.hpp"
#include "depthsort/expand.hpp"
#include "depthsort/output_file.hpp"
#include "depthsort/registry.hpp"
#include "depthsort/segment_ids.hpp"
#include "frame.hpp"
#include "memory.hpp"
#include "platform/egl_headless.hpp"
#include "platform/glfw_window.hpp"
#include "render/renderer.hpp"
#include "render/screenshot.hpp"
#include "scene/scene.hpp"
#include "text.hpp"
#include "timings.hpp"
#include "ui/panel.hpp"

namespace depthsort::app {

namespace {

constexpr float kPi = 3.14159265358979f;

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

// No output may replace an input or another output (item 4 of issue 7).
void check_paths(const Config& config, const std::vector<std::string>& material_files) {
  std::vector<NamedPath> inputs, outputs;
  for (const std::string& mesh : config.meshes) inputs.push_back({"--mesh", mesh});
  for (const std::string& mtl : material_files) inputs.push_back({"mtllib", mtl});
  outputs.push_back({"--screenshot", config.screenshot});
  outputs.push_back({"--json", config.json});
  if (const std::string clash = find_path_clash(inputs, outputs); !clash.empty()) throw UsageError(clash);
}

int registry_index(const SorterInfo& info) {
  const auto registry = sorter_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (&registry[i] == &info) return static_cast<int>(i);
  return 0;
}

// Everything a run holds, torn down in reverse order of construction (pipeline before renderer
// before the GL context).
class App {
 public:
  explicit App(const Config& config) : config_(config) {}

  int run() {
    // Both outputs are checked before anything runs (exit status 1, as for other runtime errors).
    check_paths(config_, {});
    check_writable(config_.screenshot, "--screenshot");
    check_writable(config_.json, "--json");
    std::string why_cpu, notes;
    const SorterInfo* info = &choose_sorter(config_.sorter, config_.force_cpu, why_cpu);
    // --sorter-options were validated against the requested sorter (cli.cpp); they apply only if
    // that sorter is the one that runs.
    OptionValues options = default_options(*info);
    bool options_applied = false;
    if (!config_.sorter_options.empty()) {
      options_applied = info->name == config_.sorter;
      if (options_applied) options = parse_options(*info, config_.sorter_options);
      else notes += dropped_options_note(*info);
    }
    bool cpu_path = info->backend == Backend::Cpu;

    // The context first: on the GPU path it must sit on the CUDA device.
    if (config_.headless) {
      egl_.emplace(cpu_path);
      gl_line_ = egl_->device_description();
    } else {
      window_.emplace(config_.width, config_.height, "depthsort", config_.vsync);
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
    if (config_.cycle_sorters) {
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
    scene_ = build_scene(config_, cpu_path, notes, budget);
    check_paths(config_, scene_.material_files);  // the MTL files are known now
    say("depthsort " DEPTHSORT_VERSION ": " + std::string(config_.headless ? "headless, " : "windowed, ") + gl_line_);
    say((cpu_path ? "path: " : "path: GPU, ") + device_line_);
    if (!notes.empty()) {
      notes_ = notes.substr(0, notes.size() - 1);
      say(notes_);
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

    ui_.sorter = registry_index(*info);
    ui_.options = options;
    ui_.sort = config_.sort;
    ui_.opacity = scene_.opacity;
    ui_.lighting = scene_.lighting;
    ui_.particles = static_cast<int>(scene_.particles);
    ui_.knot_triangles =
        config_.meshes.empty() && config_.scene == SceneKind::Knot ? static_cast<int>(scene_.mesh.triangles()) : 0;
    ui_.check_every = config_.check_every;
    ui_.separate_passes = config_.separate_passes;
    ui_.coherent = config_.coherent;
    ui_.triangle_sprites = config_.triangle_sprites;
    ui_.colour_mode = config_.colour_mode;
    ui_.wipe_on = config_.wipe >= 0.0f;
    if (ui_.wipe_on) ui_.wipe = config_.wipe;
    ui_.vsync = config_.vsync;
    camera_ = scene_.camera;
    views_.saved[0] = camera_;
    views_.used[0] = true;

    build(*info, options);
    return config_.headless ? run_headless() : run_windowed();
  }

 private:
  // Frames whose timings are kept: every frame headless (medians, --json), up to --frames
  // (default 3600) in a window with --json.
  std::size_t recorded_frames() const {
    if (config_.headless) return config_.frames.value_or(60);
    return config_.json.empty() ? 0 : config_.frames.value_or(3600);
  }

  // The console's line on how the single order is drawn.
  std::string draw_line() const {
    const std::size_t n = scene_.mesh.triangles() + scene_.particles;
    if (config_.draw_path == DrawPath::Expanded)
      return "draw path: expanded (3 vertices a primitive written after the sort, in a " +
             size_text(3 * n * sizeof(ExpandedVertex)) + " vertex buffer; particles as one triangle)";
    return std::string("draw path: pull (") + (config_.triangle_sprites ? "3" : "6") +
           " vertices a primitive read from storage buffers; particles as " +
           (config_.triangle_sprites ? "one triangle)" : "quads)");
  }

  void say(const std::string& line) const {
    if (!config_.quiet) std::printf("%s\n", line.c_str());
  }

  std::string dropped_options_note(const SorterInfo& running) const {
    return "--sorter-options " + config_.sorter_options + " (for " + config_.sorter + ") dropped: the " +
           std::string(running.name) + " sorter runs instead\n";
  }

  // Runs `write` (one output file); a failure is reported and returns false, so that the other
  // output is still written.
  template <class Write>
  static bool write_output(const char* flag, Write&& write) {
    try {
      write();
      return true;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "depthsort: error: %s: %s\n", flag, e.what());
      return false;
    }
  }

  // Memory samples of a --cycle-sorters run: every kMemoryEvery frames and at the last, reserved
  // before the frame loop.
  static constexpr std::uint64_t kMemoryEvery = 1000;
  void reserve_memory_samples(std::uint64_t frames) {
    if (!cycle_.empty()) memory_samples_.reserve(static_cast<std::size_t>(frames / kMemoryEvery + 2));
  }

  // --cycle-sorters, before frame f: its sorter (allocation-free).
  void cycle_select(std::uint64_t f) {
    if (!cycle_.empty()) pipeline_->select(static_cast<std::size_t>(f % cycle_.size()));
  }
  // --cycle-sorters, after frame f: its order checked now (the next frame sorts with another
  // sorter), memory sampled on schedule (after the frame, so frame 0 counts what it set up).
  void cycle_finish(std::uint64_t f, std::uint64_t frames) {
    if (cycle_.empty()) return;
    pipeline_->finish_checks();
    if ((f % kMemoryEvery == 0 || f + 1 == frames) && memory_samples_.size() < memory_samples_.capacity())
      memory_samples_.push_back(sample_memory(f, pipeline_->on_gpu()));
  }

  // One line: the first, last and largest samples (a flat run has last close to first).
  std::string memory_summary() const {
    if (memory_samples_.empty()) return "";
    const MemorySample& first = memory_samples_.front();
    const MemorySample& last = memory_samples_.back();
    std::size_t device_max = 0, host_max = 0;
    for (const MemorySample& m : memory_samples_) {
      device_max = std::max(device_max, m.device_used);
      host_max = std::max(host_max, m.host_resident);
    }
    const std::string samples = std::to_string(memory_samples_.size()) + " samples, every " +
                                std::to_string(kMemoryEvery) + " frames and the last";
    std::string line = "memory over the run (" + samples + "): ";
    if (pipeline_->on_gpu())
      line += "device used " + mib(first.device_used) + " at frame " + std::to_string(first.frame) + ", " +
              mib(last.device_used) + " at frame " + std::to_string(last.frame) + ", max " + mib(device_max) + "; ";
    else
      line += "device: none on the CPU path; ";
    line += "host resident " + mib(first.host_resident) + " -> " + mib(last.host_resident) + ", max " + mib(host_max);
    return line;
  }

  void report_dropped(const Timings& timings) const {
    if (timings.dropped() > 0)
      std::fprintf(stderr,
                   "depthsort: warning: %llu timing samples were not recorded (more than %d series, or more "
                   "frames than reserved); medians and --json cover the rest\n",
                   static_cast<unsigned long long>(timings.dropped()), Timings::kMaxSeries);
  }

  // "cpu, hybrid (shuffle=1), ...": the --cycle-sorters list.
  std::string cycle_names() const {
    std::string names;
    for (const SorterChoice& c : cycle_) {
      if (!names.empty()) names += ", ";
      names += std::string(c.info->name);
      if (!c.options.empty()) names += " (" + format_options(c.options) + ")";
    }
    return names;
  }

  // With --cycle-sorters every sorter of cycle_ is created and reserved here, once.
  void build(const SorterInfo& info, const OptionValues& options) {
    pipeline_.reset();
    renderer_.reset();
    renderer_.emplace(scene_, config_.headless, config_.width, config_.height, config_.draw_path);
    const SorterChoice single{&info, options};
    const std::span<const SorterChoice> choices =
        cycle_.empty() ? std::span<const SorterChoice>(&single, 1) : std::span<const SorterChoice>(cycle_);
    pipeline_ = info.backend == Backend::Gpu ? make_gpu_pipeline(renderer_->buffers(), scene_, choices)
                                             : make_cpu_pipeline(renderer_->buffers(), scene_, choices);
    // Software GL (the CPU path's llvmpipe) is timed on the host clock; its timer queries do not
    // cover the deferred rasterisation.
    gl_timer_.emplace(!pipeline_->on_gpu());
  }

  FrameControls controls(float time, float dt) const {
    FrameControls c;
    c.sort = ui_.sort;
    c.freeze = ui_.freeze;
    c.simulate = ui_.simulate;
    c.check_every = cycle_.empty() ? ui_.check_every : 1;  // cycling: every frame's sorter checked
    c.separate_passes = ui_.separate_passes;
    c.coherent = ui_.coherent;
    c.segment_ids = !ui_.separate_passes && ui_.colour_mode == static_cast<int>(ColourMode::Segment);
    c.expanded = config_.draw_path == DrawPath::Expanded;
    c.colour_mode = ui_.separate_passes ? 0 : ui_.colour_mode;
    c.point_scale = point_scale(camera_, renderer_->height());
    c.emitter = scene_.emitter;
    c.emitter.time = time;
    c.emitter.dt = dt;
    return c;
  }

  PanelInfo panel_info(std::size_t device_used, std::size_t device_total, float fps) {
    PanelInfo info;
    info.device = device_line_;
    info.gl = gl_line_;
    info.scene = scene_.description;
    info.notes = notes_;
    info.error = panel_error_;
    info.triangles = scene_.mesh.triangles();
    info.particles = scene_.particles;
    info.device_bytes_used = device_used;
    info.device_bytes_total = device_total;
    info.workspace_bytes = pipeline_->workspace_bytes();
    info.gpu_path = pipeline_->on_gpu();
    info.draw_path = config_.draw_path;
    if (const Sorter* sorter = pipeline_->sorter()) {
      const Segments segments = sorter->segments();
      info.segments = segments.count;
      if (segments.kind && *segments.kind) info.segment_kind = segments.kind;
    }
    info.compare_bars = compare_bars_;
    info.histogram = histogram_segments_ > 0 ? &histogram_ : nullptr;
    info.histogram_segments = histogram_segments_;
    info.check = &pipeline_->check();
    info.views = &views_;
    info.fps = fps;
    return info;
  }

  // The teaching views' requests (panel buttons; the last frame of a headless --panel run): user
  // actions outside the steady loop, so they may allocate and wait.
  void run_teaching_requests(bool compare, bool histogram) {
    if (compare && pipeline_->on_gpu()) compare_bars_ = pipeline_->compare_all(compare_runner_);
    if (histogram) {
      histogram_segments_ = 0;
      if (pipeline_->segment_starts(segment_starts_)) {
        const std::size_t n = scene_.mesh.triangles() + scene_.particles;
        histogram_ = size_histogram(segment_sizes(segment_starts_, pipeline_->separate_passes() ? scene_.mesh.triangles() : n), 32);
        histogram_segments_ = segment_starts_.size();
      }
    }
  }

  // Headless --panel: the panel drawn over the frame in the offscreen target, as in a window.
  void draw_headless_panel(const Timings& timings, double now, float host_ms) {
    std::size_t used = 0, total = 0;
    if (pipeline_->on_gpu()) {
      std::size_t free_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) used = total - free_bytes;
      else cudaGetLastError();
    }
    PanelInfo info = panel_info(used, total, host_ms > 0 ? 1000.0f / host_ms : 0.0f);
    info.headless = true;
    GlDebugGroup group("ui");
    NvtxRange range("ui");
    imgui_->begin_frame();
    panel_.draw(ui_, info, timings, now);
    imgui_->end_frame();
  }

  DrawOptions draw_options() const {
    DrawOptions d;
    d.opacity = ui_.opacity;
    d.lighting = ui_.lighting;
    d.separate_passes = ui_.separate_passes;
    d.triangle_sprites = ui_.triangle_sprites;
    d.expanded = config_.draw_path == DrawPath::Expanded;
    // Rank, segment and the wipe show the single order; the separate passes draw the scene's colours.
    if (!ui_.separate_passes) {
      d.colour = static_cast<ColourMode>(ui_.colour_mode);
      d.wipe = ui_.wipe_on ? ui_.wipe : -1.0f;
    }
    return d;
  }

  void collect(Timings& timings, bool wait, bool sorted, double now, std::uint64_t frame, float host_ms) {
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

  int run_headless() {
    const std::uint64_t frames = config_.frames.value_or(60);
    Timings timings(recorded_frames());  // every sample kept: medians and --json
    steps_.reserve(StepTimer::kMaxSteps);
    const float dt = 1.0f / 60.0f;
    const Camera base = camera_;
    const bool draw = config_.draw;
    reserve_memory_samples(frames);
    if (config_.panel) imgui_ = std::make_unique<ImGuiLayer>(renderer_->width(), renderer_->height());
    float last_host_ms = 0;
    for (std::uint64_t f = 0; f < frames; ++f) {
      NvtxRange frame_range("frame");
      const auto start = std::chrono::steady_clock::now();
      cycle_select(f);
      if (config_.camera_path != CameraPath::None) camera_ = camera_on_path(config_.camera_path, base, f, frames);
      const float time = dt * static_cast<float>(f);
      const bool sorted = ui_.sort && !ui_.freeze;
      pipeline_->compute(camera_, controls(time, dt), f);
      gl_timer_->begin_frame();
      if (draw) {
        {
          NvtxRange range("draw");  // the panel's "ui" follows it inside the frame, as in a window
          gl_timer_->begin_step("draw");
          renderer_->draw(scene_, camera_, draw_options());
          gl_timer_->end_step();
        }
        if (imgui_) {
          if (f + 1 == frames) run_teaching_requests(true, true);
          gl_timer_->begin_step("ui");
          draw_headless_panel(timings, static_cast<double>(time), last_host_ms);
          gl_timer_->end_step();
        }
      }
      gl_timer_->end_frame();
      pipeline_->poll_check();
      cycle_finish(f, frames);
      const float host_ms =
          std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
      collect(timings, true, sorted, static_cast<double>(time), f, host_ms);
      last_host_ms = host_ms;
    }
    pipeline_->finish_checks();
    DEPTHSORT_GL_CHECK(glFinish());

    // Each output on its own: one that fails is reported and does not cost the other.
    bool outputs_ok = true;
    if (!config_.screenshot.empty()) {
      outputs_ok &= write_output("--screenshot", [&] {
        if (!draw) renderer_->clear(scene_);
        std::vector<std::uint8_t> pixels;
        renderer_->read_pixels(pixels);
        write_png(config_.screenshot, renderer_->width(), renderer_->height(), pixels);
        say("screenshot: " + shown_path(config_.screenshot) + (draw ? "" : " (--no-draw: background only)"));
      });
    }
    summarize(timings, frames);
    report_dropped(timings);
    if (!config_.json.empty()) {
      outputs_ok &= write_output("--json", [&] {
        write_file_atomically(config_.json, timings.json_text(meta_json(frames)));
        say("json: " + shown_path(config_.json));
      });
    }
    const CheckState& check = pipeline_->check();
    if (check_exit_status(check) != 0) {  // any failed check, not only the last
      std::fprintf(stderr,
                   "depthsort: error: the sorted order was wrong in %llu of %llu checks (last failure at frame "
                   "%llu: %u mesh, %u particle positions)\n",
                   static_cast<unsigned long long>(check.failures), static_cast<unsigned long long>(check.checks),
                   static_cast<unsigned long long>(check.failed_frame), check.failed_mesh, check.failed_particles);
      return check_exit_status(check);
    }
    return outputs_ok ? 0 : 1;
  }

  void summarize(const Timings& timings, std::uint64_t frames) const {
    std::string line = std::to_string(frames) + " frames, medians (ms):";
    char buf[96];
    for (std::size_t i = 0; i < timings.all().size(); ++i) {
      std::snprintf(buf, sizeof buf, " %s %.3f", timings.all()[i].label.c_str(),
                    static_cast<double>(timings.median(static_cast<int>(i))));
      line += buf;
    }
    say(line);
    const CheckState& c = pipeline_->check();
    if (ui_.sort)
      say("order checks: " + std::to_string(c.checks - c.failures) + "/" + std::to_string(c.checks) + " passed");
    if (!cycle_.empty()) say(memory_summary());
  }

  nlohmann::ordered_json meta_json(std::uint64_t frames) const {
    const CheckState& c = pipeline_->check();
    nlohmann::ordered_json m;
    m["program"] = "depthsort " DEPTHSORT_VERSION;
    m["device"] = device_line_;
    m["gl"] = gl_line_;
    m["path"] = pipeline_->on_gpu() ? "gpu" : "cpu";
    m["camera_path"] = camera_path_name(config_.camera_path);
    if (cycle_.empty()) {
      m["sorter"] = pipeline_->sorter_info().name;
      m["options"] = format_options(pipeline_->sorter_options());
    } else {
      m["sorter"] = "cycle";
      nlohmann::ordered_json& sorters = m["cycle_sorters"] = nlohmann::ordered_json::array();
      for (const SorterChoice& choice : cycle_)
        sorters.push_back({{"sorter", choice.info->name}, {"options", format_options(choice.options)}});
    }
    m["scene"] = scene_.description;
    m["meshes"] = config_.meshes;  // any bytes: invalid UTF-8 is replaced when written
    m["triangles"] = scene_.mesh.triangles();
    m["particles"] = scene_.particles;
    m["width"] = config_.width;
    m["height"] = config_.height;
    m["frames"] = frames;
    m["draw"] = config_.draw;
    m["sort"] = ui_.sort;
    m["order"] = ui_.separate_passes ? "separate passes" : "single";
    m["coherent"] = ui_.coherent;
    m["sprite_shape"] = ui_.triangle_sprites ? "triangle" : "quad";
    m["draw_path"] = draw_path_name(config_.draw_path);
    m["colour"] = ui_.colour_mode == 1 ? "rank" : ui_.colour_mode == 2 ? "segment" : "scene";
    if (ui_.wipe_on && !ui_.separate_passes) m["wipe"] = ui_.wipe;
    m["order_checks"] = c.checks;
    m["order_check_failures"] = c.failures;
    if (!cycle_.empty()) {
      nlohmann::ordered_json& samples = m["memory_samples"] = nlohmann::ordered_json::array();
      for (const MemorySample& sample : memory_samples_) {
        nlohmann::ordered_json row;
        row["frame"] = sample.frame;
        if (pipeline_->on_gpu()) row["device_used_bytes"] = sample.device_used;
        row["host_resident_bytes"] = sample.host_resident;
        samples.push_back(std::move(row));
      }
    }
    return m;
  }

  void handle_input(float dt) {
    GLFWwindow* w = window_->handle();
    double x = 0, y = 0;
    glfwGetCursorPos(w, &x, &y);
    const bool dragging = !imgui_->wants_mouse() && glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    if (dragging && was_dragging_) {
      const float dx = static_cast<float>(x - last_x_), dy = static_cast<float>(y - last_y_);
      if (camera_.mode == CameraMode::Orbit) camera_.orbit(-0.005f * dx, 0.005f * dy);
      else camera_.orbit(0.003f * dx, -0.003f * dy);
    }
    was_dragging_ = dragging;
    last_x_ = x;
    last_y_ = y;
    if (!imgui_->wants_mouse()) {
      const float wheel = ImGui::GetIO().MouseWheel;
      if (wheel != 0.0f) {
        if (camera_.mode == CameraMode::Orbit) camera_.zoom(std::pow(0.9f, wheel));
        else camera_.fly(glm::vec3(0, 0, wheel * 0.1f * camera_.distance));
      }
    }
    if (!imgui_->wants_keyboard() && camera_.mode == CameraMode::Fly) {
      const float speed = 0.5f * camera_.distance * dt;
      const auto key = [&](int k) { return glfwGetKey(w, k) == GLFW_PRESS ? 1.0f : 0.0f; };
      camera_.fly(speed * glm::vec3(key(GLFW_KEY_D) - key(GLFW_KEY_A), key(GLFW_KEY_E) - key(GLFW_KEY_Q),
                                    key(GLFW_KEY_W) - key(GLFW_KEY_S)));
    }
  }

  void apply_ui(const UiState& before) {
    if (ui_.vsync != before.vsync) window_->set_vsync(ui_.vsync);
    if (ui_.camera_mode != camera_.mode) camera_.set_mode(ui_.camera_mode);
    if (ui_.reset_camera) camera_ = views_.saved[0];
    if (ui_.save_view >= 0) {
      views_.saved[static_cast<std::size_t>(ui_.save_view)] = camera_;
      views_.used[static_cast<std::size_t>(ui_.save_view)] = true;
    }
    if (ui_.load_view >= 0 && views_.used[static_cast<std::size_t>(ui_.load_view)])
      camera_ = views_.saved[static_cast<std::size_t>(ui_.load_view)];
    ui_.camera_mode = camera_.mode;
    const bool new_sorter = ui_.sorter != before.sorter || ui_.options != before.options;
    if (new_sorter && !cycle_.empty()) {
      cycle_.clear();  // a sorter chosen in the panel ends --cycle-sorters
      say("--cycle-sorters ended: a sorter was chosen in the panel");
    }
    if (ui_.rebuild || new_sorter) {
      // Rebuilding is a user action, outside the steady frame loop: allocation is fine here. A
      // request that cannot be met (GPU memory, a sorter's options) is reported and undone.
      try {
        rebuild(ui_, ui_.rebuild);
        panel_error_.clear();
      } catch (const std::exception& e) {
        panel_error_ = e.what();
        std::fprintf(stderr, "depthsort: %s (kept the previous settings)\n", e.what());
        UiState previous = before;
        ui_.sorter = previous.sorter;
        ui_.options = previous.options;
        ui_.particles = previous.particles;
        ui_.knot_triangles = previous.knot_triangles;
        rebuild(ui_, true);
      }
    }
    if (ui_.compare_all || ui_.histogram) {
      try {
        run_teaching_requests(ui_.compare_all, ui_.histogram);
      } catch (const std::exception& e) {
        panel_error_ = e.what();
      }
    }
    ui_.rebuild = ui_.reset_camera = ui_.compare_all = ui_.histogram = false;
    ui_.save_view = ui_.load_view = -1;
  }

  // Rebuilds the pipeline for state.sorter (and, with `scene`, the scene for state's counts).
  void rebuild(const UiState& state, bool scene) {
    const SorterInfo& info = sorter_registry()[static_cast<std::size_t>(state.sorter)];
    if (scene) {
      Config c = config_;
      c.particles = static_cast<std::size_t>(state.particles);
      if (state.knot_triangles > 0) c.triangles = static_cast<std::size_t>(state.knot_triangles);
      std::string notes;
      const Camera keep = camera_;
      pipeline_.reset();
      renderer_.reset();
      scene_ = build_scene(c, info.backend == Backend::Cpu, notes);
      camera_ = keep;
    }
    build(info, state.options);
  }

  int run_windowed() {
    imgui_ = std::make_unique<ImGuiLayer>(window_->handle());
    // --json in a window records up to --frames (default 3600) frames, reserved here.
    Timings timings(recorded_frames());
    steps_.reserve(StepTimer::kMaxSteps);
    const std::uint64_t frames = config_.frames.value_or(0);
    std::uint64_t frames_run = 0;  // frames drawn (minimised ones are skipped), for --json
    reserve_memory_samples(frames != 0 ? frames : 1000000);  // a window closed by hand: the first million frames
    double last = glfwGetTime();
    double memory_polled = -10.0;
    bool outputs_ok = true;
    std::size_t used = 0, total = 0;
    float fps = 0;
    for (std::uint64_t f = 0; !window_->should_close() && (frames == 0 || f < frames); ++f) {
      window_->poll_events();
      int width = 0, height = 0;
      window_->framebuffer_size(width, height);
      if (width <= 0 || height <= 0) {  // minimised: neither draw nor spin
        window_->wait_events(0.1);
        last = glfwGetTime();
        continue;
      }
      renderer_->resize(width, height);
      ++frames_run;
      const double now = glfwGetTime();
      const auto dt = static_cast<float>(std::min(now - last, 0.1));
      last = now;
      fps = 0.95f * fps + 0.05f * (dt > 0 ? 1.0f / dt : 0.0f);
      NvtxRange frame_range("frame");
      const auto start = std::chrono::steady_clock::now();
      handle_input(dt);
      const bool sorted = ui_.sort && !ui_.freeze;
      cycle_select(f);
      pipeline_->compute(camera_, controls(static_cast<float>(now), dt), f);
      gl_timer_->begin_frame();
      {
        NvtxRange range("draw");
        gl_timer_->begin_step("draw");
        renderer_->draw(scene_, camera_, draw_options());
        gl_timer_->end_step();
      }

      if (pipeline_->on_gpu() && now - memory_polled > 1.0) {
        std::size_t free_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) used = total - free_bytes;
        memory_polled = now;
      }
      const PanelInfo info = panel_info(used, total, fps);
      gl_timer_->begin_step("ui");
      {
        GlDebugGroup group("ui");
        NvtxRange range("ui");
        imgui_->begin_frame();
        before_ = ui_;  // copy-assigned into a member: reuses its storage, no allocation per frame
        panel_.draw(ui_, info, timings, now);
        imgui_->end_frame();
        gl_timer_->end_step();
        gl_timer_->end_frame();
        if (!config_.screenshot.empty() && frames != 0 && f + 1 == frames) {  // the last frame, panel included
          outputs_ok &= write_output("--screenshot", [&] {
            std::vector<std::uint8_t> pixels;
            renderer_->read_pixels(pixels);
            write_png(config_.screenshot, renderer_->width(), renderer_->height(), pixels);
            say("screenshot: " + shown_path(config_.screenshot));
          });
        }
        window_->swap();
        const float host_ms =
            std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
        pipeline_->poll_check();
        cycle_finish(f, frames);
        collect(timings, false, sorted, now, f, host_ms);
        if (!(ui_ == before_)) apply_ui(before_);
      }
    }
    if (!config_.json.empty()) {
      report_dropped(timings);
      outputs_ok &= write_output("--json", [&] {
        write_file_atomically(config_.json, timings.json_text(meta_json(frames_run)));
        say("json: " + shown_path(config_.json));
      });
    }
    return outputs_ok ? 0 : 1;
  }

  const Config& config_;
  Scene scene_;
  UiState ui_, before_;  // before_: last frame's copy, a member so the copy reuses its storage
  Panel panel_;
  Camera camera_;
  Viewpoints views_;
  std::string gl_line_, device_line_, notes_, panel_error_;
  // Declaration order = construction order; destruction runs backwards (pipeline first).
  std::optional<EglHeadless> egl_;
  std::optional<GlfwWindow> window_;
  std::unique_ptr<ImGuiLayer> imgui_;
  std::optional<Renderer> renderer_;
  std::unique_ptr<FramePipeline> pipeline_;
  std::optional<GlTimerRing> gl_timer_;
  std::vector<StepTime> steps_;
  std::vector<SorterChoice> cycle_;           // --cycle-sorters: the sorters gone through, in order
  std::vector<MemorySample> memory_samples_;  // --cycle-sorters: reserved before the frame loop
  // Teaching views (filled on request, not per frame).
  CompareAll compare_runner_;
  std::vector<StepBar> compare_bars_;
  std::vector<std::uint32_t> segment_starts_;
  SizeHistogram histogram_;
  std::size_t histogram_segments_ = 0;
  bool was_dragging_ = false;
  double last_x_ = 0, last_y_ = 0;
};

}  // namespace

int run(const Config& config) {
  App app(config);
  return app.run();
}

}  // namespace depthsort::app
