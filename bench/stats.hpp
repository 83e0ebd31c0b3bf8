// depthsort-bench: summary statistics of repeated timings.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace depthsort::bench {

struct Summary {
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double p90 = std::numeric_limits<double>::quiet_NaN();
};

// Median (mean of the middle two for an even count), minimum, and the 90th percentile by nearest
// rank (the smallest sample with at least 90% of the samples at or below it). NaNs for no samples.
inline Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = samples.front();
  s.median = (n % 2 == 1) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90 = samples[std::clamp<std::size_t>(rank, 1, n) - 1];
  return s;
}

}  // namespace depthsort::bench
