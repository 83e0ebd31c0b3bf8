// The data behind the demo's views of a sorter's structure: the bucket (segment) of every sorted
// position and the bucket sizes. Not a sorting step: it runs only while a view shows it.
#include "depthsort/frame/segment_ids.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "depthsort/sort/errors.hpp"

namespace depthsort {
namespace {

__global__ void segment_ids_kernel(const std::uint32_t* starts, std::uint32_t count, std::uint32_t n,
                                   std::uint32_t* out) {
  for (std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x)
    out[p] = count == 0 ? 0u : segment_of(starts, count, p);
}

}  // namespace

void launch_segment_ids(const Segments& segments, std::size_t n, std::uint32_t* segment_of_position,
                        cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535u * 4));
  const std::uint32_t count = segments.starts ? segments.count : 0u;
  segment_ids_kernel<<<blocks, kThreads, 0, stream>>>(segments.starts, count, static_cast<std::uint32_t>(n),
                                                      segment_of_position);
  DEPTHSORT_CUDA_CHECK_LAUNCH("segment_ids_kernel");
}

void segment_ids_host(std::span<const std::uint32_t> starts, std::size_t n, std::span<std::uint32_t> out) {
  if (out.size() < n)
    throw std::invalid_argument("segment_ids_host: output holds " + std::to_string(out.size()) + " positions, " +
                                std::to_string(n) + " needed");
  const auto count = static_cast<std::uint32_t>(starts.size());
  for (std::size_t p = 0; p < n; ++p)
    out[p] = count == 0 ? 0u : segment_of(starts.data(), count, static_cast<std::uint32_t>(p));
}

std::vector<std::uint32_t> segment_sizes(std::span<const std::uint32_t> starts, std::size_t n) {
  std::vector<std::uint32_t> sizes;
  if (starts.empty()) return sizes;
  if (starts.front() != 0)
    throw std::invalid_argument("segment starts must begin at 0, not " + std::to_string(starts.front()));
  sizes.reserve(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : n;
    if (end < starts[i] || end > n)
      throw std::invalid_argument("segment " + std::to_string(i) + " runs from " + std::to_string(starts[i]) + " to " +
                                  std::to_string(end) +
                                  ": starts must ascend and stay within n = " + std::to_string(n));
    sizes.push_back(static_cast<std::uint32_t>(end - starts[i]));
  }
  return sizes;
}

SizeHistogram size_histogram(std::span<const std::uint32_t> sizes, std::size_t bins) {
  SizeHistogram histogram;
  if (bins == 0) throw std::invalid_argument("size_histogram: bins must be at least 1");
  histogram.counts.assign(bins, 0);
  if (sizes.empty()) return histogram;
  histogram.largest = *std::max_element(sizes.begin(), sizes.end());
  histogram.bin_width = static_cast<std::uint32_t>((std::uint64_t{histogram.largest} + bins) / bins);
  for (const std::uint32_t size : sizes)
    ++histogram.counts[std::min<std::size_t>(size / histogram.bin_width, bins - 1)];
  return histogram;
}

}  // namespace depthsort
