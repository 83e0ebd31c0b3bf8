// Data for the demo's views of a sorter's structure (segment ids): which bucket each sorted primitive landed
// in, and the bucket sizes for the panel's histogram. Kept apart from the GL code so the CPU tests
// check it without a GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort {

// The segment of position p: the last start <= p (count >= 1). A binary search per position: a
// few thousand starts stay in L1/L2, so this costs about one pass over the output, and needs no
// workspace. Shared by the segment ids and the expanded draw's colour by segment (expand.hpp).
DEPTHSORT_HD std::uint32_t segment_of(const std::uint32_t* starts, std::uint32_t count, std::uint32_t p) {
  std::uint32_t lo = 0, hi = count;  // answer in [lo, hi): starts[lo] <= p
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (starts[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Writes, for every output position p < n, the index of the segment that holds p
// (segments.starts ascending, the first 0). With no segments every position gets 0.
void launch_segment_ids(const Segments& segments, std::size_t n, std::uint32_t* segment_of_position,
                        cudaStream_t stream);

// Host reference of launch_segment_ids, for the CPU path and the tests.
void segment_ids_host(std::span<const std::uint32_t> starts, std::size_t n, std::span<std::uint32_t> out);

// Segment sizes from their starts (the last one ends at n). Throws std::invalid_argument if the
// starts are not ascending from 0 or pass n.
std::vector<std::uint32_t> segment_sizes(std::span<const std::uint32_t> starts, std::size_t n);

// `bins` counts of segment sizes for a histogram: bin b counts the segments whose size lies in
// [b*width, (b+1)*width), width = ceil((max size + 1) / bins); the last bin takes the rest.
struct SizeHistogram {
  std::vector<std::uint32_t> counts;
  std::uint32_t bin_width = 1;
  std::uint32_t largest = 0;
};
SizeHistogram size_histogram(std::span<const std::uint32_t> sizes, std::size_t bins);

}  // namespace depthsort
