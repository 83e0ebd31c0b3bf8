// The frame rate the panel shows: frames over the last second of frame timestamps, right at
// 1 fps and at 1000 (no cap on a frame's time, no slow average). Storage is fixed: no allocation
// in the frame loop.
#pragma once

#include <array>
#include <cstddef>

namespace depthsort::app {

class FrameRate {
 public:
  // Timestamps kept: a second of frames up to this rate; above it the figure covers the last
  // kCapacity frames, which is still the rate.
  static constexpr std::size_t kCapacity = 4096;
  static constexpr double kWindow = 1.0;  // seconds

  // A frame finished at `seconds` (any monotonic clock; not decreasing).
  void add(double seconds) noexcept;
  // Frames a second: the intervals between the timestamps of the last second over their span;
  // when frames are slower than one a second, 1 / the last interval. 0 before two frames.
  double fps() const noexcept;
  // Forgets every timestamp (after a pause such as a minimised window).
  void reset() noexcept { count_ = 0; }

 private:
  double at(std::size_t back) const noexcept {  // back = 0: the newest
    return times_[(head_ + kCapacity - 1 - back) % kCapacity];
  }
  std::array<double, kCapacity> times_{};
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace depthsort::app
