// Double-buffered staging of pairs of word runs (keys and values) from global into shared memory,
// for a block that works on one run while the next one is on its way (first user: run-bucket's
// small-bucket sort, kernels/sort/run_bucket/sort_buckets.cuh). Not from a paper. The path is the
// device pass's architecture's (staging.hpp):
//   sm_90 and newer  the bulk copy engine: one thread starts both copies of a run, a transaction
//                    mbarrier per buffer says when their bytes have landed; no thread holds them
//                    in registers, and no block barrier is needed to see them.
//   sm_80 to sm_89   cp.async: every thread starts 16-byte copies of its share, waits for its own
//                    group, and a block barrier makes every thread's copies visible.
//   sm_75            no asynchronous copy: the block loads a run when it is waited for, 16 bytes a
//                    thread at a time, coalesced, into the one buffer it has.
//
// The protocol, the same on every path (every thread of the block calls each step):
//   begin(valid, source)      before anything else touches the stage; buffer 0's run, where valid
//   (block barrier)           e.g. one the kernel has anyway before its loop
//   loop, k = 0, 1, 0, ...:   fetch(k ^ 1, valid, source)  the next run, where there is one
//                             wait(k)                      then keys(k) / values(k) hold the run
//                             ... use them ...
//                             (block barrier)             before buffer k is fetched into again
// `source` is a callable returning the run's StagedRun; only the threads that copy call it. A run
// starts 16-byte aligned in global memory, and may be read up to its next multiple of 16 bytes.
#pragma once

#include <cuda/ptx>
#include <cuda_pipeline_primitives.h>

#include <cstdint>

#include "sort/primitives/staging.hpp"

namespace depthsort::primitives {

// A run of `words` keys and as many values.
struct StagedRun {
  const std::uint32_t* keys;
  const std::uint32_t* values;
  std::uint32_t words;
};

// kCapacity: the most words of one array a run holds. The dynamic shared memory handed to it
// holds the buffers' keys, then their values: staging_bytes(path, 2, kCapacity) bytes, 16-byte
// aligned, with the path the host learns from compiled_arch of the kernel.
template <int kThreads, std::uint32_t kCapacity>
class StagedPairs {
 public:
  static_assert(kCapacity * sizeof(std::uint32_t) % 16 == 0, "runs are copied 16 bytes at a time");

#if defined(__CUDA_ARCH__)
  static constexpr StagingPath kPath = staging_path_for(__CUDA_ARCH__);
#else
  static constexpr StagingPath kPath = StagingPath::BulkCopy;  // the host pass compiles no device code
#endif
  static constexpr int kBuffers = staging_buffers(kPath);

  // The bulk path's mbarriers, in static shared memory; the other paths leave them unused.
  struct Storage {
    std::uint64_t arrived[2];
  };

  __device__ __forceinline__ explicit StagedPairs(Storage& storage) : storage_(storage) {}

  __device__ __forceinline__ std::uint32_t* keys(int k) const { return buffers() + buffer(k) * kCapacity; }
  __device__ __forceinline__ std::uint32_t* values(int k) const {
    return buffers() + (kBuffers + buffer(k)) * kCapacity;
  }

  template <class Source>
  __device__ __forceinline__ void begin(bool valid, Source&& source) {
    if constexpr (kPath == StagingPath::BulkCopy) {
      if (threadIdx.x == 0) {
        cuda::ptx::mbarrier_init(&storage_.arrived[0], 1);
        cuda::ptx::mbarrier_init(&storage_.arrived[1], 1);
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
        if (valid) bulk_copy(0, source());
      }
    } else if constexpr (kPath == StagingPath::AsyncCopy) {
      if (valid) async_copy(0, source());
      __pipeline_commit();
    } else {
      if (valid) current_ = source();
    }
  }

  template <class Source>
  __device__ __forceinline__ void fetch(int k, bool valid, Source&& source) {
    if constexpr (kPath == StagingPath::BulkCopy) {
      if (threadIdx.x == 0 && valid) bulk_copy(k, source());
    } else if constexpr (kPath == StagingPath::AsyncCopy) {
      if (valid) async_copy(k, source());
      __pipeline_commit();  // also where there is none: wait counts one group per fetch
    } else {
      if (valid) next_ = source();
    }
  }

  __device__ __forceinline__ void wait(int k) {
    if constexpr (kPath == StagingPath::BulkCopy) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&storage_.arrived[k], (phases_ >> k) & 1u)) {
      }
      phases_ ^= 1u << k;
    } else if constexpr (kPath == StagingPath::AsyncCopy) {
      __pipeline_wait_prior(1);  // every group but the next run's, fetched just before
      __syncthreads();
    } else {
      load(current_);
      __syncthreads();
      current_ = next_;
    }
  }

 private:
  static constexpr std::uint32_t kChunks = kCapacity * sizeof(std::uint32_t) / 16;  // of one array

  __device__ __forceinline__ static int buffer(int k) { return kBuffers == 1 ? 0 : k; }

  // The kernel's dynamic shared memory: the buffers' keys, then their values.
  __device__ __forceinline__ static std::uint32_t* buffers() {
    extern __shared__ __align__(128) std::uint32_t staged_pairs[];
    return staged_pairs;
  }

  __device__ __forceinline__ static std::uint32_t chunks(std::uint32_t words) { return (words * 4u + 15u) / 16u; }

  // One thread: both copies of `run` into buffer k. The fence orders the block's earlier reads and
  // writes of the buffer (generic proxy) before the copy engine's writes (async proxy).
  __device__ __forceinline__ void bulk_copy(int k, const StagedRun& run) {
    const std::uint32_t bytes = (run.words * 4u + 15u) & ~15u;
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &storage_.arrived[k], 2 * bytes);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, keys(k), run.keys, bytes,
                             &storage_.arrived[k]);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, values(k), run.values, bytes,
                             &storage_.arrived[k]);
  }

  // Every thread: its share of the run's 16-byte chunks, into buffer k, without waiting.
  __device__ __forceinline__ void async_copy(int k, const StagedRun& run) {
    const std::uint32_t count = chunks(run.words);
    for (std::uint32_t c = threadIdx.x; c < count; c += kThreads) {
      __pipeline_memcpy_async(keys(k) + 4 * c, run.keys + 4 * c, 16);
      __pipeline_memcpy_async(values(k) + 4 * c, run.values + 4 * c, 16);
    }
  }

  // Every thread: its share of the run into the one buffer, all of its loads issued before any
  // store, so that they are in flight together.
  __device__ __forceinline__ void load(const StagedRun& run) {
    constexpr int kPerThread = static_cast<int>((kChunks + kThreads - 1) / kThreads);
    const std::uint32_t count = chunks(run.words);
    uint4 key[kPerThread], value[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const std::uint32_t c = j * kThreads + threadIdx.x;
      if (c < count) {
        key[j] = reinterpret_cast<const uint4*>(run.keys)[c];
        value[j] = reinterpret_cast<const uint4*>(run.values)[c];
      }
    }
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const std::uint32_t c = j * kThreads + threadIdx.x;
      if (c < count) {
        reinterpret_cast<uint4*>(keys(0))[c] = key[j];
        reinterpret_cast<uint4*>(values(0))[c] = value[j];
      }
    }
  }

  Storage& storage_;
  std::uint32_t phases_ = 0;      // bulk copy: bit k, the phase of buffer k's mbarrier to wait for
  StagedRun current_{}, next_{};  // plain loads: the run wait() loads, and the one after it
};

}  // namespace depthsort::primitives
