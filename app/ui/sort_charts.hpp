// The panel's charts of how a sorter works: per-step timings as one stacked bar per sorter (live
// for the current sorter, side by side after "compare all"), and a histogram of bucket sizes for
// the sorters that have buckets. Drawing only: the data comes from loop/chart_data.hpp (compare
// all's bars, loop/compare_all.hpp) and the frame library's depthsort/frame/segment_ids.hpp.
#pragma once

#include <span>

#include "loop/compare_all.hpp"
#include "depthsort/frame/segment_ids.hpp"

namespace depthsort::app {

// Horizontal stacked bars on one millisecond scale (the longest bar fills the width), each under
// its sorter's name and total and above its legend (each step's colour, name and time); each step
// has a stable colour by name, and hovering a segment names the step and its time.
void draw_step_bars(std::span<const StepBar> bars);

// Bucket sizes of the last sort: counts per size range, with the largest bucket and the count.
void draw_size_histogram(const SizeHistogram& histogram, std::size_t segments, const char* kind);

}  // namespace depthsort::app
