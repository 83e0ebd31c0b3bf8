#include "loop/chart_data.hpp"

namespace depthsort::app {

void ChartData::update(FramePipeline& pipeline, const Scene& scene, bool compare, bool histogram) {
  if (compare && pipeline.on_gpu()) compare_bars_ = pipeline.compare_all(compare_runner_);
  if (histogram) {
    histogram_segments_ = 0;
    if (pipeline.segment_starts(segment_starts_)) {
      const std::size_t triangles = scene.mesh.triangles();
      const std::size_t n = pipeline.separate_passes() ? triangles : triangles + scene.particles;
      histogram_ = size_histogram(segment_sizes(segment_starts_, n), 32);
      histogram_segments_ = segment_starts_.size();
    }
  }
}

}  // namespace depthsort::app
