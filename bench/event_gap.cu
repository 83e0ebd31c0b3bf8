// depthsort-event-gap: how long the GPU waits between two kernels of one stream, with 0, 1 or 2
// CUDA events recorded between them (timing or not), with and without programmatic dependent
// launch: the cost of the StepTimer's events (docs/profiling.md, "What the step timings cost"). A
// first kernel of 264 blocks spins for 20 us and notes its end (%globaltimer); the second, of 528
// blocks, notes when its first block passes the wait for the first kernel (griddepcontrol.wait: at
// once without a programmatic launch, where the block starts only after the first kernel). Built
// with the benchmark (bench/CMakeLists.txt); run on a GPU of compute capability 9.0 or later,
// where programmatic dependent launch exists (on older GPUs the griddepcontrol instructions are
// left out and the dependent rows measure plain launches).
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/host/stats.hpp"

namespace {

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(unsigned long long* times, bool let_dependents_start) {
#if __CUDA_ARCH__ >= 900
  if (let_dependents_start) asm volatile("griddepcontrol.launch_dependents;");
#else
  (void)let_dependents_start;
#endif
  const unsigned long long start = now_ns();
  while (now_ns() - start < 20000) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&times[0], now_ns());
}

__global__ void note_start_kernel(unsigned long long* times) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  if (threadIdx.x == 0) atomicMin(&times[1], now_ns());
}

void measure() {
  depthsort::DeviceBuffer<unsigned long long> times(2, "the kernels' timestamps");
  const depthsort::CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  // [timing, untimed][first, second]
  const std::array<std::array<depthsort::CudaEvent, 2>, 2> events{{
      {depthsort::CudaEvent(cudaEventDefault), depthsort::CudaEvent(cudaEventDefault)},
      {depthsort::CudaEvent(cudaEventDisableTiming), depthsort::CudaEvent(cudaEventDisableTiming)},
  }};
  cudaDeviceProp prop{};
  DEPTHSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: the second kernel past its wait, after the first one's end, ns (median of 7)\n", prop.name);
  for (const bool dependent : {false, true}) {
    for (const bool timing : {true, false}) {
      for (int count = 0; count <= 2; ++count) {
        if (count == 0 && !timing) continue;
        std::vector<double> gaps(7);
        for (double& gap : gaps) {
          const unsigned long long init[2] = {0, ~0ull};
          DEPTHSORT_CUDA_CHECK(cudaMemcpy(times.data(), init, sizeof init, cudaMemcpyHostToDevice));
          spin_kernel<<<264, 256, 0, stream>>>(times.data(), dependent);
          DEPTHSORT_CUDA_CHECK_LAUNCH("spin_kernel");
          for (int e = 0; e < count; ++e)
            DEPTHSORT_CUDA_CHECK(cudaEventRecord(events[timing ? 0 : 1][e].get(), stream));
          cudaLaunchConfig_t config{};
          config.gridDim = 528;
          config.blockDim = 256;
          config.stream = stream;
          cudaLaunchAttribute attribute{};
          attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
          attribute.val.programmaticStreamSerializationAllowed = 1;
          config.attrs = &attribute;
          config.numAttrs = dependent ? 1 : 0;
          DEPTHSORT_CUDA_CHECK(cudaLaunchKernelEx(&config, note_start_kernel, times.data()));
          DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
          unsigned long long result[2];
          DEPTHSORT_CUDA_CHECK(cudaMemcpy(result, times.data(), sizeof result, cudaMemcpyDeviceToHost));
          gap = static_cast<double>(static_cast<long long>(result[1] - result[0]));
        }
        std::printf("%-28s %d %-7s event(s) between: %+6.0f\n",
                    dependent ? "programmatic dependent launch" : "plain launch", count,
                    count == 0 ? ""
                    : timing   ? "timing"
                               : "untimed",
                    depthsort::median(gaps));
      }
    }
  }
}

}  // namespace

int main() {
  std::string why;
  if (!depthsort::cuda_device_usable(&why)) {
    std::fprintf(stderr, "depthsort-event-gap: %s; it times kernels and needs a CUDA device\n", why.c_str());
    return 1;
  }
  try {
    measure();
  } catch (const depthsort::Error& e) {
    std::fprintf(stderr, "depthsort-event-gap: %s\n", e.what());
    return 1;
  }
  return 0;
}
