// RAII owners of CUDA streams and events, for the demo, the benchmark and the tests.
#pragma once

#include <cuda_runtime_api.h>

#include "depthsort/sort/errors.hpp"

namespace depthsort {

class CudaStream {
 public:
  CudaStream() { DEPTHSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  // Timing events by default; pass cudaEventDisableTiming for pure synchronisation.
  explicit CudaEvent(unsigned flags = cudaEventDefault) {
    DEPTHSORT_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace depthsort
