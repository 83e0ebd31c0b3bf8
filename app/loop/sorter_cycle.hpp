// --cycle-sorters: every frame the next sorter of the path with each of its option variants, all
// created and reserved once before the first frame (FramePipeline::select switches between them
// without allocating); every frame's order is checked before the next sorter runs, and device and
// host memory are sampled every kMemoryEvery frames and at the last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loop/frame_pipeline.hpp"

namespace depthsort::app {

// One sample of a long run's memory: taken without allocating.
struct MemorySample {
  std::uint64_t frame = 0;
  std::size_t device_used = 0;    // cudaMemGetInfo's total - free (0 on the CPU path)
  std::size_t host_resident = 0;  // this process's resident set (/proc/self/statm)
};
MemorySample sample_memory(std::uint64_t frame, bool gpu);

class SorterCycle {
 public:
  static constexpr std::uint64_t kMemoryEvery = 1000;

  SorterCycle() = default;  // not cycling
  explicit SorterCycle(std::vector<SorterChoice> choices) : choices_(std::move(choices)) {}

  bool active() const noexcept { return !choices_.empty(); }
  std::span<const SorterChoice> choices() const noexcept { return choices_; }
  // The sorters a pipeline holds: the cycle's, or `single` when not cycling.
  std::span<const SorterChoice> choices_or(const SorterChoice& single) const noexcept {
    return active() ? std::span<const SorterChoice>(choices_) : std::span<const SorterChoice>(&single, 1);
  }
  // A sorter chosen in the panel ends the cycle.
  void end() noexcept { choices_.clear(); }

  // Reserves the memory samples of a run of `frames` frames, before the frame loop.
  void reserve_samples(std::uint64_t frames);
  // Before frame `frame`: its sorter (allocation-free).
  void select(FramePipeline& pipeline, std::uint64_t frame) const noexcept;
  // After frame `frame` of `frames` (0: until the window closes): its order checked now (the next
  // frame sorts with another sorter), memory sampled on schedule (after the frame, so frame 0
  // counts what it set up).
  void finish(FramePipeline& pipeline, std::uint64_t frame, std::uint64_t frames);
  const std::vector<MemorySample>& samples() const noexcept { return samples_; }
  // "cpu, hybrid (shuffle=1), ...": the sorters gone through, in order.
  std::string names() const;

 private:
  std::vector<SorterChoice> choices_;
  std::vector<MemorySample> samples_;  // reserved before the frame loop
};

}  // namespace depthsort::app
