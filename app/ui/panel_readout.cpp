#include "ui/panel_readout.hpp"

#include "loop/report.hpp"
#include "loop/run_state.hpp"

namespace depthsort::app {

PanelReadout read_panel(const RunState& run, DeviceMemory memory, float fps) {
  const FramePipeline& pipeline = run.stage.pipeline();
  PanelReadout readout;
  readout.device = run.lines.device;
  readout.gl = run.lines.gl;
  readout.scene = run.stage.scene().description;
  readout.notes = run.lines.notes;
  readout.slow_frame = run.lines.slow_frame;
  readout.error = run.lines.error;
  readout.device_bytes_used = memory.used;
  readout.device_bytes_total = memory.total;
  readout.workspace_bytes = pipeline.workspace_bytes();
  readout.gpu_path = pipeline.on_gpu();
  if (const Sorter* sorter = pipeline.sorter()) {
    const Segments segments = sorter->segments();
    readout.segments = segments.count;
    if (segments.kind && *segments.kind) readout.segment_kind = segments.kind;
  }
  readout.compare_bars = run.charts.compare_bars();
  readout.histogram = run.charts.histogram();
  readout.histogram_segments = run.charts.histogram_segments();
  readout.check = &pipeline.check();
  readout.fps = fps;
  readout.cycling = run.cycle.active();
  if (!readout.gpu_path) readout.cpu_reason = run.lines.device;
  readout.transparency = &run.stage.renderer().transparency_stats();
  readout.transparency_memory = run.stage.renderer().transparency_memory(run.settings.transparency.fragment_budget);
  readout.sorted_bytes = sorted_mode_bytes(run);
  return readout;
}

}  // namespace depthsort::app
