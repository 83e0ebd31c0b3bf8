// The step times of the last sort, and the transfer probes (NCCL alone, the copy engines alone).
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/sorter_state.hpp"

namespace depthsort::multi_gpu {
namespace {

float elapsed_ms(const CudaEvent& start, const CudaEvent& stop) {
  float ms = 0;
  DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace

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
                          std::to_string(gpu_[r]->send_keys.size()) + " and " +
                          std::to_string(gpu_[r]->stage_keys.size()));
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
          longest = std::max(longest, elapsed_ms(gpu_[r]->copy_probe_start[j][lane], gpu_[r]->copy_probe_end[j][lane]));
        }
    }
    return longest;
  });
}

}  // namespace depthsort::multi_gpu
