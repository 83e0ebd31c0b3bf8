// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008),
// Section 5.1: the index math of the histogram bins (binning.cuh), host and device, so the CPU
// tests check the same bin a kernel computes.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"

namespace depthsort::hybrid {

// Histogram bins: at most H bins spaced linearly from the smallest to the largest key (Section
// 5.1), linear in the ordered key of keys.hpp rather than in the float value (deviation: a float
// range is useless once +-FLT_MAX, infinities or NaNs are among the keys, while the ordered key
// space holds every key; inside one binary exponent it is linear in the value). Bins are 2^shift
// keys wide, so a bin is a shift: exact, monotone, the same in every kernel.
struct Binning {
  std::uint32_t lo;     // smallest ordered key
  std::uint32_t shift;  // log2 of the bin width
  int bins;             // bins in use (<= H)
  // Keys outside [lo, hi] (a range from a sample, or from the last sort's splitters) fall in the
  // end bins. The offset stays unsigned up to the clamp: with shift 0 (a range under H keys) a key
  // 2^31 or more above lo would otherwise turn into a negative bin, an index before the pivot table.
  DEPTHSORT_HD int bin(std::uint32_t k) const {
    if (k <= lo) return 0;
    const std::uint32_t b = (k - lo) >> shift;
    const std::uint32_t last = static_cast<std::uint32_t>(bins - 1);
    return static_cast<int>(b < last ? b : last);
  }
  DEPTHSORT_HD unsigned long long bin_start(int i) const {
    return static_cast<unsigned long long>(lo) + (static_cast<unsigned long long>(i) << shift);
  }
};

// The bins of the ordered keys lo .. hi, at most max_bins of them (hi < lo: one bin).
DEPTHSORT_HD Binning make_binning_of_range(std::uint32_t lo, std::uint32_t hi, int max_bins) {
  const std::uint32_t range = hi >= lo ? hi - lo : 0u;
  std::uint32_t shift = 0;
  while (shift < 32 && (static_cast<unsigned long long>(range) >> shift) >= static_cast<unsigned long long>(max_bins))
    ++shift;
  return {lo, shift, static_cast<int>((static_cast<unsigned long long>(range) >> shift) + 1)};
}

}  // namespace depthsort::hybrid
