// depth-bucket's step `sample` (common.cuh has the design): the end buckets' splitters beside the
// inner ones the last order left, the search's table, and a sample of this frame's keys counted
// into their buckets. A bucket with far more of the sample than its share means the splitters no
// longer fit (a cut, a new scene): the frame is called off before the first pass.
#pragma once

#include "depth_bucket/common.cuh"

namespace depthsort::depth_bucket {

// Where sample i of `samples` looks: one place in each of `samples` equal strides, at an offset a
// hash of i draws (a fixed offset would see one phase of a periodic input, such as a mesh's rings).
__device__ __forceinline__ std::uint32_t sample_position(std::uint32_t i, std::uint32_t samples, std::uint32_t n) {
  const std::uint64_t begin = static_cast<std::uint64_t>(i) * n / samples;
  const std::uint64_t end = static_cast<std::uint64_t>(i + 1) * n / samples;
  std::uint32_t h = i * 0x9E3779B9u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  const std::uint64_t width = end > begin ? end - begin : 1;
  return static_cast<std::uint32_t>(begin + h % width);
}

inline constexpr int kSampleBlocks = 16;
inline constexpr int kSampleThreads = 256;
inline constexpr std::uint32_t kSamples = 8192;

// The end buckets' splitters (one warp): each side's kEndBuckets - 1 steps of the mean width of
// the 8 inner buckets at that end, away from the last order's smallest key and its largest plus
// one, clamped to the ordered keys' range.
__global__ void extend_splitters_kernel(Layout layout, std::uint32_t* splitters) {
  const std::uint32_t low = kEndBuckets - 1, high = kEndBuckets + layout.inner() - 1;
  const std::uint32_t t = threadIdx.x;
  if (t >= 2 * (kEndBuckets - 1)) return;
  const bool below = t < kEndBuckets - 1;
  const std::uint64_t k = below ? t + 1 : t - (kEndBuckets - 1) + 1;  // 1 .. kEndBuckets - 1
  if (below) {
    const std::uint64_t width = (splitters[low + 8] - splitters[low] + 7) / 8, step = width * k;
    const std::uint32_t at = splitters[low];
    splitters[low - k] = step >= at ? 0u : static_cast<std::uint32_t>(at - step);
  } else {
    const std::uint64_t width = (splitters[high] - splitters[high - 8] + 7) / 8;
    const std::uint64_t at = splitters[high] + width * k;
    splitters[high + k] = at > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(at);
  }
}

// kSampleBlocks blocks: each fills its share of the table and counts its share of the sample into
// `sample_counts` (zeroed); the last to finish takes the verdict, zeroes the counts for the next
// frame and clears what the scatter counts. A bucket with more than `most_in_bucket` samples is
// crowded; the splitters still fit where the crowded buckets are few enough to be sorted after
// the others and the pairs they are expected to hold beyond their regions fit half the spill
// area. So a frame whose keys moved (a cut) is handed back before the first pass, and a frame with
// one heavy depth that moved since the last (a particle fountain's emitter, where every particle
// born this frame is) keeps its own order at the price of one overflowed bucket.
__global__ void __launch_bounds__(kSampleThreads)
    sample_kernel(Records records, DepthPlane plane, Layout layout, const std::uint32_t* __restrict__ splitters,
                  std::uint16_t* __restrict__ table, std::uint32_t* __restrict__ sample_counts,
                  Control* __restrict__ control, std::uint32_t most_in_bucket) {
  const std::uint32_t splitter_count = layout.buckets - 1;
  const Table range = table_range(splitters, splitter_count);
  const std::uint32_t first = blockIdx.x * kSampleThreads + threadIdx.x, stride = gridDim.x * kSampleThreads;
  // Entry s: the splitters below the first key of step s (the last entry: every splitter).
  for (std::uint32_t s = first; s <= range.steps; s += stride)
    table[s] = static_cast<std::uint16_t>(
        s < range.steps ? splitters_below(splitters, splitter_count, range.low + (s << range.shift)) : splitter_count);
  bool repeats = false;
  for (std::uint32_t i = first + 1; i < splitter_count; i += stride) repeats |= splitters[i] == splitters[i - 1];
  if (repeats) control->table.repeats = 1;                    // cleared by the scatter's last block
  for (std::uint32_t i = first; i < kSamples; i += stride) {  // the search over every splitter
    const std::uint32_t id = sample_position(i, kSamples, layout.n);
    const std::uint32_t key = ordered_key(record_key(records, plane, id));
    atomicAdd(&sample_counts[bucket_between(key, id, splitters, 0, splitter_count)], 1u);
  }
  __shared__ bool s_last;
  __shared__ std::uint32_t s_crowded;
  __shared__ unsigned long long s_beyond;  // pairs expected beyond the crowded buckets' regions
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    s_last = atomicAdd(&control->samples_done, 1u) == gridDim.x - 1;
    s_crowded = 0;
    s_beyond = 0;
  }
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  for (std::uint32_t b = threadIdx.x; b < layout.buckets; b += kSampleThreads) {
    const std::uint32_t count = __ldcg(&sample_counts[b]);
    sample_counts[b] = 0;
    if (count <= most_in_bucket) continue;
    atomicAdd(&s_crowded, 1u);
    const std::uint64_t expected = static_cast<std::uint64_t>(count) * layout.n / kSamples;
    if (expected > layout.capacity) atomicAdd(&s_beyond, static_cast<unsigned long long>(expected - layout.capacity));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->table.low = range.low;
    control->table.shift = range.shift;
    control->table.steps = range.steps;
    const bool fits = s_crowded <= kMaxOverflowed / 2 && s_beyond <= layout.spill_capacity / 2;
    control->verdict = fits ? kFitted : kUnfit;
    control->samples_done = 0;
    control->tiles_done = 0;
    control->spilled = 0;
    control->overflowed = 0;
  }
}

}  // namespace depthsort::depth_bucket
