// Sintorn & Assarsson (JPDC 2008), Section 6.1 "Parallelizing using dual graphics cards", on N GPUs:
// the host sequence of both cases (see multi_gpu_sort.hpp and docs/algorithms/multi-gpu.md), and
// depthsort's pipeline of sub-ranges around it.
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/registry.hpp"  // the local sorts are registry entries
#include "sort/core/signed_zero_fixup.hpp"
#include "sort/primitives/key_range.hpp"

namespace depthsort::multi_gpu {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Counters zeroed before each scatter: the tie counters, then the cursors of the ranges' runs.
constexpr std::size_t kTiesAt = 0;
constexpr std::size_t kCursorsAt = kMaxSplitters;
constexpr std::size_t kCounterWords = kMaxSplitters + kMaxRanges;
// NCCL rounds of one sort: one per sub-range, and in the paper's case up to two return-only rounds.
constexpr int kMaxGroups = kMaxChunks + 2;
// Copy streams from one GPU to another: keys on lane 0, values on lane 1, so that two copy engines
// carry each pair of GPUs' pairs at once (one engine alone may not fill the link).
constexpr int kLanes = 2;

float elapsed_ms(const CudaEvent& start, const CudaEvent& stop) {
  float ms = 0;
  DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

const SorterInfo& gpu_sorter_info(const std::string& name) {
  const SorterInfo* info = find_sorter(name);
  if (!info || info->backend != Backend::Gpu) {
    std::string gpu_names;
    for (const SorterInfo& candidate : sorter_registry())
      if (candidate.backend == Backend::Gpu) gpu_names += (gpu_names.empty() ? "" : ", ") + std::string(candidate.name);
    throw OptionError("multi_gpu: local sorter '" + name + "' is " +
                      (info ? "a CPU sorter" : "not in the registry") + "; GPU sorters: " + gpu_names);
  }
  return *info;
}

// cub-radix as the local sort of a sub-range whose keys lie in [lo, hi]: CUB's radix sort of only
// the low bits in which such keys may differ (every key shares the bits above them, so the stable
// sort of the low bits leaves the order the full sort leaves), then, where the bits are all 32,
// the signed-zero fixup cub-radix ends with (no narrower range holds both -0.0 and +0.0).
class RangeBitsSort {
 public:
  RangeBitsSort(std::size_t max_n, const std::string& owner) : capacity_(max_n) {
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(sort_pairs_bits(nullptr, bytes, SortBuffers{.n = std::max<std::size_t>(max_n, 1)}, 32, nullptr));
    temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), owner);
    zero_fixup_ = SignedZeroFixup(std::max<std::size_t>(max_n, 1), owner);
  }
  std::size_t capacity() const noexcept { return capacity_; }

  void sort(const SortBuffers& b, std::uint32_t lo, std::uint32_t hi, cudaStream_t stream) {
    if (b.n == 0) return;
    if (b.n > capacity_)
      throw CapacityError("multi_gpu: cub-radix (cut bits): " + std::to_string(b.n) + " pairs, reserved for " +
                          std::to_string(capacity_));
    const int bits = lo > hi ? 32 : primitives::KeyRange{~lo, hi}.cub_differing_bits();
    if (bits == 0) {  // every key the same bits: the order they came in is sorted
      primitives::copy_pairs_in_order(b, stream);
      return;
    }
    std::size_t bytes = temp_.bytes();
    if (bits <= primitives::kMostBitsThatSaveAPass) {
      DEPTHSORT_CUDA_CHECK(sort_pairs_bits(temp_.data(), bytes, b, bits, stream));
      return;
    }
    DEPTHSORT_CUDA_CHECK(sort_pairs_bits(temp_.data(), bytes, b, 32, stream));
    zero_fixup_.run(b.keys_out, b.values_out, b.n, stream);
  }

 private:
  std::size_t capacity_ = 0;
  DeviceBuffer<unsigned char> temp_;
  SignedZeroFixup zero_fixup_;
};

}  // namespace

const char* transport_name(Transport transport) {
  switch (transport) {
    case Transport::Auto: return "auto";
    case Transport::CopyEngines: return "copy engines";
    case Transport::Nccl: return "NCCL";
  }
  return "?";
}

struct MultiGpuSorter::Gpu {
  int device = 0;
  KernelShape shape;
  std::size_t input_capacity = 0;  // pairs this GPU may hold as input (and send: its runs for others)
  std::size_t stage_capacity = 0;  // pairs of its range: its own runs and the received ones
  DeviceBuffer<float> send_keys, stage_keys, out_keys;
  DeviceBuffer<std::uint32_t> send_values, stage_values, out_values;
  DeviceBuffer<unsigned long long> hist_local, hist_global, counters, equal_all, cut_local, cut_global;
  DeviceBuffer<unsigned int> extremes, segment_counts;
  DeviceBuffer<std::uint32_t> candidates;  // the cut pass's bracketed keys, `segment` slots a block
  DeviceBuffer<SplitState> state;
  DeviceBuffer<std::uint32_t> sample, sample_all, sample_sorted;
  DeviceBuffer<unsigned char> sample_temp;
  PinnedBuffer<RangeCounts> readback{1};
  // The local sorters made so far (by registry name), the cut-bits sort, and what the current case uses.
  std::vector<std::pair<std::string, std::unique_ptr<Sorter>>> sorters;
  std::unique_ptr<RangeBitsSort> bits_sort;
  Sorter* sorter = nullptr;
  bool use_bits = false;
  // Copy streams: to[q][lane] carries this GPU's keys (lane 0) or values (lane 1) to GPU rank q.
  CudaStream to[kMaxGpus][kLanes];
  CudaEvent split_start, split_end, scatter_end, total_start, total_stop, probe_start, probe_end;
  CudaEvent sort_start[kMaxChunks], sort_end[kMaxChunks];
  CudaEvent round_start[kMaxGroups], round_end[kMaxGroups];
  // Copy engines, each lane: sub-range k copied to GPU q; the end of the last copy out to q and of
  // the last sorted sub-range back to GPU 0; the probe's copies.
  CudaEvent copied[kMaxGpus][kMaxChunks][kLanes], out_end[kMaxGpus][kLanes], back_end[kLanes];
  CudaEvent copy_probe_start[kMaxGpus][kLanes], copy_probe_end[kMaxGpus][kLanes];
  CudaEvent counts_ready{cudaEventDisableTiming}, ready{cudaEventDisableTiming}, done{cudaEventDisableTiming},
      exchanged{cudaEventDisableTiming};
  CudaEvent joined[kMaxGpus][kLanes];
};

MultiGpuSorter::MultiGpuSorter(std::span<const int> devices, Options options)
    : options_(std::move(options)), comms_(devices), xcomms_(devices, StreamPriority::Highest) {
  if (gpus() > kMaxGpus) throw Error("multi_gpu: at most " + std::to_string(kMaxGpus) + " GPUs");
  if (options_.levels < 1 || options_.levels > kLevels) throw OptionError("multi_gpu: levels must be 1, 2 or 3");
  set_chunks(options_.chunks);
  if (!(options_.max_gpu0_share >= 0 && options_.max_gpu0_share < 1))
    throw OptionError("multi_gpu: max_gpu0_share must be in [0, 1)");
  // Unknown names and bad options are refused here, before any buffer exists.
  if (options_.local_sorter.empty()) {
    if (!options_.local_options.empty())
      throw OptionError("multi_gpu: local sorter options '" + options_.local_options + "' given without a local sorter");
    (void)gpu_sorter_info(kGatheredSorter);
    (void)gpu_sorter_info(kDistributedSorter);
  } else {
    (void)parse_options(gpu_sorter_info(options_.local_sorter), options_.local_options);
  }
  const std::size_t sample_words = static_cast<std::size_t>(gpus()) * kSampleTotal;
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    auto gpu = std::make_unique<Gpu>();
    gpu->device = device(r);
    gpu->shape = kernel_shape();
    const std::string owner = "multi_gpu (GPU " + std::to_string(gpu->device) + ")";
    gpu->hist_local = DeviceBuffer<unsigned long long>(kHistogramWords, owner);
    gpu->hist_global = DeviceBuffer<unsigned long long>(kHistogramWords, owner);
    gpu->cut_local = DeviceBuffer<unsigned long long>(kCutWords, owner);
    gpu->cut_global = DeviceBuffer<unsigned long long>(kCutWords, owner);
    gpu->extremes = DeviceBuffer<unsigned int>(2, owner);
    gpu->segment_counts = DeviceBuffer<unsigned int>(static_cast<std::size_t>(gpu->shape.cut_grid), owner);
    gpu->counters = DeviceBuffer<unsigned long long>(kCounterWords, owner);
    gpu->equal_all = DeviceBuffer<unsigned long long>(static_cast<std::size_t>(kMaxGpus) * kMaxSplitters, owner);
    gpu->state = DeviceBuffer<SplitState>(1, owner);
    gpu->sample = DeviceBuffer<std::uint32_t>(kSampleTotal, owner);
    gpu->sample_all = DeviceBuffer<std::uint32_t>(sample_words, owner);
    gpu->sample_sorted = DeviceBuffer<std::uint32_t>(sample_words, owner);
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(sort_sample(nullptr, bytes, gpu->sample_all.data(), gpu->sample_sorted.data(),
                                     static_cast<int>(sample_words), nullptr));
    gpu->sample_temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), owner);
    gpu_.push_back(std::move(gpu));
  }
  // Peer access both ways between every pair that has it: the copy engines then move pairs over
  // NVLink directly (without it a peer copy is staged through the host).
  for (int r = 0; r < gpus(); ++r)
    for (int q = 0; q < gpus(); ++q) {
      if (q == r) continue;
      int can = 0;
      DEPTHSORT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device(r), device(q)));
      if (!can) {
        all_peers_ = false;
        continue;
      }
      DeviceScope scope(device(r));
      const cudaError_t status = cudaDeviceEnablePeerAccess(device(q), 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();  // enabled before: fine
      else DEPTHSORT_CUDA_CHECK(status);
    }
  range_counts_.assign(gpus(), 0);
  counts_.assign(static_cast<std::size_t>(gpus()) * gpus(), 0);
  transfers_ = counts_;
  sent_.assign(gpus(), std::vector<bool>(gpus(), false));
  returned_.assign(gpus(), false);
}

MultiGpuSorter::~MultiGpuSorter() {
  // Buffers, events and sorters belong to their GPU: free them with it current, once its work ends.
  for (int r = 0; r < static_cast<int>(gpu_.size()); ++r) {
    if (!gpu_[r]) continue;
    cudaSetDevice(gpu_[r]->device);
    cudaDeviceSynchronize();
    gpu_[r].reset();
  }
}

void MultiGpuSorter::set_chunks(int chunks) {
  if (chunks < 0 || chunks > kMaxChunks)
    throw OptionError("multi_gpu: chunks must be 0 (auto) or 1.." + std::to_string(kMaxChunks) + ", got " +
                      std::to_string(chunks));
  options_.chunks = chunks;
}

std::string MultiGpuSorter::sorter_name(Case kase) const {
  if (!options_.local_sorter.empty()) return options_.local_sorter;
  return kase == Case::Gathered ? kGatheredSorter : kDistributedSorter;
}

bool MultiGpuSorter::uses_cut_bits(const std::string& name) const {
  return options_.cut_bits && name == "cub-radix" && (name != options_.local_sorter || options_.local_options.empty());
}

std::string MultiGpuSorter::local_sort_label(Case kase) const {
  const std::string name = sorter_name(kase);
  return uses_cut_bits(name) ? name + " (cut bits)" : name;
}

void MultiGpuSorter::ensure_sorter(int rank, const std::string& name) {
  Gpu& g = *gpu_[rank];
  DeviceScope scope(g.device);
  const bool bits = uses_cut_bits(name);
  auto same = [&](const auto& entry) { return !bits && entry.first == name; };
  const bool others = std::any_of(g.sorters.begin(), g.sorters.end(), [&](const auto& e) { return !same(e); }) ||
                      (!bits && g.bits_sort);
  if (!options_.keep_sorters && others) {
    // The other workspaces go first, so a switch never needs two (their sorts may still run).
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream(rank)));
    std::erase_if(g.sorters, [&](const auto& entry) { return !same(entry); });
    if (!bits) g.bits_sort.reset();
  }
  g.use_bits = bits;
  g.sorter = nullptr;
  if (bits) {
    if (!g.bits_sort || g.stage_capacity > g.bits_sort->capacity()) {
      g.bits_sort.reset();
      g.bits_sort = std::make_unique<RangeBitsSort>(g.stage_capacity, "multi_gpu cub-radix (cut bits)");
    }
    return;
  }
  auto found = std::find_if(g.sorters.begin(), g.sorters.end(), same);
  if (found == g.sorters.end()) {
    const SorterInfo& info = gpu_sorter_info(name);
    g.sorters.emplace_back(name, info.create(parse_options(info, name == options_.local_sorter ? options_.local_options : "")));
    found = g.sorters.end() - 1;
  }
  g.sorter = found->second.get();
  if (g.stage_capacity > g.sorter->capacity()) g.sorter->reserve(g.stage_capacity);
}

void MultiGpuSorter::prepare(Case kase) {
  const std::string name = sorter_name(kase);
  for (int r = 0; r < gpus(); ++r) ensure_sorter(r, name);
}

const float* MultiGpuSorter::range_keys(int rank) const { return gpu_.at(rank)->out_keys.data(); }
const std::uint32_t* MultiGpuSorter::range_values(int rank) const { return gpu_.at(rank)->out_values.data(); }

void MultiGpuSorter::synchronize() const {
  comms_.synchronize();
  xcomms_.synchronize();
}

void MultiGpuSorter::poison_ranges() {
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    Gpu& g = *gpu_[r];
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.out_keys.data(), 0xFF, g.out_keys.bytes(), stream(r)));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.out_values.data(), 0xFF, g.out_values.bytes(), stream(r)));
  }
}

std::size_t MultiGpuSorter::input_capacity(int rank) const { return gpu_.at(rank)->input_capacity; }

void MultiGpuSorter::release() {
  synchronize();
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    Gpu& g = *gpu_[r];
    g.send_keys = {}, g.stage_keys = {}, g.out_keys = {};
    g.send_values = {}, g.stage_values = {}, g.out_values = {};
    g.candidates = {};
    g.sorter = nullptr;
    g.sorters.clear();
    g.bits_sort.reset();
    g.input_capacity = g.stage_capacity = 0;
  }
  capacity_ = 0;
}

void MultiGpuSorter::reserve(std::size_t max_n) {
  if (max_n > Sorter::kMaxPairs)
    throw CapacityError("multi_gpu: at most " + std::to_string(Sorter::kMaxPairs) + " pairs in all (32-bit counts per GPU)");
  const int N = gpus();
  const std::size_t share = ceil_div(max_n, N);
  synchronize();
  for (int r = 0; r < N; ++r) {
    // GPU 0 may take up to max_gpu0_share of the pairs in the weighted paper's case.
    const std::size_t gpu0_range = std::min(
        max_n, std::max(share, static_cast<std::size_t>(std::ceil(options_.max_gpu0_share * static_cast<double>(max_n)))));
    const std::size_t stage_capacity = options_.levels != kLevels ? max_n : r == 0 ? gpu0_range : share;
    DeviceScope scope(device(r));
    Gpu& g = *gpu_[r];
    const std::string owner = "multi_gpu (GPU " + std::to_string(g.device) + ")";
    // The old buffers go first, so a larger reservation never needs both.
    g.send_keys = {}, g.stage_keys = {}, g.out_keys = {};
    g.send_values = {}, g.stage_values = {}, g.out_values = {};
    g.candidates = {};
    g.input_capacity = r == 0 ? max_n : share;
    g.stage_capacity = stage_capacity;
    g.candidates = DeviceBuffer<std::uint32_t>(candidate_capacity(g.input_capacity, N), owner);
    if (N > 1) {
      g.send_keys = DeviceBuffer<float>(g.input_capacity, owner);
      g.send_values = DeviceBuffer<std::uint32_t>(g.input_capacity, owner);
    }
    g.stage_keys = DeviceBuffer<float>(stage_capacity, owner);
    g.stage_values = DeviceBuffer<std::uint32_t>(stage_capacity, owner);
    g.out_keys = DeviceBuffer<float>(stage_capacity, owner);
    g.out_values = DeviceBuffer<std::uint32_t>(stage_capacity, owner);
    for (auto& [name, sorter] : g.sorters)
      if (g.stage_capacity > sorter->capacity()) sorter->reserve(g.stage_capacity);
    if (g.bits_sort && g.stage_capacity > g.bits_sort->capacity()) {
      g.bits_sort.reset();
      g.bits_sort = std::make_unique<RangeBitsSort>(g.stage_capacity, "multi_gpu cub-radix (cut bits)");
    }
  }
  capacity_ = max_n;
}

void MultiGpuSorter::sort_gathered(const DevicePairs& pairs, float* out_keys, std::uint32_t* out_values,
                                   double gpu0_share) {
  const int N = gpus();
  if (gpu0_share != 0 && N > 1 &&
      !(gpu0_share >= 1.0 / N && gpu0_share <= options_.max_gpu0_share))
    throw OptionError("multi_gpu: GPU 0's share " + std::to_string(gpu0_share) + " is outside [1/" + std::to_string(N) +
                      ", " + std::to_string(options_.max_gpu0_share) + "] (Options::max_gpu0_share)");
  std::vector<DevicePairs> inputs(N);
  inputs[0] = pairs;
  sort_impl(inputs, out_keys, out_values, N > 1 ? gpu0_share : 0.0, Case::Gathered);
}

void MultiGpuSorter::sort_distributed(std::span<const DevicePairs> inputs) {
  sort_impl(inputs, nullptr, nullptr, 0.0, Case::Distributed);
}

void MultiGpuSorter::sort_impl(std::span<const DevicePairs> inputs, float* gather_keys,
                               std::uint32_t* gather_values, double gpu0_share, Case kase) {
  const int N = gpus();
  if (static_cast<int>(inputs.size()) != N)
    throw Error("multi_gpu: " + std::to_string(inputs.size()) + " inputs for " + std::to_string(N) + " GPUs");
  std::uint64_t total = 0;
  for (int r = 0; r < N; ++r) {
    if (inputs[r].n > input_capacity(r))
      throw CapacityError("multi_gpu: GPU rank " + std::to_string(r) + " holds " + std::to_string(inputs[r].n) +
                          " pairs, reserved for " + std::to_string(input_capacity(r)));
    total += inputs[r].n;
  }
  if (total > capacity_)
    throw CapacityError("multi_gpu: " + std::to_string(total) + " pairs, reserved for " + std::to_string(capacity_));
  const bool gathered = kase == Case::Gathered;
  if (gathered && total > 0 && (gather_keys == nullptr || gather_values == nullptr))
    throw Error("multi_gpu: the paper's case needs output buffers");
  prepare(kase);
  NvtxRange range(gathered ? "multi-gpu sort (gathered)" : "multi-gpu sort (distributed)");

  // What the last sort leaves for last_times() and the reports.
  std::fill(counts_.begin(), counts_.end(), 0);
  std::fill(transfers_.begin(), transfers_.end(), 0);
  std::fill(range_counts_.begin(), range_counts_.end(), 0);
  bytes_between_ = 0;
  direct_ = false;
  split_ranks_.clear();
  group_ranks_.clear();
  inbound_groups_ = 0;
  from_candidates_ = false;
  candidates_ = 0;
  const Transport transport = options_.transport != Transport::Auto ? options_.transport
                              : all_peers_                          ? Transport::CopyEngines
                                                                    : Transport::Nccl;
  last_transport_ = transport;
  for (auto& row : sent_) std::fill(row.begin(), row.end(), false);
  std::fill(returned_.begin(), returned_.end(), false);
  const int K = options_.chunks > 0 ? options_.chunks : auto_chunks(total, N, gathered);
  last_chunks_ = K;
  sorted_.assign(N, std::vector<bool>(K, false));

  for (int r = 0; r < N; ++r) {
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->total_start.get(), stream(r)));
  }
  if (total == 0) {
    record_stop();
    return;
  }

  // One GPU and one range: the local sort alone, no split.
  if (N == 1 && K == 1) {
    NvtxRange step(kStepNames[3]);
    Gpu& g = *gpu_[0];
    DeviceScope scope(g.device);
    direct_ = true;
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.sort_start[0].get(), stream(0)));
    const SortBuffers buffers{inputs[0].keys, inputs[0].values, gathered ? gather_keys : g.out_keys.data(),
                              gathered ? gather_values : g.out_values.data(), inputs[0].n};
    if (g.use_bits) g.bits_sort->sort(buffers, 0u, 0xFFFFFFFFu, stream(0));
    else g.sorter->sort(buffers, stream(0));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.sort_end[0].get(), stream(0)));
    sorted_[0][0] = true;
    range_counts_[0] = inputs[0].n;
    record_stop();
    return;
  }

  // ---- splitters: everything on the device, no host round trip until the counts.
  std::vector<int> holders;
  for (int r = 0; r < N; ++r)
    if (inputs[r].n > 0) holders.push_back(r);
  // With one GPU holding every pair (the paper's case) its own counts are the global ones and no
  // collective runs; otherwise every GPU takes part in each (the empty ones with zeros).
  const bool reduce = holders.size() > 1;
  if (reduce) {
    split_ranks_.resize(N);
    std::iota(split_ranks_.begin(), split_ranks_.end(), 0);
  } else {
    split_ranks_ = holders;
  }
  const std::vector<std::uint64_t> targets = split_targets(total, N, gathered ? gpu0_share : 0.0);
  std::vector<std::uint32_t> samples(N, 0);
  std::uint32_t stride = 0, valid = 0;
  for (const int r : holders) {
    samples[r] = sample_count(inputs[r].n, total);
    stride = std::max(stride, samples[r]);
    valid += samples[r];
  }
  const std::vector<std::uint32_t> sample_index = boundary_sample_index(total, targets, N, K, valid);
  const std::vector<std::array<std::int32_t, 2>> brackets =
      options_.levels == kLevels ? bracket_sample_index(total, targets, valid) : std::vector<std::array<std::int32_t, 2>>{};
  std::vector<std::uint32_t> blocks(N, 0);  // of the cut pass and the level passes after it
  for (const int r : split_ranks_)
    if (inputs[r].n > 0) blocks[r] = cut_blocks(inputs[r].n, gpu_[r]->shape);
  const int R = N * K;
  const int levels_run = make_setup(0, N, K, options_.levels, total, 0, targets, sample_index).levels_run;
  {
    NvtxRange step(kStepNames[0]);
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      const std::uint64_t segment = blocks[r] > 0 ? g.candidates.size() / blocks[r] : 0;
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.split_start.get(), stream(r)));
      launch_init(g.state.data(),
                  make_setup(r, N, K, options_.levels, total, inputs[r].n, targets, sample_index, brackets, blocks[r],
                             segment),
                  stream(r));
    }
    if (!sample_index.empty() || !brackets.empty()) {
      // The sample, the same on every GPU: the brackets around the splitters, the boundaries of the
      // sub-ranges at its quantiles.
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        launch_sample(inputs[r].keys, inputs[r].n, samples[r], stride, g.sample.data(), stream(r));
      }
      if (reduce) {
        NcclGroupCall group;
        for (int r = 0; r < N; ++r)
          DEPTHSORT_NCCL_CHECK(ncclAllGather(gpu_[r]->sample.data(), gpu_[r]->sample_all.data(), stride, ncclUint32,
                                             comms_.comm(r), stream(r)));
      }
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        std::size_t bytes = g.sample_temp.bytes();
        const int count = static_cast<int>(reduce ? static_cast<std::size_t>(N) * stride : stride);
        DEPTHSORT_CUDA_CHECK(sort_sample(g.sample_temp.data(), bytes, reduce ? g.sample_all.data() : g.sample.data(),
                                         g.sample_sorted.data(), count, stream(r)));
        launch_cuts(g.state.data(), g.sample_sorted.data(), valid, stream(r));
      }
    }
    // The cut pass: one read of every key.
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.cut_local.data(), 0, kCutWords * sizeof(unsigned long long), stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.extremes.data(), 0, 2 * sizeof(unsigned int), stream(r)));
      launch_cut_pass(inputs[r].keys, inputs[r].n, g.state.data(), g.cut_local.data(), g.extremes.data(),
                      g.segment_counts.data(), g.candidates.data(), blocks[r], stream(r));
    }
    if (reduce) {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r) {
        DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->cut_local.data(), gpu_[r]->cut_global.data(), kCutWords,
                                           ncclUint64, ncclSum, comms_.comm(r), stream(r)));
        DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->extremes.data(), gpu_[r]->extremes.data(), 2, ncclUint32, ncclMax,
                                           comms_.comm(r), stream(r)));
      }
    }
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      launch_apply_cuts(g.state.data(), reduce ? g.cut_global.data() : g.cut_local.data(), g.cut_local.data(),
                        g.extremes.data(), stream(r));
    }
    // The levels, over the bracketed keys (or every key where a bracket missed).
    for (int level = 0; level < levels_run; ++level) {
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        DEPTHSORT_CUDA_CHECK(
            cudaMemsetAsync(g.hist_local.data(), 0, kHistogramWords * sizeof(unsigned long long), stream(r)));
        launch_histogram(inputs[r].keys, inputs[r].n, g.candidates.data(), g.segment_counts.data(), g.state.data(),
                         g.hist_local.data(), blocks[r], stream(r));
      }
      if (reduce) {
        NcclGroupCall group;
        for (int r = 0; r < N; ++r)
          DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->hist_local.data(), gpu_[r]->hist_global.data(), kHistogramWords,
                                             ncclUint64, ncclSum, comms_.comm(r), stream(r)));
      }
      for (const int r : split_ranks_) {
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        launch_select(g.state.data(), reduce ? g.hist_global.data() : g.hist_local.data(), g.hist_local.data(), level,
                      stream(r));
      }
    }
    // Each GPU's count of every tie key, gathered: its tie ranks start after the lower GPUs' ones.
    const bool gather_equal = reduce && N > 1 && options_.levels == kLevels;
    if (gather_equal) {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r) {
        const auto* equal_local = reinterpret_cast<const unsigned long long*>(
            reinterpret_cast<const char*>(gpu_[r]->state.data()) + offsetof(SplitState, equal_local));
        DEPTHSORT_NCCL_CHECK(ncclAllGather(equal_local, gpu_[r]->equal_all.data(), kMaxSplitters, ncclUint64,
                                           comms_.comm(r), stream(r)));
      }
    }
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      launch_finish(g.state.data(), gather_equal ? g.equal_all.data() : nullptr, g.segment_counts.data(), blocks[r],
                    stream(r));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.readback.data(),
                                           reinterpret_cast<const char*>(g.state.data()) + offsetof(SplitState, out),
                                           sizeof(RangeCounts), cudaMemcpyDeviceToHost, stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.counts_ready.get(), stream(r)));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.split_end.get(), stream(r)));
    }
  }

  // ---- partition: one pass per GPU, queued before the host waits for the counts.
  {
    NvtxRange step(kStepNames[1]);
    for (const int r : split_ranks_) {
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      if (inputs[r].n > 0) {
        DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.counters.data(), 0, kCounterWords * sizeof(unsigned long long), stream(r)));
        launch_scatter(inputs[r].keys, inputs[r].values, inputs[r].n, g.state.data(), g.counters.data() + kTiesAt,
                       g.counters.data() + kCursorsAt, g.send_keys.data(), g.send_values.data(), g.stage_keys.data(),
                       g.stage_values.data(), g.shape.scatter_grid, stream(r));
      }
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.scatter_end.get(), stream(r)));
    }
  }

  // ---- the one host round trip: the count matrix the exchange is posted with.
  std::vector<std::uint64_t> C(static_cast<std::size_t>(N) * R, 0);  // [source][range]
  std::vector<std::uint64_t> G(R, 0);                                // every GPU's pairs per range
  std::vector<std::uint32_t> lo(R, 0), hi(R, 0);                      // every range's key bounds
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
      if (first) from_candidates_ = row.from_candidates != 0;
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
  std::vector<std::vector<std::uint64_t>> pos(N, std::vector<std::uint64_t>(K, 0));
  std::vector<std::uint64_t> start(N + 1, 0);
  for (int j = 0; j < N; ++j) {
    for (int k = 0; k < K; ++k) pos[j][k] = subrange_offset(G.data(), K, j, k);
    start[j + 1] = start[j] + range_counts_[j];
  }
  // The same functions as the scatter's: where each run lies in its GPU's send buffer.
  std::vector<std::uint64_t> send_at(static_cast<std::size_t>(N) * R, 0);
  for (int r = 0; r < N; ++r)
    scatter_offsets(&C[static_cast<std::size_t>(r) * R], G.data(), r, N, K, &send_at[static_cast<std::size_t>(r) * R]);
  auto receive_at = [&](int j, int k, int from) { return receive_offset(C.data(), G.data(), N, K, j, k, from); };
  for (int r = 0; r < N; ++r)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k)
        if (r != j) counts_[static_cast<std::size_t>(r) * N + j] += count(r, j * K + k);
  transfers_ = counts_;
  if (gathered)
    for (int j = 1; j < N; ++j) transfers_[static_cast<std::size_t>(j) * N] += range_counts_[j];
  for (const std::uint64_t pairs : transfers_) bytes_between_ += pairs * (sizeof(float) + sizeof(std::uint32_t));

  // Sub-range k of GPU j, sorted from its stage into its output (GPU 0's straight into the gathered
  // output in the paper's case), once `arrived` has made its stream wait for its pairs.
  auto sort_subrange = [&](int j, int k, const auto& arrived) {
    const std::uint64_t c = G[j * K + k];
    if (c == 0) return;
    DeviceScope scope(device(j));
    Gpu& g = *gpu_[j];
    arrived(j, k);
    const bool to_output = gathered && j == 0;
    const std::uint64_t at = pos[j][k];
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.sort_start[k].get(), stream(j)));
    const SortBuffers buffers{g.stage_keys.data() + at, g.stage_values.data() + at,
                              (to_output ? gather_keys : g.out_keys.data()) + at,
                              (to_output ? gather_values : g.out_values.data()) + at, c};
    if (g.use_bits) g.bits_sort->sort(buffers, lo[j * K + k], hi[j * K + k], stream(j));
    else g.sorter->sort(buffers, stream(j));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.sort_end[k].get(), stream(j)));
    sorted_[j][k] = true;
  };

  if (transport == Transport::CopyEngines || N == 1) {
    // ---- the pipeline on the copy engines. Every copy is queued at once: copies take no SM, so
    // they run beside the sorts without holding up their launches, and sub-range k's pairs arrive
    // in order, two streams (keys, values) per pair of GPUs. GPU j sorts sub-range k once every
    // GPU's copy of it has arrived; in the paper's case its sorted sub-range goes back to GPU 0 as
    // soon as it is.
    // A copy into GPU q waits for q's earlier work to be done with the buffer it writes (total_start,
    // recorded on q's stream before this sort's work); a copy out of the send buffer waits for its
    // GPU's partition, a return for the sort of its sub-range.
    std::vector<std::vector<bool>> opened(N, std::vector<bool>(N, false));
    // Each lane of the streams from r to q waits for `after` (an event of GPU r).
    auto lanes_wait = [&](int r, int q, const CudaEvent& after) {
      for (int lane = 0; lane < kLanes; ++lane)
        DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(gpu_[r]->to[q][lane].get(), after.get(), 0));
    };
    auto open = [&](int r, int q) {
      if (opened[r][q]) return;
      opened[r][q] = true;
      lanes_wait(r, q, gpu_[q]->total_start);
    };
    auto copy_pairs = [&](int r, int q, const float* keys, const std::uint32_t* values, float* to_keys,
                          std::uint32_t* to_values, std::uint64_t c) {
      DEPTHSORT_CUDA_CHECK(cudaMemcpyPeerAsync(to_keys, device(q), keys, device(r), c * sizeof(float),
                                               gpu_[r]->to[q][0].get()));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyPeerAsync(to_values, device(q), values, device(r), c * sizeof(std::uint32_t),
                                               gpu_[r]->to[q][1].get()));
    };
    // Records events[lane] on each lane of the streams from r to q.
    auto lanes_record = [&](int r, int q, CudaEvent (&events)[kLanes]) {
      for (int lane = 0; lane < kLanes; ++lane)
        DEPTHSORT_CUDA_CHECK(cudaEventRecord(events[lane].get(), gpu_[r]->to[q][lane].get()));
    };
    auto arrived = [&](int j, int k) {
      for (int r = 0; r < N; ++r)
        if (r != j && count(r, j * K + k) > 0)
          for (int lane = 0; lane < kLanes; ++lane)
            DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(j), gpu_[r]->copied[j][k][lane].get(), 0));
    };
    {
      NvtxRange step(kStepNames[2]);
      for (int k = 0; k < K && N > 1; ++k)
        for (int r = 0; r < N; ++r) {
          DeviceScope scope(device(r));
          for (int j = 0; j < N; ++j) {
            const std::uint64_t c = count(r, j * K + k);
            if (r == j || c == 0) continue;
            if (!opened[r][j]) {
              open(r, j);
              lanes_wait(r, j, gpu_[r]->scatter_end);
            }
            const std::uint64_t from = send_at[static_cast<std::size_t>(r) * R + j * K + k], to = receive_at(j, k, r);
            copy_pairs(r, j, gpu_[r]->send_keys.data() + from, gpu_[r]->send_values.data() + from,
                       gpu_[j]->stage_keys.data() + to, gpu_[j]->stage_values.data() + to, c);
            lanes_record(r, j, gpu_[r]->copied[j][k]);
            sent_[r][j] = true;
          }
        }
      for (int r = 0; r < N; ++r)
        for (int q = 0; q < N; ++q)
          if (sent_[r][q]) {
            DeviceScope scope(device(r));
            lanes_record(r, q, gpu_[r]->out_end[q]);
          }
    }
    {
      NvtxRange step(kStepNames[3]);
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) sort_subrange(j, k, arrived);
    }
    if (gathered && N > 1) {
      NvtxRange step(kStepNames[4]);
      for (int k = 0; k < K; ++k)
        for (int j = 1; j < N; ++j) {
          const std::uint64_t c = G[j * K + k];
          if (c == 0) continue;
          DeviceScope scope(device(j));
          Gpu& g = *gpu_[j];
          open(j, 0);
          lanes_wait(j, 0, g.sort_end[k]);
          const std::uint64_t from = pos[j][k], to = start[j] + pos[j][k];
          copy_pairs(j, 0, g.out_keys.data() + from, g.out_values.data() + from, gather_keys + to, gather_values + to, c);
          returned_[j] = true;
        }
      for (int j = 1; j < N; ++j)
        if (returned_[j]) {
          DeviceScope scope(device(j));
          lanes_record(j, 0, gpu_[j]->back_end);
        }
    }
    for (int r = 0; r < N; ++r) {
      // Each main stream joins its GPU's copy streams: a sort is over when all of them are.
      DeviceScope scope(device(r));
      for (int q = 0; q < N; ++q)
        if (opened[r][q]) {
          lanes_record(r, q, gpu_[r]->joined[q]);
          for (int lane = 0; lane < kLanes; ++lane)
            DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(r), gpu_[r]->joined[q][lane].get(), 0));
        }
    }
    record_stop();
    return;
  }

  // ---- the pipeline on NCCL. Round k carries sub-range k of every GPU's range; GPU j sorts
  // sub-range k once round k has arrived, while round k+1 travels. Round k+depth waits until every
  // GPU has sorted sub-range k: at most one round runs beside a sort, so a sort's cooperative
  // launches (which need the whole GPU) wait for one round at most, never for the rest of the
  // exchange; and in the paper's case the sorted sub-range k rides back to GPU 0 in that round.
  const int depth = K >= 2 ? 2 : 1;
  const int groups = gathered ? K + depth : K;
  inbound_groups_ = std::min(groups, K);
  for (int r = 0; r < N; ++r) {
    // The exchange streams start after everything queued on the main streams so far.
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->ready.get(), stream(r)));
    DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(xcomms_.stream(r), gpu_[r]->ready.get(), 0));
  }
  auto round_arrived = [&](int j, int k) {
    std::uint64_t received = 0;
    for (int r = 0; r < N; ++r)
      if (r != j) received += count(r, j * K + k);
    if (received > 0 && k < groups) DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(j), gpu_[j]->round_end[k].get(), 0));
  };
  {
    NvtxRange step(kStepNames[2]);
    for (int round = 0; round < groups; ++round) {
      const int back = round - depth;  // the sub-range returning in this round (the paper's case)
      std::vector<bool> takes_part(N, false);
      if (round < K)
        for (int j = 0; j < N; ++j)
          for (int r = 0; r < N; ++r)
            if (r != j && count(r, j * K + round) > 0) takes_part[r] = takes_part[j] = true;
      if (gathered && back >= 0 && back < K)
        for (int j = 1; j < N; ++j)
          if (G[j * K + back] > 0) takes_part[j] = takes_part[0] = true;
      std::vector<int> ranks;
      for (int r = 0; r < N; ++r)
        if (takes_part[r]) ranks.push_back(r);
      group_ranks_.push_back(ranks);
      for (int r = 0; r < N; ++r) {
        DeviceScope scope(device(r));
        if (takes_part[r] && back >= 0)
          for (int q = 0; q < N; ++q)
            if (sorted_[q][back]) DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(xcomms_.stream(r), gpu_[q]->sort_end[back].get(), 0));
        DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->round_start[round].get(), xcomms_.stream(r)));
      }
      {
        NcclGroupCall group;
        if (round < K)
          for (int j = 0; j < N; ++j)
            for (int r = 0; r < N; ++r) {
              const std::uint64_t c = count(r, j * K + round);
              if (r == j || c == 0) continue;
              const std::uint64_t from = send_at[static_cast<std::size_t>(r) * R + j * K + round];
              const std::uint64_t to = receive_at(j, round, r);
              send_pairs(r, gpu_[r]->send_keys.data() + from, gpu_[r]->send_values.data() + from, c, j);
              recv_pairs(j, gpu_[j]->stage_keys.data() + to, gpu_[j]->stage_values.data() + to, c, r);
            }
        if (gathered && back >= 0 && back < K)
          for (int j = 1; j < N; ++j) {
            const std::uint64_t c = G[j * K + back];
            if (c == 0) continue;
            const std::uint64_t from = pos[j][back], to = start[j] + pos[j][back];
            send_pairs(j, gpu_[j]->out_keys.data() + from, gpu_[j]->out_values.data() + from, c, 0);
            recv_pairs(0, gather_keys + to, gather_values + to, c, j);
          }
      }
      for (int r = 0; r < N; ++r) {
        DeviceScope scope(device(r));
        DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->round_end[round].get(), xcomms_.stream(r)));
      }
      if (round < K) {
        NvtxRange sorts(kStepNames[3]);
        for (int j = 0; j < N; ++j) sort_subrange(j, round, round_arrived);
      }
    }
  }
  for (int r = 0; r < N; ++r) {
    // The main streams join the exchange streams: a sort is over when both are.
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->exchanged.get(), xcomms_.stream(r)));
    DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(r), gpu_[r]->exchanged.get(), 0));
  }
  record_stop();
}

void MultiGpuSorter::record_stop() {
  // GPU 0's stop event follows every GPU's last step.
  for (int r = 1; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->done.get(), stream(r)));
  }
  DeviceScope scope(device(0));
  for (int r = 1; r < gpus(); ++r) DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(0), gpu_[r]->done.get(), 0));
  DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[0]->total_stop.get(), stream(0)));
}

void MultiGpuSorter::send_pairs(int from, const float* keys, const std::uint32_t* values, std::size_t count, int to) {
  // Keys go as uint32 words: NCCL only copies them, and no float path may touch a NaN payload.
  DEPTHSORT_NCCL_CHECK(ncclSend(keys, count, ncclUint32, to, xcomms_.comm(from), xcomms_.stream(from)));
  DEPTHSORT_NCCL_CHECK(ncclSend(values, count, ncclUint32, to, xcomms_.comm(from), xcomms_.stream(from)));
}

void MultiGpuSorter::recv_pairs(int at, float* keys, std::uint32_t* values, std::size_t count, int from) {
  DEPTHSORT_NCCL_CHECK(ncclRecv(keys, count, ncclUint32, from, xcomms_.comm(at), xcomms_.stream(at)));
  DEPTHSORT_NCCL_CHECK(ncclRecv(values, count, ncclUint32, from, xcomms_.comm(at), xcomms_.stream(at)));
}


StepTimes MultiGpuSorter::last_times() {
  synchronize();
  for (int r = 0; r < gpus(); ++r) {  // the copy streams too
    DeviceScope scope(device(r));
    for (int q = 0; q < gpus(); ++q)
      for (int lane = 0; lane < kLanes; ++lane) DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(gpu_[r]->to[q][lane].get()));
  }
  StepTimes t;
  for (const int r : split_ranks_) {
    DeviceScope scope(device(r));
    t.splitters = std::max(t.splitters, elapsed_ms(gpu_[r]->split_start, gpu_[r]->split_end));
    t.partition = std::max(t.partition, elapsed_ms(gpu_[r]->split_end, gpu_[r]->scatter_end));
  }
  if (last_transport_ == Transport::Nccl) {
    for (int round = 0; round < static_cast<int>(group_ranks_.size()); ++round) {
      float longest = 0;
      for (const int r : group_ranks_[round]) {
        DeviceScope scope(device(r));
        longest = std::max(longest, elapsed_ms(gpu_[r]->round_start[round], gpu_[r]->round_end[round]));
      }
      (round < inbound_groups_ ? t.exchange : t.gather) += longest;
    }
  } else {
    for (int r = 0; r < gpus(); ++r) {
      DeviceScope scope(device(r));
      for (int q = 0; q < gpus(); ++q)
        for (int lane = 0; lane < kLanes && sent_[r][q]; ++lane)
          t.exchange = std::max(t.exchange, elapsed_ms(gpu_[r]->scatter_end, gpu_[r]->out_end[q][lane]));
      if (!returned_[r]) continue;
      // What the returns add after this GPU's last sort.
      int last = -1;
      for (int k = 0; k < static_cast<int>(sorted_[r].size()); ++k)
        if (sorted_[r][k]) last = k;
      for (int lane = 0; lane < kLanes && last >= 0; ++lane)
        t.gather = std::max(t.gather, elapsed_ms(gpu_[r]->sort_end[last], gpu_[r]->back_end[lane]));
    }
  }
  for (int j = 0; j < gpus(); ++j) {
    DeviceScope scope(device(j));
    float busy = 0;
    for (int k = 0; k < static_cast<int>(sorted_[j].size()); ++k)
      if (sorted_[j][k]) busy += elapsed_ms(gpu_[j]->sort_start[k], gpu_[j]->sort_end[k]);
    t.local_sort = std::max(t.local_sort, busy);
  }
  DeviceScope scope(device(0));
  t.total = elapsed_ms(gpu_[0]->total_start, gpu_[0]->total_stop);
  return t;
}

void MultiGpuSorter::check_probe(std::span<const std::uint64_t> pairs, std::vector<int>& ranks) const {
  const int N = gpus();
  if (static_cast<int>(pairs.size()) != N * N) throw Error("multi_gpu: the transfer probe takes a gpus x gpus matrix");
  ranks.clear();
  for (int r = 0; r < N; ++r) {
    std::uint64_t out = 0, in = 0;
    for (int j = 0; j < N; ++j)
      if (j != r) out += pairs[static_cast<std::size_t>(r) * N + j], in += pairs[static_cast<std::size_t>(j) * N + r];
    if (out > gpu_[r]->send_keys.size() || in > gpu_[r]->stage_keys.size())
      throw CapacityError("multi_gpu: transfer probe: GPU rank " + std::to_string(r) + " sends " + std::to_string(out) +
                          " and receives " + std::to_string(in) + " pairs; its buffers hold " +
                          std::to_string(gpu_[r]->send_keys.size()) + " and " + std::to_string(gpu_[r]->stage_keys.size()));
    if (out + in > 0) ranks.push_back(r);
  }
}

namespace {

// The median over `reps` runs of `once` (milliseconds each), after one run as a warm-up.
template <class Once>
float median_of_runs(int reps, Once once) {
  std::vector<float> samples;
  for (int rep = -1; rep < reps; ++rep) {
    const float ms = once();
    if (rep >= 0) samples.push_back(ms);
  }
  std::sort(samples.begin(), samples.end());
  return samples.empty() ? 0.0f : samples[samples.size() / 2];
}

}  // namespace

float MultiGpuSorter::time_nccl(std::span<const std::uint64_t> pairs, int reps) {
  const int N = gpus();
  std::vector<int> ranks;
  check_probe(pairs, ranks);
  if (ranks.empty()) return 0.0f;
  return median_of_runs(reps, [&] {
    synchronize();
    for (const int r : ranks) {
      DeviceScope scope(device(r));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->probe_start.get(), xcomms_.stream(r)));
    }
    {
      NcclGroupCall group;
      std::vector<std::uint64_t> sent(N, 0), received(N, 0);
      for (int j = 0; j < N; ++j)
        for (int r = 0; r < N; ++r) {
          const std::uint64_t c = r == j ? 0 : pairs[static_cast<std::size_t>(r) * N + j];
          if (c == 0) continue;
          send_pairs(r, gpu_[r]->send_keys.data() + sent[r], gpu_[r]->send_values.data() + sent[r], c, j);
          recv_pairs(j, gpu_[j]->stage_keys.data() + received[j], gpu_[j]->stage_values.data() + received[j], c, r);
          sent[r] += c;
          received[j] += c;
        }
    }
    float longest = 0;
    for (const int r : ranks) {
      DeviceScope scope(device(r));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->probe_end.get(), xcomms_.stream(r)));
    }
    for (const int r : ranks) {
      DeviceScope scope(device(r));
      DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(gpu_[r]->probe_end.get()));
      longest = std::max(longest, elapsed_ms(gpu_[r]->probe_start, gpu_[r]->probe_end));
    }
    return longest;
  });
}

float MultiGpuSorter::time_copies(std::span<const std::uint64_t> pairs, int reps) {
  const int N = gpus();
  std::vector<int> ranks;
  check_probe(pairs, ranks);
  if (ranks.empty()) return 0.0f;
  auto at = [&](int r, int j) { return r == j ? std::uint64_t{0} : pairs[static_cast<std::size_t>(r) * N + j]; };
  return median_of_runs(reps, [&] {
    synchronize();
    // Every copy queued at once, as the sorts queue them: each pair of GPUs on its own two streams
    // (keys, values).
    std::vector<std::uint64_t> received(N, 0);
    for (int r = 0; r < N; ++r) {
      DeviceScope scope(device(r));
      std::uint64_t sent = 0;
      for (int j = 0; j < N; ++j) {
        const std::uint64_t c = at(r, j);
        if (c == 0) continue;
        Gpu& g = *gpu_[r];
        for (int lane = 0; lane < kLanes; ++lane)
          DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.copy_probe_start[j][lane].get(), g.to[j][lane].get()));
        DEPTHSORT_CUDA_CHECK(cudaMemcpyPeerAsync(gpu_[j]->stage_keys.data() + received[j], device(j),
                                                 g.send_keys.data() + sent, device(r), c * sizeof(float),
                                                 g.to[j][0].get()));
        DEPTHSORT_CUDA_CHECK(cudaMemcpyPeerAsync(gpu_[j]->stage_values.data() + received[j], device(j),
                                                 g.send_values.data() + sent, device(r), c * sizeof(std::uint32_t),
                                                 g.to[j][1].get()));
        for (int lane = 0; lane < kLanes; ++lane)
          DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.copy_probe_end[j][lane].get(), g.to[j][lane].get()));
        sent += c;
        received[j] += c;
      }
    }
    float longest = 0;
    for (int r = 0; r < N; ++r) {
      DeviceScope scope(device(r));
      for (int j = 0; j < N; ++j)
        for (int lane = 0; lane < kLanes && at(r, j) > 0; ++lane) {
          DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(gpu_[r]->copy_probe_end[j][lane].get()));
          longest = std::max(longest,
                             elapsed_ms(gpu_[r]->copy_probe_start[j][lane], gpu_[r]->copy_probe_end[j][lane]));
        }
    }
    return longest;
  });
}

}  // namespace depthsort::multi_gpu
