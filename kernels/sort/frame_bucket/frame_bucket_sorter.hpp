// frame-bucket: a stateful sorter for consecutive frames (issue 13; depthsort's own design, a
// sample sort whose splitters come from the last frame's sorted output: Frazer & McKellar,
// "Samplesort", JACM 17(3), 1970, with the sample replaced by the previous output at equal ranks).
// See docs/algorithms/frame-bucket.md for the steps, options and where it falls back.
#pragma once

#include <memory>

#include "depthsort/registry.hpp"

namespace depthsort::frame_bucket {

inline constexpr OptionSpec kFrameBucketOptions[] = {
    {"bucket", "target pairs per bucket (R = ceil(n / bucket) ranks); up to 4096 pairs sort in the half-size on-chip sort",
     3840, 1024, 6144},
    {"slack_pct", "slot of a bucket = last frame's count * (1 + slack_pct/100) + 64; overflow: cub-radix", 25, 0, 100},
};

std::unique_ptr<Sorter> make_frame_bucket_sorter(const OptionValues& options);

}  // namespace depthsort::frame_bucket
