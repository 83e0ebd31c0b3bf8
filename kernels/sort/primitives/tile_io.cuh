// Tile loads for grid-stride passes over keys, shared by the sorters (first user: the hybrid
// sort's min/max, histogram and count passes, kernels/sort/hybrid/). Not from a paper: the
// standard way to keep a pass at memory speed, all of a thread's loads in flight before any use.
#pragma once

namespace depthsort::primitives {

// Grid-stride pass in tiles of kThreads x kItems elements: each thread issues its kItems loads
// before it uses any (so the pass runs at memory speed), then calls visit(i, key, valid) for every
// slot of its tile, also past n (valid false), as warp-wide operations in `visit` need.
template <int kThreads, int kItems, class Index, class Load, class Visit>
__device__ __forceinline__ void for_each_tile_key(Index n, Load&& load, Visit&& visit) {
  constexpr Index kTile = static_cast<Index>(kThreads) * kItems;
  const Index stride = static_cast<Index>(gridDim.x) * kTile;
  for (Index base = static_cast<Index>(blockIdx.x) * kTile; base < n; base += stride) {
    decltype(load(Index{})) key[kItems];
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const Index i = base + static_cast<Index>(q) * kThreads + threadIdx.x;
      key[q] = i < n ? load(i) : decltype(load(Index{})){};
    }
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const Index i = base + static_cast<Index>(q) * kThreads + threadIdx.x;
      visit(i, key[q], i < n);
    }
  }
}

}  // namespace depthsort::primitives
