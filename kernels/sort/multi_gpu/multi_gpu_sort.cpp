// Sintorn & Assarsson (JPDC 2008), Section 6.1 "Parallelizing using dual graphics cards", on N GPUs:
// the host sequence of both cases (see multi_gpu_sort.hpp and docs/algorithms/multi-gpu.md).
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "depthsort/sort/registry.hpp"  // the local sorts are registry entries

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/errors.hpp"

namespace depthsort::multi_gpu {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Counters zeroed before each partition: counts per range, tie counters, scatter cursors.
constexpr std::size_t kCountsAt = 0;
constexpr std::size_t kTiesAt = kMaxGpus;
constexpr std::size_t kCursorsAt = kMaxGpus + kMaxSplitters;
constexpr std::size_t kCounterWords = 2 * kMaxGpus + kMaxSplitters;

}  // namespace

struct MultiGpuSorter::Gpu {
  int device = 0;
  int grid = 0;  // blocks of the split kernels: a few per SM
  std::size_t input_capacity = 0;
  DeviceBuffer<float> send_keys, recv_keys, out_keys;
  DeviceBuffer<std::uint32_t> send_values, recv_values, out_values;
  DeviceBuffer<std::uint8_t> range_ids;
  DeviceBuffer<unsigned long long> hist_local, hist_global, counters;
  PinnedBuffer<std::uint64_t> hist_host{kHistogramWords};    // this GPU's own last-level counts
  PinnedBuffer<std::uint64_t> global_host{kHistogramWords};  // the global histogram (rank 0's is used)
  PinnedBuffer<std::uint64_t> counts_host{kMaxGpus};
  std::unique_ptr<Sorter> sorter;
  CudaEvent step_events[kSteps][2];
  CudaEvent total_start, total_stop, done{cudaEventDisableTiming};
  // GPU 0's own sort in the weighted paper's case runs here, beside the transfers on the main stream.
  CudaStream side;
  CudaEvent forked{cudaEventDisableTiming}, joined{cudaEventDisableTiming};
};

MultiGpuSorter::MultiGpuSorter(std::span<const int> devices, Options options)
    : options_(std::move(options)), comms_(devices) {
  if (gpus() > kMaxGpus) throw Error("multi_gpu: at most " + std::to_string(kMaxGpus) + " GPUs");
  const SorterInfo* info = find_sorter(options_.local_sorter);
  if (!info || info->backend != Backend::Gpu)
    throw OptionError("multi_gpu: local sorter '" + options_.local_sorter + "' is not a GPU sorter of the registry (" +
                      sorter_names() + ")");
  const OptionValues local_options = parse_options(*info, options_.local_options);
  (void)SplitterPlan(0, gpus(), options_.levels);  // validates levels
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    auto gpu = std::make_unique<Gpu>();
    gpu->device = device(r);
    int sms = 0;
    DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu->device));
    gpu->grid = 8 * sms;
    gpu->hist_local = DeviceBuffer<unsigned long long>(kHistogramWords, "multi_gpu histogram");
    gpu->hist_global = DeviceBuffer<unsigned long long>(kHistogramWords, "multi_gpu histogram");
    gpu->counters = DeviceBuffer<unsigned long long>(kCounterWords, "multi_gpu counters");
    gpu->sorter = info->create(local_options);
    gpu_.push_back(std::move(gpu));
  }
  range_counts_.assign(gpus(), 0);
  counts_.assign(static_cast<std::size_t>(gpus()) * gpus(), 0);
}

MultiGpuSorter::~MultiGpuSorter() {
  // Buffers, events and sorters belong to their GPU: free them with it current.
  for (auto& gpu : gpu_) {
    if (!gpu) continue;
    cudaSetDevice(gpu->device);
    cudaDeviceSynchronize();
    gpu.reset();
  }
}

const float* MultiGpuSorter::range_keys(int rank) const { return gpu_.at(rank)->out_keys.data(); }
const std::uint32_t* MultiGpuSorter::range_values(int rank) const { return gpu_.at(rank)->out_values.data(); }

void MultiGpuSorter::poison_ranges() {
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    Gpu& g = *gpu_[r];
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.out_keys.data(), 0xFF, g.out_keys.bytes(), stream(r)));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.out_values.data(), 0xFF, g.out_values.bytes(), stream(r)));
  }
}

std::size_t MultiGpuSorter::input_capacity(int rank) const { return gpu_.at(rank)->input_capacity; }

void MultiGpuSorter::reserve(std::size_t max_n) {
  if (max_n > Sorter::kMaxPairs)
    throw CapacityError("multi_gpu: at most " + std::to_string(Sorter::kMaxPairs) + " pairs in all (32-bit counts per GPU)");
  const int N = gpus();
  const std::size_t share = ceil_div(max_n, N);
  for (int r = 0; r < N; ++r) {
    // GPU 0 may take up to max_gpu0_share of the pairs in the weighted paper's case.
    const std::size_t range_capacity =
        options_.levels != kLevels ? max_n
        : r == 0 ? std::min(max_n, std::max(share, static_cast<std::size_t>(std::ceil(options_.max_gpu0_share * static_cast<double>(max_n)))))
                 : share;
    DeviceScope scope(device(r));
    Gpu& g = *gpu_[r];
    const std::string owner = "multi_gpu (GPU " + std::to_string(g.device) + ")";
    // The old buffers go first, so a larger reservation never needs both.
    g.send_keys = {}, g.recv_keys = {}, g.out_keys = {};
    g.send_values = {}, g.recv_values = {}, g.out_values = {};
    g.range_ids = {};
    g.input_capacity = r == 0 ? max_n : share;
    if (N > 1) {
      g.send_keys = DeviceBuffer<float>(g.input_capacity, owner);
      g.send_values = DeviceBuffer<std::uint32_t>(g.input_capacity, owner);
      g.range_ids = DeviceBuffer<std::uint8_t>(g.input_capacity, owner);
      g.recv_keys = DeviceBuffer<float>(range_capacity, owner);
      g.recv_values = DeviceBuffer<std::uint32_t>(range_capacity, owner);
    }
    g.out_keys = DeviceBuffer<float>(range_capacity, owner);
    g.out_values = DeviceBuffer<std::uint32_t>(range_capacity, owner);
    g.sorter->reserve(range_capacity);
  }
  capacity_ = max_n;
}

void MultiGpuSorter::record(int step, bool end, bool skip_gpu0) {
  for (int r = skip_gpu0 ? 1 : 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->step_events[step][end ? 1 : 0].get(), stream(r)));
  }
}

Splitters MultiGpuSorter::choose_splitters(std::span<const DevicePairs> inputs, std::uint64_t total,
                                           std::vector<TieBases>& bases) {
  const int N = gpus();
  bases.assign(N, TieBases{});
  SplitterPlan plan(total, N, options_.levels, gathered_ ? gpu0_share_ : 0.0);
  if (!plan.needed()) return plan.splitters();
  std::vector<int> holders;
  for (int r = 0; r < N; ++r)
    if (inputs[r].n > 0) holders.push_back(r);
  // With one GPU holding every pair (the paper's case) its own histogram is the global one.
  const bool reduce = holders.size() > 1;
  const int reader = holders.front();
  for (int level = 0; level < plan.levels(); ++level) {
    const LevelParams params = plan.params(level);
    const std::size_t words = SplitterPlan::histogram_words(params);
    const bool last = level + 1 == plan.levels();
    for (int r = 0; r < N; ++r) {
      if (!reduce && r != reader) continue;
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.hist_local.data(), 0, words * sizeof(std::uint64_t), stream(r)));
      launch_histogram(inputs[r].keys, inputs[r].n, params, g.hist_local.data(), g.grid, stream(r));
    }
    if (reduce) {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r)
        DEPTHSORT_NCCL_CHECK(ncclAllReduce(gpu_[r]->hist_local.data(), gpu_[r]->hist_global.data(), words,
                                           ncclUint64, ncclSum, comms_.comm(r), stream(r)));
    }
    // The global histogram to the host; at the last level each GPU's own counts too (the tie
    // ranks of each GPU start after the equal keys of the GPUs before it).
    for (int r = 0; r < N; ++r) {
      const bool global_copy = r == reader;
      const bool local_copy = reduce && last;
      if (!global_copy && !local_copy) continue;
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      if (global_copy)
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(gpu_[0]->global_host.data(), reduce ? g.hist_global.data() : g.hist_local.data(),
                                             words * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream(r)));
      if (local_copy)
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.hist_host.data(), g.hist_local.data(), words * sizeof(std::uint64_t),
                                             cudaMemcpyDeviceToHost, stream(r)));
    }
    comms_.synchronize();
    plan.refine(level, std::span<const std::uint64_t>(gpu_[0]->global_host.data(), words));
    if (last) {
      Splitters s = plan.splitters();
      if (reduce) {
        for (int d = 0; d < s.ties; ++d) {
          const std::size_t word = plan.tie_word(s.tie_key[d]);
          std::uint64_t below = 0;
          for (int r = 0; r < N; ++r) {
            bases[r].base[d] = below;
            below += gpu_[r]->hist_host[word];
          }
        }
      }
      return s;
    }
  }
  return plan.splitters();
}

void MultiGpuSorter::sort_gathered(const DevicePairs& pairs, float* out_keys, std::uint32_t* out_values,
                                   double gpu0_share) {
  if (!(gpu0_share >= 0 && gpu0_share <= options_.max_gpu0_share))
    throw OptionError("multi_gpu: GPU 0's share " + std::to_string(gpu0_share) + " is outside [0, " +
                      std::to_string(options_.max_gpu0_share) + "] (Options::max_gpu0_share)");
  std::vector<DevicePairs> inputs(gpus());
  inputs[0] = pairs;
  gpu0_share_ = gpus() > 1 ? gpu0_share : 0.0;
  sort_impl(inputs, out_keys, out_values);
}

void MultiGpuSorter::sort_distributed(std::span<const DevicePairs> inputs) {
  gpu0_share_ = 0;
  sort_impl(inputs, nullptr, nullptr);
}

void MultiGpuSorter::sort_impl(std::span<const DevicePairs> inputs, float* gather_keys, std::uint32_t* gather_values) {
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
  gathered_ = gather_keys != nullptr;
  NvtxRange range(gathered_ ? "multi-gpu sort (gathered)" : "multi-gpu sort (distributed)");
  for (int r = 0; r < N; ++r) {
    DeviceScope scope(device(r));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[r]->total_start.get(), stream(r)));
  }

  // histogram: N-1 splitters at exact ranks (or bin edges with levels < 3).
  record(0, false);
  std::vector<TieBases> bases;
  Splitters splitters;
  {
    NvtxRange step(kStepNames[0]);
    splitters = choose_splitters(inputs, total, bases);
  }
  record(0, true);

  // partition: each pair's range, counts read back, then one run per range.
  record(1, false);
  std::fill(counts_.begin(), counts_.end(), 0);
  auto count = [&](int from, int to) -> std::uint64_t& { return counts_[static_cast<std::size_t>(from) * N + to]; };
  std::vector<bool> direct(N, false);  // every pair of this GPU stays on it: no run to write
  {
    NvtxRange step(kStepNames[1]);
    if (splitters.count == 0) {
      for (int r = 0; r < N; ++r) count(r, 0) = inputs[r].n;
    } else {
      for (int r = 0; r < N; ++r) {
        if (inputs[r].n == 0) continue;
        DeviceScope scope(device(r));
        Gpu& g = *gpu_[r];
        DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(g.counters.data(), 0, kCounterWords * sizeof(std::uint64_t), stream(r)));
        launch_assign(inputs[r].keys, inputs[r].n, splitters, bases[r], g.counters.data() + kTiesAt,
                      g.range_ids.data(), g.counters.data() + kCountsAt, N, g.grid, stream(r));
        DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.counts_host.data(), g.counters.data() + kCountsAt,
                                             N * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream(r)));
      }
      comms_.synchronize();
      for (int r = 0; r < N; ++r) {
        std::uint64_t placed = 0;
        for (int j = 0; j < N && inputs[r].n > 0; ++j) placed += count(r, j) = gpu_[r]->counts_host[j];
        // A miscount here would post NCCL receives that never match: stop with the numbers instead.
        if (placed != inputs[r].n)
          throw Error("multi_gpu: GPU rank " + std::to_string(r) + " assigned " + std::to_string(placed) + " of its " +
                      std::to_string(inputs[r].n) + " pairs to ranges");
      }
    }
    for (int j = 0; j < N; ++j) {
      const std::size_t range_capacity = gpu_[j]->sorter->capacity();
      range_counts_[j] = 0;
      for (int r = 0; r < N; ++r) range_counts_[j] += count(r, j);
      if (range_counts_[j] > range_capacity)
        throw CapacityError("multi_gpu: range " + std::to_string(j) + " holds " + std::to_string(range_counts_[j]) +
                            " pairs, reserved for " + std::to_string(range_capacity) + " (use levels=3)");
    }
    for (int r = 0; r < N; ++r) {
      direct[r] = count(r, r) == inputs[r].n;
      if (direct[r]) continue;
      DeviceScope scope(device(r));
      Gpu& g = *gpu_[r];
      RunOffsets offsets;
      for (int j = 1; j < N; ++j) offsets.offset[j] = offsets.offset[j - 1] + count(r, j - 1);
      launch_scatter(inputs[r].keys, inputs[r].values, inputs[r].n, g.range_ids.data(), offsets,
                     g.counters.data() + kCursorsAt, g.send_keys.data(), g.send_values.data(), N, g.grid, stream(r));
    }
  }
  record(1, true);

  // The weighted paper's case: GPU 0's range is its own run; its sort starts now on the side
  // stream, while the other runs leave, are sorted and come back on the main streams.
  const bool early = gathered_ && gpu0_share_ > 0 && range_counts_[0] > 0 && count(0, 0) == range_counts_[0];
  if (early) {
    NvtxRange step(kStepNames[3]);
    DeviceScope scope(device(0));
    Gpu& g = *gpu_[0];
    const float* keys = direct[0] ? inputs[0].keys : g.send_keys.data();
    const std::uint32_t* values = direct[0] ? inputs[0].values : g.send_values.data();
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.forked.get(), stream(0)));
    DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(g.side.get(), g.forked.get(), 0));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.step_events[3][0].get(), g.side.get()));
    g.sorter->sort({keys, values, gather_keys, gather_values, range_counts_[0]}, g.side.get());
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.step_events[3][1].get(), g.side.get()));
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(g.joined.get(), g.side.get()));
  }

  // exchange: run j of GPU r to GPU j (grouped send/receive); a GPU's own run stays.
  record(2, false);
  auto send_offset = [&](int r, int j) {
    std::uint64_t offset = 0;
    for (int k = 0; k < j; ++k) offset += count(r, k);
    return offset;
  };
  // Where each GPU's local sort reads its range.
  std::vector<const float*> sort_keys(N, nullptr);
  std::vector<const std::uint32_t*> sort_values(N, nullptr);
  bytes_between_ = 0;
  {
    NvtxRange step(kStepNames[2]);
    for (int j = 0; j < N; ++j) {
      Gpu& g = *gpu_[j];
      const float* own_keys = direct[j] ? inputs[j].keys : g.send_keys.data() + send_offset(j, j);
      const std::uint32_t* own_values = direct[j] ? inputs[j].values : g.send_values.data() + send_offset(j, j);
      if (count(j, j) == range_counts_[j]) {  // nothing comes from elsewhere: sort the own run in place
        sort_keys[j] = own_keys;
        sort_values[j] = own_values;
        continue;
      }
      sort_keys[j] = g.recv_keys.data();
      sort_values[j] = g.recv_values.data();
      if (count(j, j) == 0) continue;
      DeviceScope scope(device(j));
      const std::uint64_t at = [&] {
        std::uint64_t offset = 0;
        for (int r = 0; r < j; ++r) offset += count(r, j);
        return offset;
      }();
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.recv_keys.data() + at, own_keys, count(j, j) * sizeof(float),
                                           cudaMemcpyDeviceToDevice, stream(j)));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(g.recv_values.data() + at, own_values, count(j, j) * sizeof(std::uint32_t),
                                           cudaMemcpyDeviceToDevice, stream(j)));
    }
    NcclGroupCall group;
    for (int j = 0; j < N; ++j) {
      std::uint64_t at = 0;  // where the run from GPU r lands on GPU j: runs in source order
      for (int r = 0; r < N; ++r) {
        const std::uint64_t c = count(r, j);
        if (r != j && c > 0) {
          const std::uint64_t from = send_offset(r, j);
          send_pairs(r, gpu_[r]->send_keys.data() + from, gpu_[r]->send_values.data() + from, c, j);
          recv_pairs(j, gpu_[j]->recv_keys.data() + at, gpu_[j]->recv_values.data() + at, c, r);
          bytes_between_ += c * (sizeof(float) + sizeof(std::uint32_t));
        }
        at += c;
      }
    }
  }
  record(2, true);

  // local sort: each GPU sorts its range with the registry's sorter (GPU 0 straight into the
  // gathered output in the paper's case).
  record(3, false, early);
  {
    NvtxRange step(kStepNames[3]);
    for (int j = early ? 1 : 0; j < N; ++j) {
      if (range_counts_[j] == 0) continue;
      DeviceScope scope(device(j));
      Gpu& g = *gpu_[j];
      const bool to_output = gathered_ && j == 0;
      const SortBuffers buffers{sort_keys[j], sort_values[j], to_output ? gather_keys : g.out_keys.data(),
                                to_output ? gather_values : g.out_values.data(), range_counts_[j]};
      g.sorter->sort(buffers, stream(j));
    }
  }
  record(3, true, early);

  // gather (the paper's case): ranges 1..N-1 back to GPU 0, in order after range 0.
  record(4, false);
  if (gathered_) {
    NvtxRange step(kStepNames[4]);
    NcclGroupCall group;
    std::uint64_t at = range_counts_[0];
    for (int j = 1; j < N; ++j) {
      const std::uint64_t c = range_counts_[j];
      if (c == 0) continue;
      send_pairs(j, gpu_[j]->out_keys.data(), gpu_[j]->out_values.data(), c, 0);
      recv_pairs(0, gather_keys + at, gather_values + at, c, j);
      bytes_between_ += c * (sizeof(float) + sizeof(std::uint32_t));
      at += c;
    }
  }
  record(4, true);
  if (early) {
    DeviceScope scope(device(0));
    DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(0), gpu_[0]->joined.get(), 0));
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
  DEPTHSORT_NCCL_CHECK(ncclSend(keys, count, ncclUint32, to, comms_.comm(from), stream(from)));
  DEPTHSORT_NCCL_CHECK(ncclSend(values, count, ncclUint32, to, comms_.comm(from), stream(from)));
}

void MultiGpuSorter::recv_pairs(int at, float* keys, std::uint32_t* values, std::size_t count, int from) {
  DEPTHSORT_NCCL_CHECK(ncclRecv(keys, count, ncclUint32, from, comms_.comm(at), stream(at)));
  DEPTHSORT_NCCL_CHECK(ncclRecv(values, count, ncclUint32, from, comms_.comm(at), stream(at)));
}

StepTimes MultiGpuSorter::last_times() {
  synchronize();
  float steps[kSteps] = {};
  for (int r = 0; r < gpus(); ++r) {
    DeviceScope scope(device(r));
    for (int s = 0; s < kSteps; ++s) {
      float ms = 0;
      DEPTHSORT_CUDA_CHECK(
          cudaEventElapsedTime(&ms, gpu_[r]->step_events[s][0].get(), gpu_[r]->step_events[s][1].get()));
      steps[s] = std::max(steps[s], ms);
    }
  }
  StepTimes t{steps[0], steps[1], steps[2], steps[3], steps[4], 0.0f};
  DeviceScope scope(device(0));
  DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&t.total, gpu_[0]->total_start.get(), gpu_[0]->total_stop.get()));
  return t;
}

float MultiGpuSorter::time_nccl_exchange(std::size_t pairs_per_peer, bool from_gpu0_only, int reps) {
  const int N = gpus();
  if (N < 2 || pairs_per_peer == 0) return 0.0f;
  for (int r = 0; r < N; ++r) {
    const std::size_t sends = from_gpu0_only ? (r == 0 ? N - 1 : 0) : N - 1;
    const std::size_t receives = from_gpu0_only ? (r == 0 ? 0 : 1) : N - 1;
    if (sends * pairs_per_peer > input_capacity(r) || receives * pairs_per_peer > gpu_[r]->sorter->capacity())
      throw CapacityError("multi_gpu: NCCL probe of " + std::to_string(pairs_per_peer) +
                          " pairs per peer exceeds the reservation");
  }
  std::vector<float> samples;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
    synchronize();
    {
      DeviceScope scope(device(0));
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(gpu_[0]->total_start.get(), stream(0)));
    }
    {
      NcclGroupCall group;
      for (int r = 0; r < N; ++r) {
        if (from_gpu0_only && r != 0) continue;
        std::size_t slot = 0;
        for (int j = 0; j < N; ++j) {
          if (j == r) continue;
          const std::size_t from = slot++ * pairs_per_peer;
          const std::size_t to = (from_gpu0_only ? 0 : (r < j ? r : r - 1)) * pairs_per_peer;
          send_pairs(r, gpu_[r]->send_keys.data() + from, gpu_[r]->send_values.data() + from, pairs_per_peer, j);
          recv_pairs(j, gpu_[j]->recv_keys.data() + to, gpu_[j]->recv_values.data() + to, pairs_per_peer, r);
        }
      }
    }
    record_stop();
    DeviceScope scope(device(0));
    DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(gpu_[0]->total_stop.get()));
    float ms = 0;
    DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, gpu_[0]->total_start.get(), gpu_[0]->total_stop.get()));
    if (rep >= 0) samples.push_back(ms);
  }
  std::sort(samples.begin(), samples.end());
  return samples.empty() ? 0.0f : samples[samples.size() / 2];
}

}  // namespace depthsort::multi_gpu
