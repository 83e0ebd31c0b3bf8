// The one host round trip of a sort: the counts read back and checked, and where every run lies.
#include <cstddef>
#include <string>
#include <vector>

#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/sorter_state.hpp"

namespace depthsort::multi_gpu {

void MultiGpuSorter::read_counts(Run& run) {
  const std::span<const DevicePairs> inputs = run.inputs;
  const int N = run.N, K = run.K, R = run.R;
  const bool gathered = run.gathered;
  std::vector<std::uint64_t>& C = run.C;
  std::vector<std::uint64_t>& G = run.G;
  std::vector<std::uint32_t>& lo = run.lo;
  std::vector<std::uint32_t>& hi = run.hi;
  // ---- the one host round trip: the count matrix the exchange is posted with.
  C.assign(static_cast<std::size_t>(N) * R, 0);  // [source][range]
  G.assign(R, 0);                                // every GPU's pairs per range
  lo.assign(R, 0), hi.assign(R, 0);              // every range's key bounds
  auto count = [&](int r, int range) -> std::uint64_t& { return C[static_cast<std::size_t>(r) * R + range]; };
  {
    NvtxRange step("counts (host round trip)");
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(gpu_[r]->counts_ready.get()));
    }
    bool first = true;
    for (const int r : split_ranks_) {
      const RangeCounts& row = *gpu_[r]->readback.data();
      if (row.error != kErrorNone)
        throw Error("multi_gpu: GPU rank " + std::to_string(r) +
                    ": a splitter's rank lies outside the bin its histogram level chose (the levels' counts disagree)");
      for (int range = 0; range < R; ++range) {
        count(r, range) = row.count[range];
        if (first) {
          G[range] = row.size[range];
          lo[range] = row.lo[range];
          hi[range] = row.hi[range];
        } else if (G[range] != row.size[range] || lo[range] != row.lo[range] || hi[range] != row.hi[range]) {
          throw Error("multi_gpu: GPU rank " + std::to_string(r) + " sizes range " + std::to_string(range) + " at " +
                      std::to_string(row.size[range]) + " pairs, GPU rank " + std::to_string(split_ranks_.front()) +
                      " at " + std::to_string(G[range]) + " (or their key bounds differ)");
        }
      }
      if (first)
        from_candidates_ = row.from_candidates != 0;
      else if (from_candidates_ != (row.from_candidates != 0))
        throw Error("multi_gpu: the GPUs disagree on whether the splitter levels read the bracketed keys");
      candidates_ += row.candidates;
      first = false;
    }
    // A miscount here would post transfers that never match: stop with the numbers instead.
    for (int r = 0; r < N; ++r) {
      std::uint64_t placed = 0;
      for (int range = 0; range < R; ++range) placed += count(r, range);
      if (placed != inputs[r].n)
        throw Error("multi_gpu: GPU rank " + std::to_string(r) + " assigned " + std::to_string(placed) + " of its " +
                    std::to_string(inputs[r].n) + " pairs to ranges");
    }
    for (int range = 0; range < R; ++range) {
      std::uint64_t sum = 0;
      for (int r = 0; r < N; ++r) sum += count(r, range);
      if (sum != G[range])
        throw Error("multi_gpu: range " + std::to_string(range) + " gets " + std::to_string(sum) +
                    " pairs from the GPUs' counts, " + std::to_string(G[range]) + " by the global counts");
    }
    for (int j = 0; j < N; ++j) {
      for (int k = 0; k < K; ++k) range_counts_[j] += G[j * K + k];
      if (range_counts_[j] > gpu_[j]->stage_capacity)
        throw CapacityError("multi_gpu: range " + std::to_string(j) + " holds " + std::to_string(range_counts_[j]) +
                            " pairs, reserved for " + std::to_string(gpu_[j]->stage_capacity) + " (use levels=3)");
    }
  }
  // Where everything lies: sub-range k of GPU j at pos[j][k] of its stage (and of its output),
  // its own pairs first, then each other GPU's in rank order; GPU j's range at start[j] of the
  // gathered output.
  std::vector<std::vector<std::uint64_t>>& pos = run.pos;
  std::vector<std::uint64_t>& start = run.start;
  pos.assign(N, std::vector<std::uint64_t>(K, 0));
  start.assign(N + 1, 0);
  for (int j = 0; j < N; ++j) {
    for (int k = 0; k < K; ++k) pos[j][k] = subrange_offset(G.data(), K, j, k);
    start[j + 1] = start[j] + range_counts_[j];
  }
  // The same functions as the scatter's: where each run lies in its GPU's send buffer.
  std::vector<std::uint64_t>& send_at = run.send_at;
  send_at.assign(static_cast<std::size_t>(N) * R, 0);
  for (int r = 0; r < N; ++r)
    scatter_offsets(&C[static_cast<std::size_t>(r) * R], G.data(), r, N, K, &send_at[static_cast<std::size_t>(r) * R]);
  for (int r = 0; r < N; ++r)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k)
        if (r != j) counts_[static_cast<std::size_t>(r) * N + j] += count(r, j * K + k);
  transfers_ = counts_;
  if (gathered)
    for (int j = 1; j < N; ++j) transfers_[static_cast<std::size_t>(j) * N] += range_counts_[j];
  for (const std::uint64_t pairs : transfers_) bytes_between_ += pairs * (sizeof(float) + sizeof(std::uint32_t));
}

}  // namespace depthsort::multi_gpu
