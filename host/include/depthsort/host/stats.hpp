// Summary statistics of repeated timings, one definition for every program: the benchmark, the
// demo's timing panel and compare-all bars, the multi-GPU tool and the types tool.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <vector>

namespace depthsort {

// The middle value of the samples; for an even count the mean of the two middle values. NaN for
// no samples.
template <std::floating_point T>
T median(std::vector<T> samples) {
  if (samples.empty()) return std::numeric_limits<T>::quiet_NaN();
  const std::size_t n = samples.size();
  const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(samples.begin(), middle, samples.end());
  if (n % 2 == 1) return *middle;
  const T below = *std::max_element(samples.begin(), middle);  // nth_element left the lower half here
  return (below + *middle) / T{2};
}

// The q-quantile by nearest rank (q in (0, 1]): the smallest sample with at least a fraction q of
// the samples at or below it. NaN for no samples.
template <std::floating_point T>
T nearest_rank_quantile(std::vector<T> samples, double q) {
  if (samples.empty()) return std::numeric_limits<T>::quiet_NaN();
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
  const auto at = samples.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, samples.size()) - 1);
  std::nth_element(samples.begin(), at, samples.end());
  return *at;
}

}  // namespace depthsort
