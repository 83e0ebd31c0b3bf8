// The segment ids (the demo's views of a sorter's structure): bucket of every sorted position, bucket sizes and
// their histogram, on the CPU (the GPU kernel shares segment_of with the host reference; its own
// test is in tests/gpu/test_segment_ids_gpu.cpp).
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "depthsort/frame/segment_ids.hpp"

namespace depthsort {
namespace {

TEST(SegmentIds, SegmentIdsFollowTheStarts) {
  const std::vector<std::uint32_t> starts{0, 3, 3, 7};  // an empty segment 1
  std::vector<std::uint32_t> ids(10, 99);
  segment_ids_host(starts, 10, ids);
  EXPECT_EQ(ids, (std::vector<std::uint32_t>{0, 0, 0, 2, 2, 2, 2, 3, 3, 3}));
}

TEST(SegmentIds, NoSegmentsMeansOneSegment) {
  std::vector<std::uint32_t> ids(5, 99);
  segment_ids_host({}, 5, ids);
  EXPECT_EQ(ids, std::vector<std::uint32_t>(5, 0));
  EXPECT_TRUE(segment_sizes({}, 5).empty());
}

TEST(SegmentIds, SizesAndTheirSumIsN) {
  const std::vector<std::uint32_t> starts{0, 3, 3, 7};
  const auto sizes = segment_sizes(starts, 10);
  EXPECT_EQ(sizes, (std::vector<std::uint32_t>{3, 0, 4, 3}));
  EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), 0u), 10u);
}

TEST(SegmentIds, BadStartsAreRefused) {
  EXPECT_THROW(segment_sizes(std::vector<std::uint32_t>{1, 4}, 10), std::invalid_argument);
  EXPECT_THROW(segment_sizes(std::vector<std::uint32_t>{0, 6, 4}, 10), std::invalid_argument);
  EXPECT_THROW(segment_sizes(std::vector<std::uint32_t>{0, 11}, 10), std::invalid_argument);
  std::vector<std::uint32_t> small(3);
  EXPECT_THROW(segment_ids_host(std::vector<std::uint32_t>{0}, 4, small), std::invalid_argument);
}

TEST(SegmentIds, HistogramCountsEverySegmentOnce) {
  const std::vector<std::uint32_t> sizes{0, 1, 5, 9, 10, 10, 3};
  const SizeHistogram histogram = size_histogram(sizes, 4);
  EXPECT_EQ(histogram.largest, 10u);
  EXPECT_EQ(histogram.bin_width, 3u);                                     // ceil(11 / 4)
  EXPECT_EQ(histogram.counts, (std::vector<std::uint32_t>{2, 2, 0, 3}));  // [0,3) [3,6) [6,9) [9,..)
  EXPECT_EQ(std::accumulate(histogram.counts.begin(), histogram.counts.end(), 0u), sizes.size());
  EXPECT_THROW(size_histogram(sizes, 0), std::invalid_argument);
}

}  // namespace
}  // namespace depthsort
