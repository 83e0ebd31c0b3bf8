#include "loop/timings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "depthsort/host/count_text.hpp"
#include "depthsort/host/stats.hpp"

namespace depthsort::app {

int TimingSeries::ordered(float* out) const {
  const int start = count < kHistory ? 0 : head;
  for (int i = 0; i < count; ++i) out[i] = ms[static_cast<std::size_t>((start + i) % kHistory)];
  return count;
}

TimingSeries::Stats TimingSeries::since(double from) const {
  Stats s;
  s.min = std::numeric_limits<float>::max();
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (at[k] < from) continue;
    sum += ms[k];
    s.min = std::min(s.min, ms[k]);
    s.max = std::max(s.max, ms[k]);
    ++s.samples;
  }
  if (s.samples == 0) return Stats{};
  s.mean = static_cast<float>(sum / s.samples);
  return s;
}

Timings::Timings(std::size_t record_frames) : record_capacity_(record_frames * kMaxSamplesPerFrame) {
  series_.reserve(kMaxSeries);
  try {
    samples_.reserve(record_capacity_);
  } catch (const std::exception&) {  // bad_alloc or length_error: say what was asked
    throw std::runtime_error("cannot reserve " + byte_text(record_capacity_ * sizeof(Sample), ByteUnits::MiB) +
                             " to record the timings of " + std::to_string(record_frames) +
                             " frames; use fewer --frames");
  }
}

std::size_t Timings::bytes_for(std::size_t record_frames) noexcept {
  return record_frames * kMaxSamplesPerFrame * sizeof(Sample);
}

int Timings::series(std::string_view group, std::string_view name) {
  for (std::size_t i = 0; i < series_.size(); ++i)
    if (series_[i].group == group && series_[i].name == name) return static_cast<int>(i);
  if (series_.size() == static_cast<std::size_t>(kMaxSeries)) return -1;
  TimingSeries s;
  s.group = group;
  s.name = name;
  s.label = std::string(group) + "/" + std::string(name);
  series_.push_back(std::move(s));
  return static_cast<int>(series_.size() - 1);
}

void Timings::add(int index, float ms, double now, std::uint64_t frame) {
  if (index < 0) {
    ++dropped_;
    return;
  }
  newest_at_ = std::max(newest_at_, now);
  TimingSeries& s = series_[static_cast<std::size_t>(index)];
  if (s.count > 0 && s.last_frame == frame) {
    // The same step again in this frame: one sample per name and frame, the sum.
    const auto newest = static_cast<std::size_t>((s.head + TimingSeries::kHistory - 1) % TimingSeries::kHistory);
    s.ms[newest] += ms;
    s.last += ms;
    if (s.last_sample != TimingSeries::kNotRecorded) samples_[s.last_sample].ms += ms;
    return;
  }
  s.ms[static_cast<std::size_t>(s.head)] = ms;
  s.at[static_cast<std::size_t>(s.head)] = now;
  s.head = (s.head + 1) % TimingSeries::kHistory;
  s.count = std::min(s.count + 1, TimingSeries::kHistory);
  s.last = ms;
  s.last_frame = frame;
  s.last_sample = TimingSeries::kNotRecorded;
  if (samples_.size() < record_capacity_) {
    s.last_sample = samples_.size();
    samples_.push_back(Sample{static_cast<std::uint32_t>(frame), static_cast<std::uint16_t>(index), ms});
  } else if (record_capacity_ > 0) {
    ++dropped_;
  }
}

float Timings::median(int index) const {
  std::vector<float> v;
  if (record_capacity_ > 0) {
    for (const Sample& s : samples_)
      if (s.series == index) v.push_back(s.ms);
  } else if (index >= 0 && static_cast<std::size_t>(index) < series_.size()) {
    // Nothing recorded (a window without --json): the history the panel plots.
    const TimingSeries& s = series_[static_cast<std::size_t>(index)];
    v.resize(static_cast<std::size_t>(s.count));
    s.ordered(v.data());
  }
  if (v.empty()) return 0.0f;
  return depthsort::median(std::move(v));
}

std::string Timings::json_text(const nlohmann::ordered_json& meta) const {
  // Five decimals (10 ns) are what the event timers resolve; more digits would be noise.
  const auto rounded = [](float ms) { return std::round(static_cast<double>(ms) * 1e5) / 1e5; };
  nlohmann::ordered_json root;
  root["meta"] = meta;
  root["dropped_samples"] = dropped_;
  nlohmann::ordered_json& medians = root["median_ms"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < series_.size(); ++i) medians[series_[i].label] = rounded(median(static_cast<int>(i)));
  std::map<std::uint32_t, std::vector<const Sample*>> by_frame;
  for (const Sample& s : samples_) by_frame[s.frame].push_back(&s);
  nlohmann::ordered_json& frames = root["frames"] = nlohmann::ordered_json::array();
  for (const auto& [frame, samples] : by_frame) {
    nlohmann::ordered_json row;
    row["frame"] = frame;
    for (const Sample* s : samples) row[series_[s->series].label] = rounded(s->ms);
    frames.push_back(std::move(row));
  }
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace depthsort::app
