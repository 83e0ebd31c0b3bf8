// Data for the demo's teaching views (issue 12, part 4): which bucket each sorted primitive landed
// in, and the bucket sizes for the panel's histogram. Kept apart from the GL code so the CPU tests
// check it without a GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "depthsort/sorter.hpp"

namespace depthsort {

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
