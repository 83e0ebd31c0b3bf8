// run-bucket: depthsort's own sample sort for depth streams whose input order follows the key
// order (docs/algorithms/run-bucket.md): the registry entry `run-bucket`.
#pragma once

#include <memory>

#include "depthsort/sort/sorter.hpp"

namespace depthsort::run_bucket {

inline constexpr OptionSpec kRunBucketOptions[] = {
    {"max_outside",
     "take the bucket path where the sample shows at most this many pairs per 1000 falling outside the 512 "
     "buckets around their tile's middle pair (input in nearly the key order); otherwise cub-radix",
     100, 0, 1000},
    {"min_pairs_log2", "below 2^this many pairs cub-radix sorts at once (the sample's fixed cost does not pay)", 21, 12,
     31},
    {"span",
     "from min_pairs, where the last keys differed in at most 24 low bits, the fallback finds this input's range "
     "and CUB sorts only the bits its keys differ in (three digit passes instead of four)",
     1, 0, 1},
    {"max_spread",
     "where the keys are narrow enough for that sort, take the bucket path only if a tile's samples span at most "
     "this many buckets on average (beyond, the scatter's runs are short and that sort is faster)",
     256, 0, 8192},
    {"max_runs",
     "where the keys are too wide for that sort, also take the bucket path where up to 400 pairs per 1000 fall "
     "outside their tile's window, if a tile's pairs fall into at most this many buckets on average (estimated "
     "from the sample; a mesh in mesh order); 0: never",
     128, 0, 8192},
    {"probe_every",
     "after 8 sorts in a row that fell back (input in no order), probe whether the bucket path pays again only "
     "every this many sorts instead of at each (the probe and the splitters it needs add a few microseconds to a "
     "sort on an H100: docs/results/run-bucket.md); 1: at each",
     8, 1, 64},
};

// The options of `run-bucket` (kRunBucketOptions), read once by the factory.
struct RunBucketOptions {
  int max_outside = 0;  // per 1000 samples
  int min_pairs_log2 = 0;
  bool span = false;
  int max_spread = 0;
  int max_runs = 0;
  int probe_every = 0;

  static RunBucketOptions from(const OptionValues& values) {
    RunBucketOptions o;
    o.max_outside = option_value(values, "max_outside");
    o.min_pairs_log2 = option_value(values, "min_pairs_log2");
    o.span = option_value(values, "span") != 0;
    o.max_spread = option_value(values, "max_spread");
    o.max_runs = option_value(values, "max_runs");
    o.probe_every = option_value(values, "probe_every");
    return o;
  }
  bool operator==(const RunBucketOptions&) const = default;
};

std::unique_ptr<Sorter> make_run_bucket_sorter(const OptionValues& options);

}  // namespace depthsort::run_bucket
