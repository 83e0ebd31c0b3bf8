#include "loop/compare_all.hpp"

#include <algorithm>
#include <exception>

#include "depthsort/sort/registry.hpp"
#include "depthsort/host/stats.hpp"

namespace depthsort::app {

StepBar median_bar(std::string sorter, std::span<const std::vector<TimedStep>> runs) {
  StepBar bar;
  bar.sorter = std::move(sorter);
  if (runs.empty()) return bar;
  const std::vector<TimedStep>& first = runs.front();
  std::vector<float> samples;
  samples.reserve(runs.size());
  for (std::size_t s = 0; s < first.size(); ++s) {
    samples.clear();
    for (const auto& run : runs)
      if (s < run.size() && run[s].name == first[s].name) samples.push_back(run[s].ms);
    const float step_ms = depthsort::median(samples);
    bar.steps.push_back({first[s].name, step_ms});
    bar.total_ms += step_ms;
  }
  return bar;
}

void CompareAll::prepare(std::size_t n) {
  if (n <= capacity_ && !entries_.empty()) return;
  entries_.clear();
  keys_out_ = DeviceBuffer<float>(n, "compare-all keys (out)");
  values_out_ = DeviceBuffer<std::uint32_t>(n, "compare-all values (out)");
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != Backend::Gpu) continue;
    Entry entry{std::string(info.name), nullptr, {}};
    if (std::string why; !info.is_available(&why)) {
      entry.error = why;
    } else {
      try {
        entry.sorter = info.create(default_options(info));
        entry.sorter->reserve(n);
      } catch (const std::exception& e) {  // one sorter that does not fit must not hide the others
        entry.sorter.reset();
        entry.error = e.what();
      }
    }
    entries_.push_back(std::move(entry));
  }
  capacity_ = n;
}

std::vector<StepBar> CompareAll::run(const float* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream,
                                     int repetitions) {
  std::vector<StepBar> bars;
  if (n == 0) return bars;
  prepare(n);
  const SortBuffers buffers{keys, values, keys_out_.data(), values_out_.data(), n};
  std::vector<std::vector<TimedStep>> runs;
  for (Entry& entry : entries_) {
    if (!entry.sorter) {
      bars.push_back({entry.name, {}, 0, entry.error});
      continue;
    }
    runs.clear();
    entry.sorter->sort(buffers, stream);  // warm-up
    entry.sorter->timer().wait_last();
    for (int r = 0; r < std::max(1, repetitions); ++r) {
      entry.sorter->sort(buffers, stream);
      std::vector<TimedStep> steps;
      for (const StepTime& step : entry.sorter->timer().wait_last()) steps.push_back({step.name, step.ms});
      runs.push_back(std::move(steps));
    }
    bars.push_back(median_bar(entry.name, runs));
  }
  return bars;
}

}  // namespace depthsort::app
