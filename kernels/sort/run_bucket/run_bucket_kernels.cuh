// run-bucket's shapes and the attempt's record (docs/algorithms/run-bucket.md; depthsort's own
// design): a sample sort for depth streams whose input order already follows the key order (a
// frame's keys listed in the last frame's order, a mesh's triangles in mesh order), so that a tile
// of consecutive input keys falls into a few consecutive buckets and leaves as a few long runs.
// This file holds what every step shares (the plan the steps leave
// for the host, the verdict, the plan's post) and the counts cleared for the next attempt;
// plan.cuh the sample, the plan, the probe and the splitters kept from an output; scatter.cuh the
// scatter; sort_buckets.cuh (with the bucket starts) and overflow.cuh the bucket sort.
//
// Keys are handled as ordered keys (keys.hpp); which bucket a key belongs to is said in
// splitter_search.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"
#include "sort/primitives/key_range.hpp"
#include "sort/primitives/pinned_mailbox.hpp"
#include "sort/run_bucket/policy.hpp"
#include "sort/run_bucket/splitter_search.cuh"

namespace depthsort::run_bucket {

static_assert(Policy::kTileItems % 4 == 0, "the scatter moves a thread's pairs 16 bytes at a time");
static_assert(Policy::kLargeSort.capacity() == Policy::kBucketCapacity &&
              Policy::kSmallSort.capacity() < Policy::kBucketCapacity);
static_assert(kSplitterSlots >= Policy::kMaxBuckets - 1);
static_assert(Policy::kSamplesPerTile == 16);

// What the plan and the scatter leave for the host (zeroed for the next attempt by the kept
// splitters' kernel, clear_attempt, or by the plan's last block where it calls the attempt off).
struct Plan {
  std::uint32_t outside_samples;      // samples outside their tile's window (plan_kernel)
  std::uint32_t spread_sum;           // the buckets each tile's samples span, summed over tiles (plan_kernel)
  std::uint32_t shared_buckets;       // ordered pairs of samples of one tile in one bucket, over tiles (plan_kernel)
  std::uint32_t hot_buckets;          // buckets with more samples than their room holds (plan_kernel)
  std::uint32_t excess_samples;       // the samples beyond that room, summed over those buckets (plan_kernel)
  std::uint32_t plan_blocks_done;     // plan_kernel's blocks that have counted
  std::uint32_t verdict;              // plan_kernel's last block: Verdict
  std::uint32_t spilled_pairs;        // pairs beyond their bucket's room, in the spill area (scatter_kernel)
  std::uint32_t overflow;             // the spill area or the list of overflowed buckets ran out: the fallback
  std::uint32_t overflowed_buckets;   // buckets beyond their room (small_bucket_sort_kernel)
  std::uint32_t large_buckets;        // buckets too large for the small sort shape (small_bucket_sort_kernel)
  primitives::KeyRange sample_range;  // the plan's sample's smallest and largest ordered key (plan_kernel)
  std::uint32_t listing_blocks_done;  // small_bucket_sort_kernel's blocks that have listed (the last posts)
};
// load_plan reads the plan word by word.
static_assert(sizeof(Plan) % sizeof(std::uint32_t) == 0 && alignof(Plan) == alignof(std::uint32_t));

// A bucket that receives more than kBucketCapacity pairs keeps that many in its region; the rest
// go to the spill area, and the bucket is sorted after the others with every other overflowed
// bucket (overflow.cuh). At most kMostOverflowedBuckets buckets overflow, and the spill area holds
// n/kSpillShare pairs: beyond either, the fallback (the plan judges the same from its sample).

// The plan's decision, taken on the device and posted to the host by the plan's last block. The
// scatter is queued before the host has it and returns at once unless it is kBucketPath; the host
// queues the rest of the bucket path, or the fallback, once it has the verdict, which it gets while
// the scatter runs.
enum Verdict : std::uint32_t {
  kBucketPath = 0,
  kIncoherent = 1,  // too many pairs far from their tile's window: the library sort
  kUnfit = 2,       // the last sort's splitters leave too many buckets, or pairs, beyond their room: the library sort
};

// Whether bucket b's keys, by its splitters alone, span fewer than kCountingSlots values: a bucket
// between two splitters holds keys in [s[b-1], s[b]), or only s[b-1] between equal splitters
// (splitter_search.cuh). The first and the last bucket are open-ended.
__device__ __forceinline__ bool counting_sorts(const std::uint32_t* s, std::uint32_t count, std::uint32_t b) {
  return b > 0 && b < count && s[b] - s[b - 1] <= Policy::kCountingSlots;
}

// The plan as every block has added to it, read word by word past the L1 cache (after a fence).
__device__ __forceinline__ Plan load_plan(const Plan* plan) {
  Plan outcome;
  const auto* from = reinterpret_cast<const std::uint32_t*>(plan);
  auto* to = reinterpret_cast<std::uint32_t*>(&outcome);
  for (std::size_t w = 0; w < sizeof(Plan) / sizeof(std::uint32_t); ++w) to[w] = __ldcg(from + w);
  return outcome;
}
__device__ __forceinline__ void post_plan(const Plan* plan, primitives::Posted<Plan>* posted, std::uint32_t sequence) {
  primitives::post_to_host(posted, load_plan(plan), sequence);
}

// What the next attempt counts in, zeroed after this one by the kernel that keeps the splitters
// from its output (keep_from_output_kernel): the bucket counts (buckets + 1 of them), the plan's
// samples per bucket and the plan. buckets = 0: nothing to zero (no attempt, or one that the plan
// called off, whose last block zeroed them).
struct AttemptToClear {
  std::uint32_t* cursors = nullptr;
  std::uint32_t* sample_counts = nullptr;
  std::uint32_t buckets = 0;
  Plan* plan = nullptr;
};

// Thread `i` of `threads` zeroes its share of what `clear` names, in place of three memsets.
__device__ __forceinline__ void clear_attempt(const AttemptToClear& clear, std::uint32_t i, std::uint32_t threads) {
  if (clear.buckets == 0) return;
  for (std::uint32_t b = i; b <= clear.buckets; b += threads) {
    clear.cursors[b] = 0;
    if (b < clear.buckets) clear.sample_counts[b] = 0;
  }
  if (i == 0) *clear.plan = Plan{};
}

}  // namespace depthsort::run_bucket
