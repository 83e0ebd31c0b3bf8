#include "loop/run_setup.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/host/output_file.hpp"
#include "interop/gl_interop.hpp"
#include "loop/report.hpp"

namespace depthsort::app {

namespace {

std::string cuda_device_name() {
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&props, device) != cudaSuccess) return "?";
  char buf[320];
  std::snprintf(buf, sizeof buf, "CUDA device %d: %s (sm_%d%d, %s)", device, props.name, props.major, props.minor,
                byte_text(props.totalGlobalMem, ByteUnits::WholeGiB).c_str());
  return buf;
}

// `path` (given with `flag`) resolved to what it will name and found writable, before any frame
// runs (depthsort/host/output_file.hpp: a regular file's folder tried, a stream opened once).
PlannedOutput planned_output(const std::string& path, const char* flag) {
  try {
    return PlannedOutput(path);
  } catch (const OutputError& e) {
    throw OutputError(std::string(flag) + ": " + e.what());
  }
}

const SorterInfo& cpu_sorter() {
  for (const SorterInfo& entry : sorter_registry())
    if (entry.backend == Backend::Cpu) return entry;
  throw std::logic_error("the sorter registry has no CPU sorter");
}

int registry_index(const SorterInfo& info) {
  const auto registry = sorter_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (&registry[i] == &info) return static_cast<int>(i);
  return 0;
}

}  // namespace

RunOutputs check_outputs(const RunOptions& options, const SceneSpec& scene) {
  check_material_files(options, scene, {});
  RunOutputs outputs;
  outputs.screenshot = planned_output(options.screenshot, "--screenshot");
  outputs.json = planned_output(options.json, "--json");
  return outputs;
}

// No output may replace an input or another output: a mistyped flag must not destroy data.
void check_material_files(const RunOptions& options, const SceneSpec& scene,
                          const std::vector<std::string>& material_files) {
  std::vector<NamedPath> inputs, outputs;
  for (const std::string& mesh : scene.meshes) inputs.push_back({"--mesh", mesh});
  for (const std::string& mtl : material_files) inputs.push_back({"mtllib", mtl});
  outputs.push_back({"--screenshot", options.screenshot});
  outputs.push_back({"--json", options.json});
  if (const std::string clash = find_path_clash(inputs, outputs); !clash.empty()) throw UsageError(clash);
}

PathChoice choose_path(const RunOptions& options, std::string& notes) {
  PathChoice path;
  path.info = &choose_sorter(options.sorter, options.force_cpu, path.why_cpu);
  // --sorter-options were validated against the requested sorter (cli/); they apply only if
  // that sorter is the one that runs.
  path.options = default_options(*path.info);
  if (!options.sorter_options.empty()) {
    path.options_applied = path.info->name == options.sorter;
    if (path.options_applied)
      path.options = parse_options(*path.info, options.sorter_options);
    else
      notes += dropped_options_note(options, *path.info);
  }
  return path;
}

void confirm_path(PathChoice& path, const RunOptions& options, RunLines& lines, std::string& notes) {
  if (!path.cpu()) {
    std::string why_not;
    if (!gl_context_on_cuda_device(why_not)) {
      path.why_cpu = why_not + "; sorting on the CPU instead";
      path.info = &cpu_sorter();
      if (path.options_applied) notes += dropped_options_note(options, *path.info);
      path.options = default_options(*path.info);
    }
  }
  lines.device = path.cpu() ? "CPU path (depths and sort on the CPU): " + path.why_cpu : cuda_device_name();
}

SorterCycle cycle_for(const RunOptions& options, const PathChoice& path, std::string& notes) {
  if (!options.cycle_sorters) return SorterCycle{};
  SorterCycle cycle(cycle_choices(path.info->backend));
  const std::size_t variants = cycle.choices().size();
  if (path.cpu())
    notes += "--cycle-sorters: the CPU path has only the CPU sorter; cycling its " + std::to_string(variants) +
             " option variant" + (variants == 1 ? "" : "s") + " (the GPU sorters need a CUDA device)\n";
  return cycle;
}

Scene build_run_scene(const RunOptions& options, const Settings& settings, const PathChoice& path,
                      const SorterCycle& cycle, std::string& notes) {
  // The timing record is reserved once the scene is built: its size joins the scene's estimate.
  const std::size_t recorded = recorded_frames(options);
  MemoryBudget budget;
  budget.extra.host = Timings::bytes_for(recorded);
  if (recorded > 0) budget.extra_what = "the timings of " + std::to_string(recorded) + " frames";
  // The picture too: a large --size (and its screenshot) is refused now, not at the last frame.
  budget.extra += frame_memory(options.width, options.height, !options.screenshot.empty(), path.cpu());
  budget.extra_what += (budget.extra_what.empty() ? "" : " and ") + std::string("a ") + std::to_string(options.width) +
                       "x" + std::to_string(options.height) + " frame" +
                       (options.screenshot.empty() ? "" : " with its screenshot");
  budget.sorters = std::max<std::size_t>(1, cycle.choices().size());
  budget.expanded = settings.draw_path == DrawPath::Expanded;
  return build_scene(settings.scene, path.cpu(), notes, budget);
}

void say_opening(const Console& console, const RunOptions& options, const Settings& settings, const PathChoice& path,
                 const SorterCycle& cycle, const Scene& scene, const std::string& notes, RunLines& lines) {
  console.say("depthsort " DEPTHSORT_VERSION ": " + std::string(options.headless ? "headless, " : "windowed, ") +
              lines.gl);
  console.say((path.cpu() ? "path: " : "path: GPU, ") + lines.device);
  if (!notes.empty()) {
    lines.notes = notes.substr(0, notes.size() - 1);
    console.say(lines.notes);
  }
  if (path.cpu()) {
    console.say(
        "CPU path: only the CPU sorter runs here; the GPU sorters (and their options such as shuffle), "
        "compare all and the bucket sizes need a CUDA GPU. Sorting, the order checks, colour by rank, the "
        "wipe, freeze and the separate passes all work.");
    if (settings.colour == ColourMode::Segment) {
      const std::string note =
          "note: --colour segment: the CPU sorter has no buckets or sublists, so every "
          "primitive is in one segment and drawn in one colour; --colour rank shows the order "
          "here";
      console.say(note);
      lines.add_note(note);
    }
  }
  console.say("scene: " + scene.description);
  console.say(scene.memory_line);
  console.say(draw_line(scene, settings));
  const bool gpu_path = path.info->backend == Backend::Gpu;
  if (settings.order == OrderMethod::Fused && gpu_path && !settings.separate_passes)
    console.say(
        "order: fused (depth-bucket: the depths inside a sample sort's first pass, the ids straight into "
        "the draw order; docs/algorithms/depth-bucket.md)");
  else if (settings.order == OrderMethod::Fused)
    console.say(std::string("note: --order fused: ") +
                (gpu_path ? "the separate passes sort with the sorter" : "the CPU path sorts with its sorter"));
  if (!cycle.active())
    console.say("sorter: " + std::string(path.info->name) +
                (path.options.empty() ? "" : " (" + format_options(path.options) + ")") + ": " +
                std::string(path.info->origin));
  else
    console.say("sorters: every frame the next of " + std::to_string(cycle.choices().size()) + " (" + cycle.names() +
                "), the order checked every frame");
}

void adopt_path_and_scene(Settings& settings, const PathChoice& path, const Scene& scene) {
  settings.sorter_index = registry_index(*path.info);
  settings.options = path.options;
  settings.opacity = scene.opacity;
  settings.lighting = scene.lighting;
  settings.scene.particles = scene.particles;
  if (settings.scene.meshes.empty() && settings.scene.kind == SceneKind::Knot)
    settings.scene.triangles = scene.mesh.triangles();
}

}  // namespace depthsort::app
