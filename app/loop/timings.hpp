// Timing series for the panel (history for plots, mean/min/max over the last second, or over the
// newest frame where a frame takes longer) and the per-frame record that --json writes (every
// phase and sort step of every frame, plus medians).
// Series are created on first sight of a name and never freed; adding a sample allocates nothing.
// A step recorded more than once in one frame (the hybrid sort's repeated "refine"/"count", its
// "partition-NN" names past the last) is summed into one sample of that frame.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "depthsort/sort/step_timer.hpp"

namespace depthsort::app {

struct TimingSeries {
  static constexpr int kHistory = 240;
  std::string group, name, label;  // label = "group/name"
  std::array<float, kHistory> ms{};
  std::array<double, kHistory> at{};  // seconds since start
  int head = 0, count = 0;
  float last = 0.0f;
  std::uint64_t last_frame = 0;  // frame of the newest history entry (valid when count > 0)
  std::size_t last_sample = 0;   // its index in the recorded samples, or kNotRecorded
  static constexpr std::size_t kNotRecorded = ~std::size_t{0};
  // The history in time order (for ImGui::PlotLines), written into `out` (kHistory floats).
  int ordered(float* out) const;
  struct Stats {
    float mean = 0, min = 0, max = 0;
    int samples = 0;
  };
  // Over the samples taken at `from` seconds or later.
  Stats since(double from) const;
};

class Timings {
 public:
  static constexpr int kMaxSeries = 256;
  // What one frame can add: every step of the four timers read per frame (the frame pipeline's,
  // the mesh and particle sorters' StepTimers, the GL timer ring, which has at most as many steps),
  // plus "compute" (or "step sum") and "host frame".
  static constexpr int kTimersPerFrame = 4;
  static constexpr std::size_t kMaxSamplesPerFrame =
      static_cast<std::size_t>(kTimersPerFrame * StepTimer::kMaxSteps + 2);
  // `record_frames` > 0 keeps every sample of that many frames for write_json.
  explicit Timings(std::size_t record_frames = 0);
  // What the constructor reserves for `record_frames` frames (checked before anything is built).
  static std::size_t bytes_for(std::size_t record_frames) noexcept;

  // Index of the series group/name, created on first use (allocation happens then only).
  int series(std::string_view group, std::string_view name);
  void add(int series_index, float ms, double now, std::uint64_t frame);
  void add(std::string_view group, std::string_view name, float ms, double now, std::uint64_t frame) {
    add(series(group, name), ms, now, frame);
  }
  const std::vector<TimingSeries>& all() const noexcept { return series_; }
  // What the panel shows at `now`: the last second, or the newest frame's samples where that frame
  // is older (a frame slower than a second would otherwise leave every phase without figures).
  TimingSeries::Stats recent(const TimingSeries& s, double now) const noexcept {
    return s.since(std::min(now - 1.0, newest_at_));
  }
  // Over the recorded frames; where none are recorded (a window without --json), over the last
  // kHistory frames of the series.
  float median(int series_index) const;
  bool recording() const noexcept { return record_capacity_ > 0; }
  // Samples that could not be kept (more than kMaxSeries names, or frames beyond record_frames).
  // Never silent: write_json and the app report them.
  std::uint64_t dropped() const noexcept { return dropped_; }

  // {"meta": meta, "dropped_samples": n, "median_ms": {...}, "frames": [{"frame": i,
  // "<group/name>": ms...}...]} through nlohmann::json; invalid UTF-8 in any string becomes
  // U+FFFD, so the text is always valid JSON.
  std::string json_text(const nlohmann::ordered_json& meta) const;

 private:
  struct Sample {
    std::uint32_t frame;
    std::uint16_t series;
    float ms;
  };
  std::vector<TimingSeries> series_;
  double newest_at_ = 0.0;  // the time of the newest frame's samples
  std::vector<Sample> samples_;
  std::size_t record_capacity_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace depthsort::app
