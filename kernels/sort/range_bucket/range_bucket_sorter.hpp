// range-bucket: depthsort's own exact sort for depth streams (docs/algorithms/range-bucket.md).
// The keys' range cut into 2^b buckets of equal width, one scatter into them, each bucket sorted on
// chip; buckets too large for a block sorted by CUB's segmented sort, and inputs where most pairs
// fall into such buckets sorted by CUB's radix sort of the range's bits alone.
#pragma once

#include <memory>

#include "depthsort/registry.hpp"

namespace depthsort::range_bucket {

inline constexpr OptionSpec kRangeBucketOptions[] = {
    {"bucket_pairs", "log2 of the mean pairs a bucket is cut for (bucket count: n over 2^bucket_pairs)", 11, 8, 13},
    {"group_atomics", "one shared-memory atomic per group of lanes with the same bucket (warp match) instead of one per key", 0, 0, 1},
};

std::unique_ptr<Sorter> make_range_bucket_sorter(const OptionValues& options);

}  // namespace depthsort::range_bucket
