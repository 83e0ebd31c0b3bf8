// What depthsort-bench's runs share (main.cpp: independent inputs; sequence.cpp: frame
// sequences): the samples of a row, the timing events, the result files kept up to date.
#pragma once

#include <algorithm>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/host/output_file.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "report.hpp"
#include "stats.hpp"

namespace depthsort::bench {

struct Samples {
  std::vector<double> total_ms;
  // Per step name (in first-seen order): the step's milliseconds in each repetition, a name
  // recorded more than once in one sort summed for that sort.
  std::vector<std::pair<std::string, std::vector<double>>> steps;

  void add_steps(std::span<const StepTime> steps_of_sort) {
    std::vector<std::pair<std::string, double>> summed;
    for (const StepTime& step : steps_of_sort) {
      auto it = std::find_if(summed.begin(), summed.end(), [&](const auto& s) { return s.first == step.name; });
      if (it == summed.end())
        summed.emplace_back(step.name, step.ms);
      else
        it->second += step.ms;
    }
    for (const auto& [name, ms] : summed) {
      auto it = std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return s.first == name; });
      if (it == steps.end())
        steps.emplace_back(name, std::vector<double>{ms});
      else
        it->second.push_back(ms);
    }
  }
};

inline void fill_row(Row& row, const Samples& samples) {
  const Summary s = summarize(samples.total_ms);
  row.reps = static_cast<int>(samples.total_ms.size());
  row.median_ms = s.median;
  row.min_ms = s.min;
  row.p90_ms = s.p90;
  row.gpairs_per_s = static_cast<double>(row.n) / (s.median * 1e-3) / 1e9;
  // Every step, a sorter's only one too: each NVTX range a profiler sees has its timing here.
  for (const auto& [name, values] : samples.steps) row.steps.push_back({name, summarize(values).median});
}

// The pair of timing events that brackets one sort, and the one before a frame's listing pass.
struct Events {
  CudaEvent list_event, start_event, stop_event;
  cudaEvent_t list() const { return list_event.get(); }
  cudaEvent_t start() const { return start_event.get(); }
  cudaEvent_t stop() const { return stop_event.get(); }
};

inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A result file the run keeps up to date: resolved once before anything runs, then rewritten (to
// a temporary file, then renamed) after every row, so a crash loses no finished row and no reader
// ever sees half a file. A stream target (/dev/stdout, a pipe, a FIFO) cannot be replaced: it is
// opened once at the start and written once, at the end (depthsort/host/output_file.hpp).
struct ResultFile {
  std::string path;
  std::string (*render)(const RunHeader&, const std::vector<Row>&);
  std::shared_ptr<PlannedOutput> output;  // shared: the rows' loop holds the files as const

  void save(const RunHeader& header, const std::vector<Row>& rows, bool final) const {
    if (output->stream() && !final) return;
    std::cout.flush();  // a stream target may be our own stdout: what was printed comes first
    output->write(render(header, rows));
  }
};

}  // namespace depthsort::bench
