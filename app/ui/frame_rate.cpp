#include "ui/frame_rate.hpp"

namespace depthsort::app {

void FrameRate::add(double seconds) noexcept {
  times_[head_] = seconds;
  head_ = (head_ + 1) % kCapacity;
  if (count_ < kCapacity) ++count_;
}

double FrameRate::fps() const noexcept {
  if (count_ < 2) return 0.0;
  const double newest = at(0);
  // The oldest timestamp within the window, but at least one interval back.
  std::size_t back = 1;
  while (back + 1 < count_ && newest - at(back + 1) <= kWindow) ++back;
  const double span = newest - at(back);
  return span > 0.0 ? static_cast<double>(back) / span : 0.0;
}

}  // namespace depthsort::app
