// Once the splitters are known: tie bases, pairs and key bounds per range, where each run goes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/multi_gpu/splitter_state.hpp"

namespace depthsort::multi_gpu {

// Where the scatter writes each range of GPU `rank`: the ranges of other GPUs one after another in
// the send buffer, in range order; its own ranges straight into its stage buffer, each at the
// place the whole range (all GPUs' pairs) takes there, its own pairs first.
DEPTHSORT_MG_HD void scatter_offsets(const std::uint64_t* count, const std::uint64_t* size, int rank, int gpus,
                                     int chunks, std::uint64_t* offset) {
  std::uint64_t send = 0, stage = 0;
  for (int range = 0; range < gpus * chunks; ++range) {
    if (range / chunks == rank) {
      offset[range] = stage;
      stage += size[range];
    } else {
      offset[range] = send;
      send += count[range];
    }
  }
}

// Where sub-range k of GPU j starts in that GPU's stage (and output) buffer: after its earlier
// sub-ranges (sizes: every GPU's pairs per range).
DEPTHSORT_MG_HD std::uint64_t subrange_offset(const std::uint64_t* size, int chunks, int j, int k) {
  std::uint64_t at = 0;
  for (int q = 0; q < k; ++q) at += size[j * chunks + q];
  return at;
}

// Where GPU `from`'s pairs of sub-range k of GPU j land in GPU j's stage buffer: the sub-range's
// place, GPU j's own pairs first (the scatter puts them there), then the other GPUs' in rank order.
// counts: gpus x (gpus * chunks), row = source GPU.
DEPTHSORT_MG_HD std::uint64_t receive_offset(const std::uint64_t* count, const std::uint64_t* size, int gpus,
                                             int chunks, int j, int k, int from) {
  const int ranges = gpus * chunks, range = j * chunks + k;
  std::uint64_t at = subrange_offset(size, chunks, j, k) + count[static_cast<std::size_t>(j) * ranges + range];
  for (int q = 0; q < from; ++q)
    if (q != j) at += count[static_cast<std::size_t>(q) * ranges + range];
  return at;
}

// Once the splitters are known and every GPU's equal keys gathered (equal_all: gpus x
// kMaxSplitters, row = GPU; nullptr where this GPU holds every pair): the tie bases, then this
// GPU's pairs per range (count) and every GPU's (size), from the cuts' counts alone: keys below
// a cut form nested sets, so the keys of range (j, k) number min(hi cuts) - max(lo cuts).
DEPTHSORT_MG_HD void finish_counts(SplitState& st, const std::uint64_t* equal_all) {
  const SplitSetup& u = st.setup;
  Splitters& s = st.splitters;
  for (int d = 0; d < s.ties; ++d) {
    std::uint64_t base = 0;
    if (equal_all != nullptr)
      for (int q = 0; q < u.rank; ++q) base += equal_all[q * kMaxSplitters + d];
    st.bases.base[d] = base;
  }
  std::uint64_t cut_local[kMaxGpus + 1] = {}, cut_global[kMaxGpus + 1] = {};
  cut_local[u.gpus] = u.n_local;
  cut_global[u.gpus] = u.n_total;
  for (int j = 1; j < u.gpus; ++j) {
    const int sp = j - 1;
    std::uint64_t local = st.cut_below_local[sp];
    if (u.levels == kLevels && needs_tie_rank(s.take[sp])) {
      // This GPU's equal keys take tie ranks base .. base + equal - 1; those below take go down.
      const int d = tie_group(s, s.key[sp]);
      const std::uint64_t base = st.bases.base[d], equal = st.equal_local[d];
      local += s.take[sp] > base ? (s.take[sp] - base < equal ? s.take[sp] - base : equal) : 0;
    }
    cut_local[j] = local;
    cut_global[j] = st.cut_below_global[sp];
  }
  const int K = u.chunks;
  for (int j = 0; j < u.gpus; ++j)
    for (int k = 0; k < K; ++k) {
      const int range = j * K + k;
      std::uint64_t lo_l = cut_local[j], hi_l = cut_local[j + 1];
      std::uint64_t lo_g = cut_global[j], hi_g = cut_global[j + 1];
      if (k > 0) {
        const int b = j * (K - 1) + k - 1;
        lo_l = lo_l > st.boundary_below_local[b] ? lo_l : st.boundary_below_local[b];
        lo_g = lo_g > st.boundary_below_global[b] ? lo_g : st.boundary_below_global[b];
      }
      if (k < K - 1) {
        const int b = j * (K - 1) + k;
        hi_l = hi_l < st.boundary_below_local[b] ? hi_l : st.boundary_below_local[b];
        hi_g = hi_g < st.boundary_below_global[b] ? hi_g : st.boundary_below_global[b];
      }
      st.out.count[range] = hi_l > lo_l ? hi_l - lo_l : 0;
      st.out.size[range] = hi_g > lo_g ? hi_g - lo_g : 0;
      // Its keys: at or above splitter j-1's key (equal keys may pass it) and at or below splitter
      // j's, at or above its lower boundary and below its upper one, within the keys' extremes.
      std::uint32_t lo = j > 0 ? s.key[j - 1] : st.key_min, hi = j + 1 < u.gpus ? s.key[j] : st.key_max;
      if (k > 0 && st.boundary[j * (K - 1) + k - 1] > lo) lo = st.boundary[j * (K - 1) + k - 1];
      if (k < K - 1 && st.boundary[j * (K - 1) + k] < hi) hi = st.boundary[j * (K - 1) + k];
      st.out.lo[range] = lo > st.key_min ? lo : st.key_min;
      st.out.hi[range] = hi < st.key_max ? hi : st.key_max;
    }
  scatter_offsets(st.out.count, st.out.size, u.rank, u.gpus, K, st.offset);
}

}  // namespace depthsort::multi_gpu
