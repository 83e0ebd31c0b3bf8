// What the panel shows and does not edit (it edits the Settings; its buttons set ButtonPresses):
// the run's lines, the device's memory, the sorter's segments, the sort charts' data, the order
// check and the frame rate. Assembled each frame from the run (read_panel); the strings are views,
// so the panel allocates nothing per frame.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "depthsort/frame/segment_ids.hpp"
#include "loop/compare_all.hpp"
#include "loop/order_check.hpp"
#include "render/transparency.hpp"

namespace depthsort::app {

struct RunState;

struct PanelReadout {
  std::string_view device;      // GPU name or "CPU path: why"
  std::string_view gl;          // GL renderer
  std::string_view scene;       // description
  std::string_view notes;       // such as the CPU path's scaling down of the default scene
  std::string_view slow_frame;  // why the frames are too slow to be interactive (empty: they are not)
  std::string_view error;       // the last rebuild request that failed
  std::size_t device_bytes_used = 0, device_bytes_total = 0, workspace_bytes = 0;
  bool gpu_path = true;
  bool cycling = false;      // --cycle-sorters: the sorter changes every frame
  float ui_scale = 1.0f;     // the fonts' and widgets' factor this frame (ui/ui_scale.hpp)
  std::size_t segments = 0;  // the current sorter's segments in the last sort (0: none)
  const char* segment_kind = "bucket";
  // The sort charts' data, made on request (buttons): compare-all bars and the last histogram.
  std::span<const StepBar> compare_bars;
  const SizeHistogram* histogram = nullptr;
  std::size_t histogram_segments = 0;
  const CheckState* check = nullptr;
  float fps = 0;
  std::string_view cpu_reason;  // the CPU path: why (no CUDA device, --cpu, ...); empty on the GPU path
  // The transparency modes: the last statistics read back, and each mode's memory at this size.
  const TransparencyStats* transparency = nullptr;
  TransparencyMemory transparency_memory;
  std::size_t sorted_bytes = 0;  // the sorted mode's (loop/report.hpp: sorted_mode_bytes)
};

// Device memory in use and in all, as the caller last read it (cudaMemGetInfo; 0 on the CPU path).
struct DeviceMemory {
  std::size_t used = 0, total = 0;
};

PanelReadout read_panel(const RunState& run, DeviceMemory memory, float fps);

}  // namespace depthsort::app
