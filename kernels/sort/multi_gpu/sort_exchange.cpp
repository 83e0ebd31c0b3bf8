// The exchange and the local sorts of a sort: the pipeline of sub-ranges on the copy engines or on NCCL.
// Sintorn & Assarsson (JPDC 2008), Section 6.1 (the cards' data crossed through the CPU there).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/sorter_state.hpp"

namespace depthsort::multi_gpu {

void MultiGpuSorter::exchange_and_sort(Run& run, Transport transport) {
  const int N = run.N, K = run.K, R = run.R;
  const bool gathered = run.gathered;
  float* const gather_keys = run.gather_keys;
  std::uint32_t* const gather_values = run.gather_values;
  const std::vector<std::uint64_t>& G = run.G;
  const std::vector<std::uint32_t>& lo = run.lo;
  const std::vector<std::uint32_t>& hi = run.hi;
  const std::vector<std::vector<std::uint64_t>>& pos = run.pos;
  const std::vector<std::uint64_t>& start = run.start;
  const std::vector<std::uint64_t>& send_at = run.send_at;
  auto count = [&](int r, int range) { return run.C[static_cast<std::size_t>(r) * R + range]; };
  auto receive_at = [&](int j, int k, int from) { return receive_offset(run.C.data(), G.data(), N, K, j, k, from); };

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
    if (g.use_bits)
      g.bits_sort->sort(buffers, lo[j * K + k], hi[j * K + k], stream(j));
    else
      g.sorter->sort(buffers, stream(j));
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
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpyPeerAsync(to_keys, device(q), keys, device(r), c * sizeof(float), gpu_[r]->to[q][0].get()));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyPeerAsync(to_values, device(q), values, device(r), c * sizeof(std::uint32_t),
                                               gpu_[r]->to[q][1].get()));
    };
    // Records events[lane] on each lane of the streams from r to q.
    auto lanes_record = [&](int r, int q, CudaEvent(&events)[kLanes]) {
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
          copy_pairs(j, 0, g.out_keys.data() + from, g.out_values.data() + from, gather_keys + to, gather_values + to,
                     c);
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
    if (received > 0 && k < groups)
      DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream(j), gpu_[j]->round_end[k].get(), 0));
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
            if (sorted_[q][back])
              DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(xcomms_.stream(r), gpu_[q]->sort_end[back].get(), 0));
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

}  // namespace depthsort::multi_gpu
