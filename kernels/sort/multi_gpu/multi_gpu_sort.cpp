// Sintorn & Assarsson (JPDC 2008), Section 6.1 "Parallelizing using dual graphics cards", on N GPUs:
// the host sequence of both cases (see multi_gpu_sort.hpp and docs/algorithms/multi-gpu.md), and
// depthsort's pipeline of sub-ranges around it.
// Here: the sorter's construction, buffers and local sorters, the two cases' entry and the sequence
// of a sort's steps (the steps: sort_splitters.cpp, sort_counts.cpp, sort_exchange.cpp).
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"  // the local sorts are registry entries
#include "sort/multi_gpu/sorter_state.hpp"

namespace depthsort::multi_gpu {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

const SorterInfo& gpu_sorter_info(const std::string& name) {
  const SorterInfo* info = find_sorter(name);
  if (!info || info->backend != Backend::Gpu) {
    std::string gpu_names;
    for (const SorterInfo& candidate : sorter_registry())
      if (candidate.backend == Backend::Gpu) gpu_names += (gpu_names.empty() ? "" : ", ") + std::string(candidate.name);
    throw OptionError("multi_gpu: local sorter '" + name + "' is " + (info ? "a CPU sorter" : "not in the registry") +
                      "; GPU sorters: " + gpu_names);
  }
  return *info;
}

}  // namespace

const char* transport_name(Transport transport) {
  switch (transport) {
    case Transport::Auto:
      return "auto";
    case Transport::CopyEngines:
      return "copy engines";
    case Transport::Nccl:
      return "NCCL";
  }
  return "?";
}

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
      throw OptionError("multi_gpu: local sorter options '" + options_.local_options +
                        "' given without a local sorter");
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
      if (status == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();  // enabled before: fine
      else
        DEPTHSORT_CUDA_CHECK(status);
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
    g.sorters.emplace_back(
        name, info.create(parse_options(info, name == options_.local_sorter ? options_.local_options : "")));
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
    throw CapacityError("multi_gpu: at most " + std::to_string(Sorter::kMaxPairs) +
                        " pairs in all (32-bit counts per GPU)");
  const int N = gpus();
  const std::size_t share = ceil_div(max_n, N);
  synchronize();
  for (int r = 0; r < N; ++r) {
    // GPU 0 may take up to max_gpu0_share of the pairs in the weighted paper's case.
    const std::size_t gpu0_range = std::min(
        max_n,
        std::max(share, static_cast<std::size_t>(std::ceil(options_.max_gpu0_share * static_cast<double>(max_n)))));
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
  if (gpu0_share != 0 && N > 1 && !(gpu0_share >= 1.0 / N && gpu0_share <= options_.max_gpu0_share))
    throw OptionError("multi_gpu: GPU 0's share " + std::to_string(gpu0_share) + " is outside [1/" + std::to_string(N) +
                      ", " + std::to_string(options_.max_gpu0_share) + "] (Options::max_gpu0_share)");
  std::vector<DevicePairs> inputs(N);
  inputs[0] = pairs;
  sort_impl(inputs, out_keys, out_values, N > 1 ? gpu0_share : 0.0, Case::Gathered);
}

void MultiGpuSorter::sort_distributed(std::span<const DevicePairs> inputs) {
  sort_impl(inputs, nullptr, nullptr, 0.0, Case::Distributed);
}

void MultiGpuSorter::sort_impl(std::span<const DevicePairs> inputs, float* gather_keys, std::uint32_t* gather_values,
                               double gpu0_share, Case kase) {
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
    if (g.use_bits)
      g.bits_sort->sort(buffers, 0u, 0xFFFFFFFFu, stream(0));
    else
      g.sorter->sort(buffers, stream(0));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.sort_end[0].get(), stream(0)));
    sorted_[0][0] = true;
    range_counts_[0] = inputs[0].n;
    record_stop();
    return;
  }

  Run run;  // what the steps share
  run.inputs = inputs, run.gather_keys = gather_keys, run.gather_values = gather_values, run.gathered = gathered;
  run.total = total, run.N = N, run.K = K, run.R = N * K;
  find_splitters(run, gpu0_share);
  partition(run);
  read_counts(run);
  exchange_and_sort(run, transport);
}

}  // namespace depthsort::multi_gpu
