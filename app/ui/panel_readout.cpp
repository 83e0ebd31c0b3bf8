// What the panel shows (PanelInfo, assembled each frame from the run's state) and the sorting
// views it asks for; the headless --panel frame.
#include "loop/run_state.hpp"

#include "render/gl.hpp"

#include <cuda_runtime.h>

#include <string>

namespace depthsort::app {

PanelInfo App::panel_info(std::size_t device_used, std::size_t device_total, float fps) {
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
  if (!info.gpu_path) info.cpu_reason = device_line_;
  return info;
}

// The teaching views' requests (panel buttons; the last frame of a headless --panel run): user
// actions outside the steady loop, so they may allocate and wait.
void App::run_view_requests(bool compare, bool histogram) {
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
void App::draw_headless_panel(const Timings& timings, double now, float host_ms) {
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
  panel_.draw(settings_, requests_, info, timings, now);
  imgui_->end_frame();
}

}  // namespace depthsort::app
