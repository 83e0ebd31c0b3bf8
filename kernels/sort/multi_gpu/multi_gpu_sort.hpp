// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section 6.1
// "Parallelizing using dual graphics cards", on N GPUs of one process through NCCL.
//
// The paper: one histogram pass, a pivot that halves the input, each card sorts the keys on its
// side with the hybrid sort. Here, for N GPUs (docs/algorithms/multi-gpu.md):
//   histogram   three radix levels of the ordered key refine N-1 splitters to exact ranks
//               (levels=1: the paper's single pass, pivots at bin edges, ranges roughly balanced);
//               with several GPUs holding data, each level's histogram is summed by ncclAllReduce
//   partition   every GPU that holds pairs finds each pair's range and writes one run per range
//   exchange    grouped ncclSend/ncclRecv: run j to GPU j (an all-to-all in the distributed case)
//   local sort  GPU j sorts its range with the registry's `hybrid` sorter
//   gather      (the paper's case) the sorted ranges go back to GPU 0, in order
// One process drives every GPU: one stream and one NCCL rank each (ncclCommInitAll).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/multi_gpu/multi_gpu_kernels.hpp"
#include "sort/multi_gpu/nccl_comms.hpp"
#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {

struct Options {
  int levels = kLevels;                  // histogram levels: 3 = exact splitters, 1 = the paper's one pass
  std::string local_sorter = "hybrid";   // registry name of each GPU's sorter
  std::string local_options;             // its options, "name=value,..."
  double max_gpu0_share = 0.75;          // largest share sort_gathered may give GPU 0 (sizes its buffers)
};

// One GPU's pairs (device pointers on that GPU).
struct DevicePairs {
  const float* keys = nullptr;
  const std::uint32_t* values = nullptr;
  std::size_t n = 0;
};

// Milliseconds of each step of the last sort: the longest GPU's time for the step (CUDA events on
// each GPU's stream; host round trips inside a step count in it). total: GPU 0's events around
// the whole sort, after every GPU's last step.
struct StepTimes {
  float histogram = 0, partition = 0, exchange = 0, local_sort = 0, gather = 0, total = 0;
};

class MultiGpuSorter {
 public:
  static constexpr int kSteps = 5;
  static constexpr const char* kStepNames[kSteps] = {"histogram", "partition", "exchange", "local sort", "gather"};

  // devices: CUDA device ordinals, rank i = devices[i] (1 to kMaxGpus of them).
  explicit MultiGpuSorter(std::span<const int> devices, Options options = {});
  ~MultiGpuSorter();
  MultiGpuSorter(const MultiGpuSorter&) = delete;
  MultiGpuSorter& operator=(const MultiGpuSorter&) = delete;

  int gpus() const noexcept { return comms_.size(); }
  int device(int rank) const { return comms_.device(rank); }
  cudaStream_t stream(int rank) const { return comms_.stream(rank); }
  const NcclGroup& comms() const noexcept { return comms_; }

  // Sizes every buffer for up to max_n pairs in all: GPU 0 may hold them all (the paper's case),
  // any other GPU up to ceil(max_n / gpus) (the distributed case); each range up to
  // ceil(max_n / gpus) (max_n where levels < 3). Throws CapacityError naming GPU and bytes.
  void reserve(std::size_t max_n);
  std::size_t capacity() const noexcept { return capacity_; }
  // Most pairs GPU `rank` may hold as input.
  std::size_t input_capacity(int rank) const;

  // The paper's case: `pairs` on GPU 0 (stream-ordered after stream(0)); sorted pairs written to
  // out_keys/out_values on GPU 0. Input untouched. Returns when the work is queued (it waits
  // for the GPUs between steps); synchronize() before reading the output.
  // gpu0_share = 0: equal ranges. Otherwise GPU 0 sorts that fraction of the pairs (at most
  // Options::max_gpu0_share) on a second stream while the other ranges travel, are sorted and
  // come back: the weighted split that balances GPU 0's sort against the others' round trips.
  void sort_gathered(const DevicePairs& pairs, float* out_keys, std::uint32_t* out_values, double gpu0_share = 0);

  // The distributed case: inputs[r] on GPU r (stream-ordered after stream(r)). Afterwards GPU r
  // holds range r, sorted (range_keys/values/count), and every key of range r is <= every key of
  // range r+1 in the key order.
  void sort_distributed(std::span<const DevicePairs> inputs);
  const float* range_keys(int rank) const;
  const std::uint32_t* range_values(int rank) const;
  std::size_t range_count(int rank) const { return range_counts_.at(rank); }

  void synchronize() const { comms_.synchronize(); }
  // Fills every range buffer with all-ones bits (a NaN key, a value no input has), for tests.
  void poison_ranges();

  // Of the last sort (synchronizes): per-step times; pairs sent from GPU r to GPU j (the
  // exchange's count matrix, row-major); bytes that crossed between GPUs (exchange + gather).
  StepTimes last_times();
  const std::vector<std::uint64_t>& last_counts() const noexcept { return counts_; }
  std::uint64_t last_bytes_between_gpus() const noexcept { return bytes_between_; }

  // NCCL alone, on this sorter's buffers: grouped ncclSend/ncclRecv of `pairs_per_peer` pairs
  // (keys and values as two messages, as the exchange sends them) from every GPU to every other
  // GPU, or from GPU 0 to every other GPU where `from_gpu0_only`. Median milliseconds over reps.
  float time_nccl_exchange(std::size_t pairs_per_peer, bool from_gpu0_only, int reps);

 private:
  struct Gpu;
  void sort_impl(std::span<const DevicePairs> inputs, float* gather_keys, std::uint32_t* gather_values);
  Splitters choose_splitters(std::span<const DevicePairs> inputs, std::uint64_t total, std::vector<TieBases>& bases);
  void record(int step, bool end, bool skip_gpu0 = false);
  void record_stop();
  // One pair run as two NCCL messages (keys, values); inside an NcclGroupCall.
  void send_pairs(int from, const float* keys, const std::uint32_t* values, std::size_t count, int to);
  void recv_pairs(int at, float* keys, std::uint32_t* values, std::size_t count, int from);

  Options options_;
  NcclGroup comms_;
  std::vector<std::unique_ptr<Gpu>> gpu_;  // one per rank
  std::size_t capacity_ = 0;
  std::vector<std::uint64_t> counts_;        // gpus x gpus, row = source
  std::vector<std::size_t> range_counts_;
  std::uint64_t bytes_between_ = 0;
  bool gathered_ = false;
  double gpu0_share_ = 0;
};

}  // namespace depthsort::multi_gpu
