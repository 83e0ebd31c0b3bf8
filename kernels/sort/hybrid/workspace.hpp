// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008): the
// workspace of `hybrid`, `hybrid-coherent` and `hybrid-quick`, one struct per step that owns
// buffers (docs/algorithms/hybrid.md, "Steps"). Reserved once for the largest n (hybrid_base.cuh)
// and reused by every sort.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/device_buffer.hpp"

namespace depthsort::hybrid {

// Step `shuffle` (Section 5.1): the shuffled copy of the input.
struct ShuffleBuffers {
  DeviceBuffer<float> keys;
  DeviceBuffer<std::uint32_t> values;
};

// Steps `sample` / `min/max`, `histogram`, `refine` (Section 5.1, Fig. 5): the pivots (and the
// spare set a further refinement writes), the pivot table, the refinement's cumulative counts, and
// the splitter sample with its sort's temporary storage.
struct PivotBuffers {
  DeviceBuffer<std::uint32_t> pivots, pivots2, table, cum, sample, sample_sorted;
  DeviceBuffer<unsigned char> sample_temp;
  std::size_t sample_temp_bytes = 0;
};

// hybrid-coherent, steps `validate` and `keep-splitters`: the splitters kept from the last sort
// (as many as the sample splitter draws) and the overflow verdict of the bucket sizes they give.
struct CoherentBuffers {
  DeviceBuffer<std::uint32_t> last_sample, overflow;
  std::uint32_t last_sample_size = 0;  // splitters kept by the last sort; 0: none yet
};

// Step `offsets`: each bucket's output position, its padded base (global_merge), the scatter's
// cursors and the padded offsets.
struct OffsetBuffers {
  DeviceBuffer<std::uint32_t> offset, base, cursor, poff;
};

// Step `reposition`, two-level (Fig. 6, bucketing.cuh): each pair's 16-bit bucket before and after
// the coarse pass, the coarse cursors and the fine pass's work list.
struct RepositionBuffers {
  DeviceBuffer<std::uint16_t> bucket16, moved16;
  DeviceBuffer<std::uint32_t> coarse_cursor;
  DeviceBuffer<uint2> fine_items;
};

// Steps `vector-merge` and `vector-merge-global` (Sections 4 and 6): the chunk work list, each
// chunk's key range, and the oversized buckets with their tiles.
struct MergeBuffers {
  DeviceBuffer<uint2> items, chunk_mm;
  DeviceBuffer<std::uint32_t> tile_start, ov_bucket, ov_tile_start;
};

// hybrid-quick's partition passes (Section 5.2): the sublist offsets of this pass and the next,
// and each sublist's pivot.
struct QuickBuffers {
  DeviceBuffer<std::uint32_t> qoff, qoff2, qpivot;
};

// The paper's execution (options atomic_count, global_merge): each key's sublist and index
// (Fig. 4), and the padded key and value arrays of the global merge passes (Fig. 3).
struct PaperBuffers {
  DeviceBuffer<std::uint32_t> sublist, index;
  DeviceBuffer<std::uint32_t> pkeys[2], pvalues[2];
};

}  // namespace depthsort::hybrid
