// depth-bucket's step `overflowed buckets` (common.cuh has the design), and the splitters of an
// order made another way. The buckets beyond their room (listed by the scatter, ascending) hold
// their region's pairs and the spill area the rest: both gathered into one array, sorted together
// by CUB (the host knows their number from the scatter's verdict), and placed at their buckets'
// places in the draw order: the buckets partition the key order, so the sorted union is their
// concatenation in bucket order.
#pragma once

#include "depth_bucket/common.cuh"

namespace depthsort::depth_bucket {

// Block k < overflowed: bucket k's region; the blocks after them: the spill area, strided. Keys
// and ids apart, as CUB sorts them.
__global__ void gather_overflowed_kernel(Layout layout, const uint2* __restrict__ regions,
                                         const uint2* __restrict__ spill, const Control* __restrict__ control,
                                         std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ ids) {
  const std::uint32_t overflowed = control->overflowed;
  const bool spill_block = blockIdx.x >= overflowed;
  const uint2* from = spill_block ? spill : regions + control->overflowed_bucket[blockIdx.x] * layout.capacity;
  const std::uint32_t count = spill_block ? min(control->spilled, layout.spill_capacity) : layout.capacity;
  const std::uint32_t to = spill_block ? overflowed * layout.capacity : blockIdx.x * layout.capacity;
  const std::uint32_t first = spill_block ? (blockIdx.x - overflowed) * blockDim.x + threadIdx.x : threadIdx.x;
  const std::uint32_t stride = spill_block ? (gridDim.x - overflowed) * blockDim.x : blockDim.x;
  for (std::uint32_t i = first; i < count; i += stride) {
    const uint2 pair = from[i];
    keys[to + i] = pair.x;
    ids[to + i] = pair.y;
  }
}

// Pair i of the sorted union to its place in the draw order (and, at a splitter rank of the next
// frame, its key to the next splitters).
__global__ void place_overflowed_kernel(Layout layout, const std::uint32_t* __restrict__ keys,
                                        const std::uint32_t* __restrict__ ids, std::uint32_t pairs,
                                        const std::uint32_t* __restrict__ places, const Control* __restrict__ control,
                                        std::uint32_t* __restrict__ order, std::uint32_t* __restrict__ next_splitters) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  std::uint32_t k = 0;
  while (k + 1 < control->overflowed && control->overflowed_first[k + 1] <= i) ++k;
  const std::uint32_t rank = places[control->overflowed_bucket[k]] + (i - control->overflowed_first[k]);
  order[rank] = ids[i];
  const int splitter = splitter_at_rank(rank, layout);
  if (splitter >= 0) next_splitters[splitter] = keys[i];
  if (rank == 0) next_splitters[kEndBuckets - 1] = keys[i];
  if (rank + 1 == layout.n)
    next_splitters[kEndBuckets + layout.inner() - 1] = keys[i] == 0xFFFFFFFFu ? keys[i] : keys[i] + 1;
}

// The splitters from an order made another way (the plain path after a handed-back frame): the
// inner ones the sorted keys at ranks floor(j n / inner), the smallest and largest key around them.
__global__ void keep_splitters_kernel(const float* __restrict__ sorted_keys, Layout layout,
                                      std::uint32_t* __restrict__ splitters) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;  // 0: the smallest key; inner: the largest
  const std::uint32_t inner = layout.inner();
  if (j > inner) return;
  if (j == 0) {
    splitters[kEndBuckets - 1] = ordered_key(sorted_keys[0]);
  } else if (j == inner) {
    const std::uint32_t last = ordered_key(sorted_keys[layout.n - 1]);
    splitters[kEndBuckets + inner - 1] = last == 0xFFFFFFFFu ? last : last + 1;
  } else {
    const std::uint64_t rank = static_cast<std::uint64_t>(j) * layout.n / inner;
    splitters[kEndBuckets + j - 1] = ordered_key(sorted_keys[rank]);
  }
}

}  // namespace depthsort::depth_bucket
