// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section 6.1
// "Parallelizing using dual graphics cards", on N GPUs of one process through NCCL.
//
// The paper: one histogram pass, a pivot that halves the input, each card sorts the keys on its
// side with the hybrid sort. Here, for N GPUs (docs/algorithms/multi-gpu.md):
//   splitters   a key sample brackets each of the N-1 splitters; one pass over the keys counts them
//               below the brackets and copies the keys inside aside; three radix levels of those
//               keys refine the splitters to exact ranks, on the device (the counts summed by
//               ncclAllReduce where several GPUs hold pairs); each GPU's range is cut further into
//               `chunks` sub-ranges at quantiles of the same sample
//   partition   one pass: every pair read once and written into its sub-range's run; the one host
//               round trip (the count matrix the exchange is posted with) overlaps it
//   exchange    sub-range by sub-range: peer copies on the copy engines (no SMs taken from the
//               sorts), or grouped ncclSend/ncclRecv rounds on streams of their own
//   local sort  GPU j sorts sub-range k as soon as it has arrived, while the next one travels; the
//               sorted sub-ranges simply follow each other. cub-radix sorts only the bits the
//               sub-range's keys differ in (its bounds are known from the cuts)
//   gather      (the paper's case) each sorted sub-range goes back to GPU 0 as soon as it is sorted
// One process drives every GPU: one NCCL rank per GPU for the splitter collectives (on each GPU's
// main stream) and a second one for the NCCL exchange (on a high-priority stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/multi_gpu/multi_gpu_kernels.hpp"
#include "sort/multi_gpu/nccl_comms.hpp"
#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {

// The two cases: every pair on GPU 0 and the sorted output back there (the paper's), or each GPU
// holding its share and keeping one key range (the distributed sort).
enum class Case { Gathered, Distributed };

// The registry sorters each case uses unless Options::local_sorter says otherwise: the paper's
// hybrid for its own case, the fastest sort of the registry for the distributed one.
inline constexpr const char* kGatheredSorter = "hybrid";
inline constexpr const char* kDistributedSorter = "cub-radix";

// How pairs cross between GPUs. CopyEngines: cudaMemcpyPeerAsync on streams of their own, keys and
// values on two per pair of GPUs (DMA over NVLink; no SM is taken from the sorts running beside
// them; peer access enabled at construction).
// Nccl: grouped ncclSend/ncclRecv rounds (works between hosts too; its kernels take a few SMs, so
// round k+2 waits for the sorts of sub-range k). Auto: copy engines where every pair of GPUs has
// peer access, NCCL otherwise.
enum class Transport { Auto, CopyEngines, Nccl };
const char* transport_name(Transport transport);

struct Options {
  int levels = kLevels;          // histogram levels: 3 = exact splitters, 1 = the paper's one pass
  std::string local_sorter;      // registry name of each GPU's sorter, both cases; empty: the defaults above
  std::string local_options;     // its options, "name=value,..." (only with local_sorter)
  int chunks = 0;                // sub-ranges per GPU (1 .. kMaxChunks); 0: auto_chunks(n, gpus, case)
  double max_gpu0_share = 0.75;  // largest share sort_gathered may give GPU 0 (sizes its buffers)
  Transport transport = Transport::Auto;
  // cub-radix as the local sort (without options) sorts only the low bits in which the keys of a
  // sub-range may differ: its key bounds come from the splitters, the boundaries and the extremes
  // of the keys, so a sub-range inside one power of two takes three 8-bit passes, not four.
  bool cut_bits = true;
  // Keep each case's sorter once made (tests that switch cases every sort); false frees the other
  // case's workspace at a switch (the benchmark's 1G pairs would not fit both).
  bool keep_sorters = true;
};

// One GPU's pairs (device pointers on that GPU).
struct DevicePairs {
  const float* keys = nullptr;
  const std::uint32_t* values = nullptr;
  std::size_t n = 0;
};

// Milliseconds of each step of the last sort (CUDA events on each GPU's streams). The steps of the
// pipeline overlap, so they add up to more than `total`:
//   splitters, partition  the longest GPU's time
//   exchange              copy engines: from the end of a GPU's partition to the end of its last
//                         outbound copy, the longest GPU's; NCCL: the sum over the rounds of the
//                         longest GPU's round (the rounds that carry sub-ranges out)
//   gather                copy engines: from a GPU's last sort to the end of its last return copy,
//                         the longest (what the returns add after the sorts); NCCL: the return-only
//                         rounds at the end (earlier returns ride in the exchange rounds)
//   local sort            the busiest GPU's sum of its sub-range sorts
//   total                 GPU 0's events around the whole sort, after every GPU's last step
struct StepTimes {
  float splitters = 0, partition = 0, exchange = 0, local_sort = 0, gather = 0, total = 0;
};

class MultiGpuSorter {
 public:
  static constexpr int kSteps = 5;
  static constexpr const char* kStepNames[kSteps] = {"splitters", "partition", "exchange", "local sort", "gather"};

  // devices: CUDA device ordinals, rank i = devices[i] (1 to kMaxGpus of them). Throws OptionError
  // for a local sorter that is not a GPU sorter of the registry, or bad options.
  explicit MultiGpuSorter(std::span<const int> devices, Options options = {});
  ~MultiGpuSorter();
  MultiGpuSorter(const MultiGpuSorter&) = delete;
  MultiGpuSorter& operator=(const MultiGpuSorter&) = delete;

  int gpus() const noexcept { return comms_.size(); }
  int device(int rank) const { return comms_.device(rank); }
  cudaStream_t stream(int rank) const { return comms_.stream(rank); }
  const Options& options() const noexcept { return options_; }

  // Sizes every buffer for up to max_n pairs in all: GPU 0 may hold them all (the paper's case),
  // any other GPU up to ceil(max_n / gpus) (the distributed case); GPU 0's range up to
  // max_gpu0_share of them, the others' ceil(max_n / gpus) (max_n where levels < 3). Throws
  // CapacityError naming GPU and bytes. The sorters' workspaces are reserved by prepare().
  void reserve(std::size_t max_n);
  // Frees every buffer and sorter (capacity 0); reserve() again before sorting.
  void release();
  std::size_t capacity() const noexcept { return capacity_; }
  // Most pairs GPU `rank` may hold as input.
  std::size_t input_capacity(int rank) const;

  // Sub-ranges per GPU of the next sorts (0: auto_chunks). Throws OptionError outside 0..kMaxChunks.
  void set_chunks(int chunks);
  // The transport and the cut-bits local sort of the next sorts.
  void set_transport(Transport transport) { options_.transport = transport; }
  void set_cut_bits(bool cut_bits) { options_.cut_bits = cut_bits; }
  // Whether every pair of these GPUs has peer access (Transport::Auto then means copy engines).
  bool peer_access() const noexcept { return all_peers_; }
  // The registry sorter a case uses, and how it sorts ("cub-radix (cut bits)" where it sorts only
  // the bits the cuts leave free).
  std::string sorter_name(Case kase) const;
  std::string local_sort_label(Case kase) const;
  // Creates and reserves each GPU's sorter for `kase` (allocates: call before timing; the sorts
  // call it too, so a case's first sort pays its allocation).
  void prepare(Case kase);

  // The paper's case: `pairs` on GPU 0 (stream-ordered after stream(0)); sorted pairs written to
  // out_keys/out_values on GPU 0. Input untouched. Returns when the work is queued (it waits
  // once, for the counts); synchronize() before reading the output. gpu0_share = 0: equal ranges;
  // otherwise GPU 0 sorts that fraction of the pairs (1/gpus .. Options::max_gpu0_share) while the
  // other ranges travel, are sorted and come back: the weighted split.
  void sort_gathered(const DevicePairs& pairs, float* out_keys, std::uint32_t* out_values, double gpu0_share = 0);

  // The distributed case: inputs[r] on GPU r (stream-ordered after stream(r)). Afterwards GPU r
  // holds range r, sorted (range_keys/values/count), and every key of range r is <= every key of
  // range r+1 in the key order.
  void sort_distributed(std::span<const DevicePairs> inputs);
  const float* range_keys(int rank) const;
  const std::uint32_t* range_values(int rank) const;
  std::size_t range_count(int rank) const { return range_counts_.at(rank); }

  void synchronize() const;
  // Fills every range buffer with all-ones bits (a NaN key, a value no input has), for tests.
  void poison_ranges();

  // Of the last sort (last_times synchronizes): per-step times; sub-ranges per GPU; pairs sent
  // from GPU r to GPU j in the exchange (row-major, row = source); every pair that crossed
  // between GPUs, the returns of the paper's case included; bytes that crossed.
  StepTimes last_times();
  int last_chunks() const noexcept { return last_chunks_; }
  const std::vector<std::uint64_t>& last_counts() const noexcept { return counts_; }
  const std::vector<std::uint64_t>& last_transfers() const noexcept { return transfers_; }
  std::uint64_t last_bytes_between_gpus() const noexcept { return bytes_between_; }
  Transport last_transport() const noexcept { return last_transport_; }
  // Whether the last sort's splitter levels read only the bracketed keys (false: every key, where a
  // bracket missed its splitter or the candidates overflowed), and how many keys the brackets held.
  bool last_from_candidates() const noexcept { return from_candidates_; }
  std::uint64_t last_candidates() const noexcept { return candidates_; }

  // NCCL alone, on this sorter's buffers and exchange streams: one grouped ncclSend/ncclRecv of
  // pairs[r * gpus + j] pairs from GPU r to GPU j for every r != j (keys and values as two
  // messages, as the exchange sends them). Median milliseconds (the longest GPU's) over reps,
  // after a warm-up. Throws CapacityError where the buffers cannot hold the pattern.
  float time_nccl(std::span<const std::uint64_t> pairs, int reps);
  // The same pairs moved by the copy engines (cudaMemcpyPeerAsync, each GPU to each GPU on its two
  // streams, keys and values, all at once, as the sorts move them): median of the longest copy
  // stream's time.
  float time_copies(std::span<const std::uint64_t> pairs, int reps);

 private:
  struct Gpu;
  void sort_impl(std::span<const DevicePairs> inputs, float* gather_keys, std::uint32_t* gather_values,
                 double gpu0_share, Case kase);
  // The steps of sort_impl, on what they share (Run, sorter_state.hpp): the splitters and the
  // partition (sort_splitters.cpp), the one host round trip and where every run lies
  // (sort_counts.cpp), the exchange and the local sorts on either transport (sort_exchange.cpp).
  struct Run;
  void find_splitters(const Run& run, double gpu0_share);
  void partition(const Run& run);
  void read_counts(Run& run);
  void exchange_and_sort(Run& run, Transport transport);
  void ensure_sorter(int rank, const std::string& name);
  bool uses_cut_bits(const std::string& name) const;
  void record_stop();
  void check_probe(std::span<const std::uint64_t> pairs, std::vector<int>& ranks) const;
  // One pair run as two NCCL messages (keys, values) on the exchange's communicator; inside an
  // NcclGroupCall.
  void send_pairs(int from, const float* keys, const std::uint32_t* values, std::size_t count, int to);
  void recv_pairs(int at, float* keys, std::uint32_t* values, std::size_t count, int from);

  Options options_;
  NcclGroup comms_;                        // splitter collectives, on each GPU's main stream
  NcclGroup xcomms_;                       // the NCCL exchange, on each GPU's high-priority stream
  std::vector<std::unique_ptr<Gpu>> gpu_;  // one per rank
  bool all_peers_ = true;                  // every pair of GPUs has peer access
  std::size_t capacity_ = 0;
  // Of the last sort.
  std::vector<std::uint64_t> counts_, transfers_;  // gpus x gpus, row = source
  std::vector<std::size_t> range_counts_;
  std::uint64_t bytes_between_ = 0;
  int last_chunks_ = 1;
  bool direct_ = false;                        // one GPU, one range: sorted without a split
  std::vector<int> split_ranks_;               // GPUs that ran the splitter steps
  std::vector<std::vector<int>> group_ranks_;  // per NCCL round: the GPUs that took part
  int inbound_groups_ = 0;                     // rounds that carry sub-ranges out
  std::vector<std::vector<bool>> sorted_;      // [rank][sub-range]: sorted in the last sort
  Transport last_transport_ = Transport::CopyEngines;
  std::vector<std::vector<bool>> sent_;  // copy engines: [from][to] carried sub-ranges out
  std::vector<bool> returned_;           // copy engines: [rank] sent sorted sub-ranges back
  bool from_candidates_ = false;
  std::uint64_t candidates_ = 0;
};

}  // namespace depthsort::multi_gpu
