#include "loop/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "depthsort/host/count_text.hpp"
#include "depthsort/host/output_file.hpp"
#include "loop/run_state.hpp"

namespace depthsort::app {

std::string draw_line(const Scene& scene, const Settings& settings) {
  const std::size_t n = scene.mesh.triangles() + scene.particles;
  if (settings.draw_path == DrawPath::Expanded)
    return "draw path: expanded (3 vertices a primitive written after the sort, in a " +
           byte_text(3 * n * sizeof(ExpandedVertex), ByteUnits::MiBOrGiB) +
           " vertex buffer; particles as one triangle)";
  return std::string("draw path: pull (") + (settings.triangle_sprites ? "3" : "6") +
         " vertices a primitive read from storage buffers; particles as " +
         (settings.triangle_sprites ? "one triangle)" : "quads)");
}

std::string dropped_options_note(const RunOptions& options, const SorterInfo& running) {
  return "--sorter-options " + options.sorter_options + " (for " + options.sorter + ") dropped: the " +
         std::string(running.name) + " sorter runs instead\n";
}

std::string memory_summary(const SorterCycle& cycle, bool gpu) {
  const std::vector<MemorySample>& samples = cycle.samples();
  if (samples.empty()) return "";
  const MemorySample& first = samples.front();
  const MemorySample& last = samples.back();
  std::size_t device_max = 0, host_max = 0;
  for (const MemorySample& m : samples) {
    device_max = std::max(device_max, m.device_used);
    host_max = std::max(host_max, m.host_resident);
  }
  const auto mib = [](std::size_t bytes) { return byte_text(bytes, ByteUnits::MiB); };
  const std::string described = std::to_string(samples.size()) + " samples, every " +
                                std::to_string(SorterCycle::kMemoryEvery) + " frames and the last";
  std::string line = "memory over the run (" + described + "): ";
  if (gpu)
    line += "device used " + mib(first.device_used) + " at frame " + std::to_string(first.frame) + ", " +
            mib(last.device_used) + " at frame " + std::to_string(last.frame) + ", max " + mib(device_max) + "; ";
  else
    line += "device: none on the CPU path; ";
  line += "host resident " + mib(first.host_resident) + " -> " + mib(last.host_resident) + ", max " + mib(host_max);
  return line;
}

void report_dropped(const Timings& timings) {
  if (timings.dropped() > 0)
    std::fprintf(stderr,
                 "depthsort: warning: %llu timing samples were not recorded (more than %d series, or more "
                 "frames than reserved); medians and --json cover the rest\n",
                 static_cast<unsigned long long>(timings.dropped()), Timings::kMaxSeries);
}

std::size_t sorted_mode_bytes(const RunState& run) {
  const FramePipeline& pipeline = run.stage.pipeline();
  const Scene& scene = run.stage.scene();
  const std::size_t n = scene.mesh.triangles() + scene.particles;
  const std::size_t pairs = pipeline.on_gpu() ? pipeline.order_bytes() : n * 16;
  return pipeline.workspace_bytes() + pairs + n * 2 * sizeof(std::uint32_t);
}

std::string transparency_line(const RunState& run) {
  const TransparencyStats& t = run.stage.renderer().transparency_stats();
  if (t.reference_frames == 0) return "";
  const auto mib = [](std::size_t bytes) { return byte_text(bytes, ByteUnits::MiB); };
  return "a-buffer (the per-pixel reference): budget " + format_count(t.budget) + " fragments (" +
         mib(ABuffer::bytes_for(t.pixels, t.budget)) + " with the per-pixel lists), last frame " +
         std::to_string(t.fragments) + " fragments, deepest pixel " + std::to_string(t.deepest_list) + ", " +
         std::to_string(t.over_budget_pixels) + " pixels over the budget; " + std::to_string(t.frames_over_budget) +
         " of " + std::to_string(t.reference_frames) + " frames read back went over it" +
         (t.frames_over_budget > 0
              ? " (at most " + std::to_string(t.most_over_budget_pixels) + " pixels, drawn in magenta stripes)"
              : "");
}

std::string difference_line(const RunState& run) {
  const TransparencyStats& t = run.stage.renderer().transparency_stats();
  if (!t.difference) return "";
  char share[32];
  std::snprintf(share, sizeof share, "%.3f", 100.0 * t.differing_share());
  return std::string("difference (") + transparency_mode_name(run.settings.transparency.mode) +
         " against the reference, last frame): " + std::to_string(t.differing_pixels) + " pixels (" + share +
         " %) beyond " + std::to_string(kDifferenceTolerance) + "/255, largest " +
         std::to_string(t.largest_difference) + "/255" +
         (t.not_compared > 0 ? "; " + std::to_string(t.not_compared) + " pixels not compared (over the budget)" : "");
}

std::string transparency_memory_line(const RunState& run) {
  const TransparencyMemory m = run.stage.renderer().transparency_memory(run.settings.transparency.fragment_budget);
  const auto mib = [](std::size_t bytes) { return byte_text(bytes, ByteUnits::MiB); };
  return "memory of each mode at " + std::to_string(run.stage.renderer().width()) + "x" +
         std::to_string(run.stage.renderer().height()) + ": sorted " + mib(sorted_mode_bytes(run)) +
         " (workspace, pairs, draw order), unsorted 0, wboit " + mib(m.wboit) + ", reference " + mib(m.reference) +
         ", difference view " + mib(m.difference) + " more";
}

void report_over_budget(const RunState& run) {
  const TransparencyStats& t = run.stage.renderer().transparency_stats();
  if (t.frames_over_budget == 0) return;
  std::fprintf(stderr,
               "depthsort: warning: the per-pixel reference's fragment budget (%zu fragments) was exceeded in %llu of "
               "%llu frames read back (at most %u pixels lost fragments; they are drawn in magenta stripes and left "
               "out of the difference count)\n",
               t.budget, static_cast<unsigned long long>(t.frames_over_budget),
               static_cast<unsigned long long>(t.reference_frames), t.most_over_budget_pixels);
}

void summarize(const RunState& run, std::uint64_t frames) {
  const Timings& timings = run.timings;
  std::string line =
      std::to_string(frames) + " frames, medians" +
      (timings.recording() ? std::string() : " of the last " + std::to_string(TimingSeries::kHistory) + " frames") +
      " (ms):";
  char buf[96];
  for (std::size_t i = 0; i < timings.all().size(); ++i) {
    std::snprintf(buf, sizeof buf, " %s %.3f", timings.all()[i].label.c_str(),
                  static_cast<double>(timings.median(static_cast<int>(i))));
    line += buf;
  }
  run.console.say(line);
  const CheckState& c = run.stage.pipeline().check();
  run.console.say(std::string("transparency: ") + transparency_mode_name(run.settings.transparency.mode));
  for (const std::string& more : {transparency_line(run), difference_line(run), transparency_memory_line(run)})
    if (!more.empty()) run.console.say(more);
  if (run.settings.sort && run.settings.transparency.mode == Transparency::Sorted)
    run.console.say("order checks: " + std::to_string(c.checks - c.failures) + "/" + std::to_string(c.checks) +
                    " passed");
  if (run.cycle.active()) run.console.say(memory_summary(run.cycle, run.stage.pipeline().on_gpu()));
}

nlohmann::ordered_json meta_json(const RunState& run, std::uint64_t frames) {
  const FramePipeline& pipeline = run.stage.pipeline();
  const Scene& scene = run.stage.scene();
  const Settings& settings = run.settings;
  const CheckState& c = pipeline.check();
  nlohmann::ordered_json m;
  m["program"] = "depthsort " DEPTHSORT_VERSION;
  m["device"] = run.lines.device;
  m["gl"] = run.lines.gl;
  m["path"] = pipeline.on_gpu() ? "gpu" : "cpu";
  m["camera_path"] = camera_path_name(run.options.camera_path);
  if (!run.cycle.active()) {
    m["sorter"] = pipeline.sorter_info().name;
    m["options"] = format_options(pipeline.sorter_options());
  } else {
    m["sorter"] = "cycle";
    nlohmann::ordered_json& sorters = m["cycle_sorters"] = nlohmann::ordered_json::array();
    for (const SorterChoice& choice : run.cycle.choices())
      sorters.push_back({{"sorter", choice.info->name}, {"options", format_options(choice.options)}});
  }
  m["scene"] = scene.description;
  m["meshes"] = settings.scene.meshes;  // any bytes: invalid UTF-8 is replaced when written
  m["triangles"] = scene.mesh.triangles();
  m["particles"] = scene.particles;
  m["width"] = run.options.width;
  m["height"] = run.options.height;
  m["frames"] = frames;
  m["draw"] = run.options.draw;
  m["sort"] = settings.sort;
  m["order"] = settings.separate_passes ? "separate passes" : "single";
  m["order_method"] = pipeline.on_gpu() && !settings.separate_passes ? order_method_name(settings.order) : "sorter";
  m["coherent"] = settings.coherent;
  m["sprite_shape"] = settings.triangle_sprites ? "triangle" : "quad";
  m["draw_path"] = draw_path_name(settings.draw_path);
  m["colour"] = colour_mode_name(settings.colour);
  if (settings.wipe_on && !settings.separate_passes) m["wipe"] = settings.wipe;
  m["transparency"] = transparency_mode_name(settings.transparency.mode);
  {
    const Renderer& renderer = run.stage.renderer();
    const TransparencyStats& t = renderer.transparency_stats();
    const TransparencyMemory memory = renderer.transparency_memory(settings.transparency.fragment_budget);
    m["transparency_memory_bytes"] = {{"sorted", sorted_mode_bytes(run)},
                                      {"unsorted", 0},
                                      {"wboit", memory.wboit},
                                      {"reference", memory.reference},
                                      {"difference", memory.difference}};
    if (t.reference_frames > 0)
      m["abuffer"] = {{"budget_fragments", t.budget},
                      {"fixed_budget", settings.transparency.fragment_budget > 0},
                      {"fragments", t.fragments},
                      {"deepest_pixel", t.deepest_list},
                      {"over_budget_pixels", t.over_budget_pixels},
                      {"frames_read", t.reference_frames},
                      {"frames_over_budget", t.frames_over_budget},
                      {"most_over_budget_pixels", t.most_over_budget_pixels}};
    if (t.difference)
      m["difference"] = {{"mode", transparency_mode_name(settings.transparency.mode)},
                         {"against", "reference"},
                         {"tolerance", kDifferenceTolerance},
                         {"pixels", t.differing_pixels},
                         {"share", t.differing_share()},
                         {"largest", t.largest_difference},
                         {"not_compared", t.not_compared},
                         {"frame_pixels", t.pixels}};
  }
  m["order_checks"] = c.checks;
  m["order_check_failures"] = c.failures;
  if (run.cycle.active()) {
    nlohmann::ordered_json& samples = m["memory_samples"] = nlohmann::ordered_json::array();
    for (const MemorySample& sample : run.cycle.samples()) {
      nlohmann::ordered_json row;
      row["frame"] = sample.frame;
      if (pipeline.on_gpu()) row["device_used_bytes"] = sample.device_used;
      row["host_resident_bytes"] = sample.host_resident;
      samples.push_back(std::move(row));
    }
  }
  return m;
}

bool write_json(RunState& run, std::uint64_t frames) {
  return write_output("--json", [&] {
    run.outputs.json.write(run.timings.json_text(meta_json(run, frames)));
    run.console.say("json: " + shown_path(run.options.json));
  });
}

}  // namespace depthsort::app
