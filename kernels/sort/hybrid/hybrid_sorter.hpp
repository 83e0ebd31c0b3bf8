// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008):
// the registry entries `hybrid` (Sections 5.1 bucketsort + 4 vector-mergesort, Section 6) and
// `hybrid-quick` (Section 5.2 partial quicksort + the same vector-mergesort).
// See docs/algorithms/hybrid.md for the steps, the options and the deviations from the paper.
#pragma once

#include <memory>
#include <string>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort::hybrid {

inline constexpr OptionSpec kHybridOptions[] = {
    {"shuffle", "random shuffle of the pairs before the bucket pass (Section 5.1)", 0, 0, 1},
    {"buckets", "L, the number of buckets (0 = auto: about n/2816, so a bucket fits one block's shared memory)", 0, 0,
     1 << 18},
    {"histogram_bins", "H, bins of the pivot histogram (Section 5.1 'Optimizations')", 1024, 16, 16384},
    {"refinements", "pivot refinements: 1 = from the histogram, each more = count pass + refine (Fig. 5)", 1, 1, 4},
    {"atomic_count", "paper's Fig. 4/6: one global atomicInc per element, index stored, then reposition", 0, 0, 1},
    {"global_merge", "paper's Fig. 3 execution: global merge passes, one thread per pair of lists", 0, 0, 1},
    {"merge_outputs", "on-chip merge: outputs per thread and pass, 8 or 16 (0 = auto: 8 when few buckets)", 0, 0, 16},
    {"word_merge", "on-chip merge: sort (key - min, index) words where a chunk's key range allows", 1, 0, 1},
    {"splitter",
     "pivots from: 1 = a sorted sample of the keys (any key range), 0 = the paper's histogram (Section 5.1)", 1, 0, 1},
    {"oversample", "splitter=1: keys sampled per bucket", 64, 4, 1024},
};

inline constexpr OptionSpec kHybridQuickOptions[] = {
    {"shuffle", "random shuffle of the pairs before partitioning (Section 5.1)", 0, 0, 1},
    {"buckets", "number of sublists, rounded up to a power of two (0 = auto: about n/2816)", 0, 0, 1 << 16},
};

// The options of `hybrid` and `hybrid-coherent` (kHybridOptions), read once by the factory. The
// field defaults are what hybrid-quick runs with beside its own two options (the registry's
// defaults are the tables above).
struct HybridOptions {
  bool shuffle = false;
  int buckets = 0;  // L; 0: auto
  int histogram_bins = 1024;
  int refinements = 1;
  bool atomic_count = false;
  bool global_merge = false;
  int merge_outputs = 0;  // 0: auto, else 8 or 16
  bool word_merge = true;
  bool splitter = false;  // pivots from a sorted sample (true) or the paper's histogram
  int oversample = 64;

  static HybridOptions from(const OptionValues& values) {
    HybridOptions o;
    o.shuffle = option_value(values, "shuffle") != 0;
    o.buckets = option_value(values, "buckets");
    o.histogram_bins = option_value(values, "histogram_bins");
    o.refinements = option_value(values, "refinements");
    o.atomic_count = option_value(values, "atomic_count") != 0;
    o.global_merge = option_value(values, "global_merge") != 0;
    o.merge_outputs = option_value(values, "merge_outputs");
    if (o.merge_outputs != 0 && o.merge_outputs != 8 && o.merge_outputs != 16)
      throw OptionError("hybrid: option 'merge_outputs' must be 0 (auto), 8 or 16, got " +
                        std::to_string(o.merge_outputs));
    o.word_merge = option_value(values, "word_merge") != 0;
    o.splitter = option_value(values, "splitter") != 0;
    o.oversample = option_value(values, "oversample");
    return o;
  }
  bool operator==(const HybridOptions&) const = default;
};

// The options of `hybrid-quick` (kHybridQuickOptions).
struct HybridQuickOptions {
  bool shuffle = false;
  int buckets = 0;  // sublists; 0: auto

  static HybridQuickOptions from(const OptionValues& values) {
    HybridQuickOptions o;
    o.shuffle = option_value(values, "shuffle") != 0;
    o.buckets = option_value(values, "buckets");
    return o;
  }
  bool operator==(const HybridQuickOptions&) const = default;
};

std::unique_ptr<Sorter> make_hybrid_sorter(const OptionValues& options);
// `hybrid` with the pivots of the last sort of the same instance (frame coherence).
std::unique_ptr<Sorter> make_hybrid_coherent_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_hybrid_quick_sorter(const OptionValues& options);

}  // namespace depthsort::hybrid
