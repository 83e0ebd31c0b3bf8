// "Compare all": every GPU sorter of the registry, with its default options,
// sorts the current frame's keys; the panel shows their per-step timings side by side. The keys
// are read, never written, so the frame's own order is untouched.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort::app {

struct TimedStep {
  std::string name;
  float ms = 0;
};

// One sorter's bar: its steps in order (medians over the repetitions) and their sum.
struct StepBar {
  std::string sorter;
  std::vector<TimedStep> steps;
  float total_ms = 0;
  std::string error;  // why this sorter has no bar (it could not reserve, say)
};

// The per-step medians of several timed runs of one sorter (each run's steps in the same order).
StepBar median_bar(std::string sorter, std::span<const std::vector<TimedStep>> runs);

class CompareAll {
 public:
  // Runs every available GPU sorter `repetitions` times (after one warm-up) on the n pairs and
  // returns one bar per sorter, in registry order. Sorters and output buffers are created on the
  // first call and whenever n grows: a button press, never the frame loop. Blocks until done.
  std::vector<StepBar> run(const float* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream,
                           int repetitions = 5);

 private:
  struct Entry {
    std::string name;
    std::unique_ptr<Sorter> sorter;
    std::string error;
  };
  void prepare(std::size_t n);
  std::vector<Entry> entries_;
  std::size_t capacity_ = 0;
  DeviceBuffer<float> keys_out_;
  DeviceBuffer<std::uint32_t> values_out_;
};

}  // namespace depthsort::app
