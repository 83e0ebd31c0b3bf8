// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), the
// pivots of Section 5.1 taken another way (option splitter=1, the default; docs/algorithms/hybrid.md,
// deviation 12): instead of a histogram of bins linear between the smallest and largest key, which
// puts nearly every key in one bin when a few far keys set the range, the pivots are every k-th key
// of a sorted sample of the keys, as sample sorts take them (steps `sample` and `refine`). A bucket
// then holds about n/L keys whatever the key values are. A key that fills more than one bucket's
// share of the sample gets a bucket of its own, [v, v + 1), which the on-chip merge copies.
#pragma once

#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/hybrid/binning.cuh"
#include "sort/hybrid/config.cuh"
#include "sort/hybrid/hybrid_networks.hpp"
#include "sort/hybrid/shuffle.cuh"

namespace depthsort::hybrid {

// Step `sample`: s keys (ordered bits), key i drawn from the i-th of s equal strata of the input at
// a hashed offset (a regular sample would follow any period of the input). Needs s <= n.
__global__ void sample_keys_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t s, std::uint32_t seed,
                                   std::uint32_t* __restrict__ sample) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < s; i += gridDim.x * blockDim.x) {
    const unsigned long long lo = static_cast<unsigned long long>(i) * n / s;
    const unsigned long long hi = static_cast<unsigned long long>(i + 1) * n / s;
    const std::uint32_t pos = static_cast<std::uint32_t>(lo + Feistel::mix(i ^ seed) % (hi - lo));
    sample[i] = ordered_key(keys[pos]);
  }
}

// Step `refine` of the sample splitter (one block): pivot j of the L - 2 real buckets is the key of
// rank j * s / (L - 2) in the sorted sample; pivot 0 is 1 and pivot L - 2 the largest key, as
// Fig. 5's (reserved buckets, binning.cuh). The bins of the pivot search span the sample's smallest
// to largest key (keys outside fall in the end bins: the search stays exact, binning.cuh), written
// to ctrl for the count, then the pivot table.
__global__ void __launch_bounds__(Policy::kOneBlock)
    pivots_from_sample_kernel(const std::uint32_t* __restrict__ sorted, std::uint32_t s, Control* ctrl, int bins, int L,
                              std::uint32_t* pivots, std::uint32_t* table) {
  const std::uint32_t real_buckets = static_cast<std::uint32_t>(L - 2);
  auto splitter = [&](int j) { return sorted[static_cast<unsigned long long>(j) * s / real_buckets]; };
  write_pivots(L, pivots, [&](int j) {
    const std::uint32_t v = splitter(j);
    // The last of a run of equal splitters becomes v + 1: the run's keys v get bucket [v, v + 1)
    // (one key value: copied, never merged) instead of a bucket that also takes the keys above.
    const bool run_end = j > 1 && splitter(j - 1) == v && (j == L - 3 || splitter(j + 1) != v);
    return run_end && v < kSentinelHigh ? v + 1 : max(v, 1u);
  });
  Control range{};
  range.omin_c = ~sorted[0];
  range.omax = sorted[s - 1];
  if (threadIdx.x == 0) {
    ctrl->omin_c = range.omin_c;
    ctrl->omax = range.omax;
  }
  __syncthreads();
  build_pivot_table(pivots, L, make_binning(range, bins), table);
}

// hybrid-coherent, step `keep-splitters`: s keys of the sorted output at equal ranks
// (ordered bits, ascending because the output is), the sample the next sort takes its pivots from
// instead of sampling and sorting its own keys. Needs s <= n.
__global__ void keep_splitters_kernel(const float* __restrict__ sorted_keys, std::uint32_t n, std::uint32_t s,
                                      std::uint32_t* __restrict__ kept) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < s; i += gridDim.x * blockDim.x) {
    // The middle of the i-th of s equal strata: rank (2i + 1) n / 2s < n.
    const std::uint32_t rank = static_cast<std::uint32_t>((2ull * i + 1ull) * n / (2ull * s));
    kept[i] = ordered_key(sorted_keys[rank]);
  }
}

// hybrid-coherent, step `validate`: this frame's sample (the keys sample_keys_kernel would draw)
// counted into the buckets of the last frame's pivots: hits[b] += sampled keys in bucket b, an
// estimate of the bucket sizes at s/n of the cost of the count. hits (L words) zeroed first.
__global__ void sample_hits_kernel(const float* __restrict__ keys, std::uint32_t n, std::uint32_t s, std::uint32_t seed,
                                   BoundSearch bound, std::uint32_t* __restrict__ hits) {
  const auto bucket_of = bound.prepare();
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < s; i += gridDim.x * blockDim.x) {
    const unsigned long long lo = static_cast<unsigned long long>(i) * n / s;
    const unsigned long long hi = static_cast<unsigned long long>(i + 1) * n / s;
    const std::uint32_t pos = static_cast<std::uint32_t>(lo + Feistel::mix(i ^ seed) % (hi - lo));
    atomicAdd(hits + bucket_of(pos, ordered_key(keys[pos])), 1u);
  }
}

// hybrid-coherent, step `validate` (one block): verdict[0] += buckets of the real range (1 .. L-2)
// holding more than `limit`, verdict[1] = the largest of them. verdict zeroed first.
__global__ void __launch_bounds__(Policy::kOneBlock)
    bucket_overflow_kernel(const std::uint32_t* __restrict__ counts, int L, std::uint32_t limit,
                           std::uint32_t* verdict) {
  std::uint32_t over = 0, largest = 0;
  for (int b = 1 + static_cast<int>(threadIdx.x); b < L - 1; b += Policy::kOneBlock) {
    const std::uint32_t c = counts[b];
    over += c > limit;
    largest = max(largest, c);
  }
  if (over) atomicAdd(verdict, over);
  if (largest) atomicMax(verdict + 1, largest);
}

}  // namespace depthsort::hybrid
