// run-bucket's splitter search (docs/algorithms/run-bucket.md; depthsort's own design): the bucket
// of an ordered key among the splitters, by a branch-free binary search (the plan, the probe) or
// by a table of the splitters below equal steps of the key range and a short search from there
// (the scatter, where the search was a third of its instructions).
//
// Bucket b holds the keys k with splitter[b-1] <= k < splitter[b] (splitter[-1] = -inf,
// splitter[count] = +inf), except that a key equal to a splitter that repeats goes to any of the
// buckets between the equal splitters (which hold nothing but that key), so that a heavy key value
// fills several buckets instead of one.
#pragma once

#include <cuda/std/bit>

#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort::run_bucket {

// The splitters are kept padded with 0xFFFFFFFF to searched_slots(count) entries, 2^steps - 1 for
// the fewest steps that cover count, so that every search of them takes those steps without a
// branch: 13 for 8192 buckets (16M pairs), 15 for 32768 (64M). The buffer holds kSplitterSlots.
inline constexpr int kSearchSteps = 15;
inline constexpr std::uint32_t kSplitterSlots = (1u << kSearchSteps) - 1;
DEPTHSORT_HD constexpr int search_steps(std::uint32_t count) { return static_cast<int>(cuda::std::bit_width(count)); }
DEPTHSORT_HD constexpr std::uint32_t searched_slots(std::uint32_t count) { return (1u << search_steps(count)) - 1; }

// The last `steps` (at most kMostSteps) steps of a branch-free binary search in `slots`, from
// `first`: the slots at most key with kAtMost (an upper bound), else below key (a lower bound).
template <bool kAtMost, int kMostSteps>
__device__ __forceinline__ std::uint32_t search_from(const std::uint32_t* slots, int steps, std::uint32_t first,
                                                     std::uint32_t key) {
#pragma unroll
  for (int step = kMostSteps - 1; step >= 0; --step) {
    if (step >= steps) continue;
    const std::uint32_t next = first + (1u << step);
    first = (kAtMost ? slots[next - 1] <= key : slots[next - 1] < key) ? next : first;
  }
  return first;
}
// Number of splitters among the first `count` that are below key (the lower bound) or, with
// kAtMost, at most key (the upper bound); the padding counts only for 0xFFFFFFFF, and not beyond
// count. The steps beyond those count needs are skipped by a test that is the same in every
// thread, where a fixed 15 steps would add two dependent loads to every search at 16M pairs.
template <bool kAtMost>
__device__ __forceinline__ std::uint32_t splitters_before(const std::uint32_t* s, std::uint32_t count,
                                                          std::uint32_t key) {
  return min(search_from<kAtMost, kSearchSteps>(s, search_steps(count), 0u, key), count);
}
__device__ __forceinline__ std::uint32_t splitters_below(const std::uint32_t* s, std::uint32_t count,
                                                         std::uint32_t key) {
  return splitters_before<false>(s, count, key);
}

// The first kTopSteps steps of a block's searches, from shared memory: the splitters they can
// read (those at 2^(steps - kTopSteps) * m - 1, m >= 1), copied by the block at once instead of
// waited for one step after the other. The plan's searches (13 steps at 16M pairs) were most of
// its warps' wait; its last steps stay in global memory.
inline constexpr int kTopSteps = 8;
inline constexpr std::uint32_t kTopSlots = (1u << kTopSteps) - 1;
// A search of count splitters split so: its first top_steps steps in shared memory, the
// last_steps after them in global memory.
struct TopFirstSearch {
  int top_steps;
  int last_steps;
};
DEPTHSORT_HD constexpr TopFirstSearch top_first_search(std::uint32_t count) {
  const int steps = search_steps(count);
  const int top_steps = steps < kTopSteps ? steps : kTopSteps;
  return {top_steps, steps - top_steps};
}
// Every thread of the block calls it, a barrier after it.
__device__ __forceinline__ void load_search_top(const std::uint32_t* __restrict__ s, std::uint32_t count,
                                                std::uint32_t* top) {
  const TopFirstSearch search = top_first_search(count);
  for (std::uint32_t m = threadIdx.x; m < (1u << search.top_steps) - 1; m += blockDim.x)
    top[m] = s[((m + 1) << search.last_steps) - 1];
}
// splitters_before, its first steps in `top` (load_search_top).
template <bool kAtMost>
__device__ __forceinline__ std::uint32_t splitters_before(const std::uint32_t* s, const std::uint32_t* top,
                                                          std::uint32_t count, std::uint32_t key) {
  const TopFirstSearch search = top_first_search(count);
  const std::uint32_t first = search_from<kAtMost, kTopSteps>(top, search.top_steps, 0u, key) << search.last_steps;
  return min(search_from<kAtMost, kSearchSteps - kTopSteps>(s, search.last_steps, first, key), count);
}

// The bucket of a key equal to the splitter s[above - 1]: where that splitter repeats, `spread`
// picks among the buckets between its copies (the tile's index: one tile's copies stay together,
// tiles take turns).
__device__ __noinline__ std::uint32_t bucket_among_equal_splitters(const std::uint32_t* s, std::uint32_t count,
                                                                   std::uint32_t key, std::uint32_t above,
                                                                   std::uint32_t spread) {
  const std::uint32_t below = splitters_below(s, count, key);
  const std::uint32_t copies = above - below;  // equal splitters: buckets below+1 .. above hold only key
  return copies < 2 ? above : below + 1 + spread % copies;
}

// bucket[j] holds the number of splitters at most key[j] (its bucket but for repeated splitters):
// moves the ones equal to a repeated splitter among its copies.
template <int kItems>
__device__ __forceinline__ void spread_over_equal_splitters(const std::uint32_t* s, std::uint32_t count,
                                                            const std::uint32_t (&key)[kItems], std::uint32_t spread,
                                                            std::uint32_t (&bucket)[kItems]) {
  std::uint32_t below_splitter[kItems];  // the largest splitter at most each key, or not the key
#pragma unroll
  for (int j = 0; j < kItems; ++j) below_splitter[j] = bucket[j] == 0 ? ~key[j] : s[bucket[j] - 1];
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    if (below_splitter[j] == key[j]) bucket[j] = bucket_among_equal_splitters(s, count, key[j], bucket[j], spread);
}

// The bucket of a key among count + 1 buckets, by a binary search over the padded splitters
// (its first steps in `top` where given: load_search_top).
__device__ __forceinline__ std::uint32_t bucket_of(const std::uint32_t* s, std::uint32_t count, std::uint32_t key,
                                                   std::uint32_t spread, const std::uint32_t* top = nullptr) {
  const std::uint32_t above = top ? splitters_before<true>(s, top, count, key) : splitters_before<true>(s, count, key);
  return above != 0 && s[above - 1] == key ? bucket_among_equal_splitters(s, count, key, above, spread) : above;
}

// The splitter table: the splitters' range [first, last] cut into kTableSlots steps of 2^shift key
// values (the smallest shift that covers it), and for each step's first key the number of
// splitters below it (entry kTableSlots: all of them). A key's bucket lies between the entries of
// its step and the next: with 8192 buckets over 65536 steps, usually no search at all or one step
// (at 32768 buckets, one or two).
inline constexpr int kTableLog2 = 16;
inline constexpr std::uint32_t kTableSlots = 1u << kTableLog2;
// The table's entries, then `first` and `shift`.
inline constexpr std::uint32_t kTableEntries = kTableSlots + 3;

// Entry i of the table (i <= kTableSlots); count >= 1 splitters, in order; the search's first
// steps in `top` (load_search_top).
__device__ __forceinline__ void fill_splitter_table_entry(const std::uint32_t* __restrict__ s, const std::uint32_t* top,
                                                          std::uint32_t count, std::uint32_t i,
                                                          std::uint32_t* __restrict__ table) {
  const std::uint32_t first = s[0], width = s[count - 1] - first;
  const std::uint32_t shift = width >> kTableLog2 == 0 ? 0u : 32 - kTableLog2 - __clz(width);
  const std::uint64_t step_first = std::uint64_t{first} + (std::uint64_t{i} << shift);
  table[i] = step_first > 0xFFFFFFFFull
                 ? count
                 : splitters_before<false>(s, top, count, static_cast<std::uint32_t>(step_first));
  if (i == 0) {
    table[kTableSlots + 1] = first;
    table[kTableSlots + 2] = shift;
  }
}

// The buckets of kItems keys, by the splitter table: each key's step, the two entries around it
// (all the loads of a thread's keys in flight together), then a binary search between them, round
// by round over the keys that still have a range left.
template <int kItems>
__device__ __forceinline__ void buckets_by_table(const std::uint32_t* s, std::uint32_t count,
                                                 const std::uint32_t* table, std::uint32_t first, std::uint32_t shift,
                                                 const std::uint32_t (&key)[kItems], std::uint32_t spread,
                                                 std::uint32_t (&bucket)[kItems]) {
  std::uint32_t low[kItems], high[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    // Keys below the first splitter take step 0, whose entry is 0 and whose search finds none.
    const std::uint32_t step = key[j] < first ? 0u : min((key[j] - first) >> shift, kTableSlots - 1);
    low[j] = table[step];
    high[j] = table[step + 1];
  }
  bool searching = true;
  while (searching) {
    searching = false;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (low[j] < high[j]) {
        const std::uint32_t middle = (low[j] + high[j]) / 2;
        if (s[middle] <= key[j])
          low[j] = middle + 1;
        else
          high[j] = middle;
        searching |= low[j] < high[j];
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kItems; ++j) bucket[j] = low[j];
  spread_over_equal_splitters(s, count, key, spread, bucket);
}

}  // namespace depthsort::run_bucket
