// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): the
// factories of `hybrid` (Section 5.1 bucketsort, then Section 4 vector-mergesort of every bucket,
// Section 6), `hybrid-coherent` (the same with the last sort's pivots) and `hybrid-quick` (Section
// 5.2 partial quicksort, then the same mergesort). Each reads its options once; the dispatchers
// are hybrid_base.cuh (the workspace, the shuffle and the mergesort they share) and one sequence
// each: hybrid_bucket.cuh, hybrid_coherent.cuh, hybrid_quick.cuh. Every step is named in the
// timings: shuffle, sample (default) or min/max + histogram, refine, count, offsets, reposition,
// vector-merge.
#include <memory>

#include "sort/hybrid/hybrid_bucket.cuh"
#include "sort/hybrid/hybrid_coherent.cuh"
#include "sort/hybrid/hybrid_quick.cuh"
#include "sort/hybrid/hybrid_sorter.hpp"

namespace depthsort::hybrid {

std::unique_ptr<Sorter> make_hybrid_sorter(const OptionValues& options) {
  return std::make_unique<HybridBucketSorter>(HybridOptions::from(options));
}
std::unique_ptr<Sorter> make_hybrid_coherent_sorter(const OptionValues& options) {
  return std::make_unique<HybridCoherentSorter>(HybridOptions::from(options));
}
std::unique_ptr<Sorter> make_hybrid_quick_sorter(const OptionValues& options) {
  return std::make_unique<HybridQuickSorter>(HybridQuickOptions::from(options));
}

}  // namespace depthsort::hybrid
