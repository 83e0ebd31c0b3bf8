// The data of the panel's sort charts (ui/sort_charts.hpp): "compare all" (every GPU sorter timed
// on this frame's keys) and the sizes of the last sort's buckets. Made on request (a button, the
// last frame of a headless --panel run), never per frame: it may allocate and wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "depthsort/frame/segment_ids.hpp"
#include "loop/compare_all.hpp"
#include "loop/frame_pipeline.hpp"
#include "scene/scene.hpp"

namespace depthsort::app {

class ChartData {
 public:
  // Runs "compare all" (on the GPU path) and/or counts the bucket sizes of the last sort.
  void update(FramePipeline& pipeline, const Scene& scene, bool compare, bool histogram);

  std::span<const StepBar> compare_bars() const noexcept { return compare_bars_; }
  // The last histogram of bucket sizes, or null when none was made or the sort had no buckets.
  const SizeHistogram* histogram() const noexcept { return histogram_segments_ > 0 ? &histogram_ : nullptr; }
  std::size_t histogram_segments() const noexcept { return histogram_segments_; }

 private:
  CompareAll compare_runner_;
  std::vector<StepBar> compare_bars_;
  std::vector<std::uint32_t> segment_starts_;
  SizeHistogram histogram_;
  std::size_t histogram_segments_ = 0;
};

}  // namespace depthsort::app
