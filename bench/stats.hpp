// depthsort-bench: summary statistics of repeated timings.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "depthsort/host/stats.hpp"

namespace depthsort::bench {

struct Summary {
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double p90 = std::numeric_limits<double>::quiet_NaN();
};

// Median, minimum and the 90th percentile by nearest rank (depthsort/host/stats.hpp). NaNs for no
// samples.
inline Summary summarize(const std::vector<double>& samples) {
  Summary s;
  if (samples.empty()) return s;
  s.min = *std::min_element(samples.begin(), samples.end());
  s.median = median(samples);
  s.p90 = nearest_rank_quantile(samples, 0.9);
  return s;
}

}  // namespace depthsort::bench
