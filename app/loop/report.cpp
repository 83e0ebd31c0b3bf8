// The run's reports: the console's lines, the --json meta data, the memory summary of
// --cycle-sorters.
#include "loop/run_state.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

// The console's line on how the single order is drawn.
std::string App::draw_line() const {
  const std::size_t n = scene_.mesh.triangles() + scene_.particles;
  if (settings_.draw_path == DrawPath::Expanded)
    return "draw path: expanded (3 vertices a primitive written after the sort, in a " +
           byte_text(3 * n * sizeof(ExpandedVertex), ByteUnits::MiBOrGiB) + " vertex buffer; particles as one triangle)";
  return std::string("draw path: pull (") + (settings_.triangle_sprites ? "3" : "6") +
         " vertices a primitive read from storage buffers; particles as " +
         (settings_.triangle_sprites ? "one triangle)" : "quads)");
}

std::string App::dropped_options_note(const SorterInfo& running) const {
  return "--sorter-options " + options_.sorter_options + " (for " + options_.sorter + ") dropped: the " +
         std::string(running.name) + " sorter runs instead\n";
}

// One line: the first, last and largest samples (a flat run has last close to first).
std::string App::memory_summary() const {
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
    line += "device used " + byte_text(first.device_used, ByteUnits::MiB) + " at frame " + std::to_string(first.frame) + ", " +
            byte_text(last.device_used, ByteUnits::MiB) + " at frame " + std::to_string(last.frame) + ", max " + byte_text(device_max, ByteUnits::MiB) + "; ";
  else
    line += "device: none on the CPU path; ";
  line += "host resident " + byte_text(first.host_resident, ByteUnits::MiB) + " -> " + byte_text(last.host_resident, ByteUnits::MiB) + ", max " + byte_text(host_max, ByteUnits::MiB);
  return line;
}

void App::report_dropped(const Timings& timings) const {
  if (timings.dropped() > 0)
    std::fprintf(stderr,
                 "depthsort: warning: %llu timing samples were not recorded (more than %d series, or more "
                 "frames than reserved); medians and --json cover the rest\n",
                 static_cast<unsigned long long>(timings.dropped()), Timings::kMaxSeries);
}

// "cpu, hybrid (shuffle=1), ...": the --cycle-sorters list.
std::string App::cycle_names() const {
  std::string names;
  for (const SorterChoice& c : cycle_) {
    if (!names.empty()) names += ", ";
    names += std::string(c.info->name);
    if (!c.options.empty()) names += " (" + format_options(c.options) + ")";
  }
  return names;
}

nlohmann::ordered_json App::meta_json(std::uint64_t frames) const {
  const CheckState& c = pipeline_->check();
  nlohmann::ordered_json m;
  m["program"] = "depthsort " DEPTHSORT_VERSION;
  m["device"] = device_line_;
  m["gl"] = gl_line_;
  m["path"] = pipeline_->on_gpu() ? "gpu" : "cpu";
  m["camera_path"] = camera_path_name(options_.camera_path);
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
  m["meshes"] = settings_.scene.meshes;  // any bytes: invalid UTF-8 is replaced when written
  m["triangles"] = scene_.mesh.triangles();
  m["particles"] = scene_.particles;
  m["width"] = options_.width;
  m["height"] = options_.height;
  m["frames"] = frames;
  m["draw"] = options_.draw;
  m["sort"] = settings_.sort;
  m["order"] = settings_.separate_passes ? "separate passes" : "single";
  m["coherent"] = settings_.coherent;
  m["sprite_shape"] = settings_.triangle_sprites ? "triangle" : "quad";
  m["draw_path"] = draw_path_name(settings_.draw_path);
  m["colour"] = colour_mode_name(settings_.colour);
  if (settings_.wipe_on && !settings_.separate_passes) m["wipe"] = settings_.wipe;
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

}  // namespace depthsort::app
