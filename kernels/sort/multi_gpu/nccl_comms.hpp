// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: the transport. The paper's two cards
// exchanged data through the CPU; here NCCL moves it GPU to GPU (NVLink within a host, the network
// between hosts). RAII owners of the communicators and per-GPU streams of one process driving N
// GPUs, and the NCCL error check with place.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <span>
#include <vector>

#include "depthsort/sort/errors.hpp"

namespace depthsort::multi_gpu {

// An NCCL call failed: the call, the place, NCCL's message and its last-error text.
class NcclError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void throw_nccl_error(int code, const char* call, const char* file, int line);

// Makes `device` current for the scope and restores the previous device after it.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// One communicator rank and one non-blocking stream per GPU, created with ncclCommInitAll.
// `priority` 0 is CUDA's default; StreamPriority::Highest asks for the device's greatest priority
// (the exchange's streams: their few NCCL blocks go first when a sort fills the GPU).
enum class StreamPriority { Default, Highest };

class NcclGroup {
 public:
  explicit NcclGroup(std::span<const int> devices, StreamPriority priority = StreamPriority::Default);
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const noexcept { return static_cast<int>(devices_.size()); }
  int device(int rank) const { return devices_.at(rank); }
  ncclComm_t comm(int rank) const { return comms_.at(rank); }
  cudaStream_t stream(int rank) const { return streams_.at(rank); }
  // Waits for every GPU's stream.
  void synchronize() const;

 private:
  void release() noexcept;

  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

// ncclGroupStart/End around the calls of every rank made by one thread (required when one
// thread drives several ranks, or they would wait on each other).
class NcclGroupCall {
 public:
  NcclGroupCall();
  ~NcclGroupCall() noexcept(false);
  NcclGroupCall(const NcclGroupCall&) = delete;
  NcclGroupCall& operator=(const NcclGroupCall&) = delete;
};

}  // namespace depthsort::multi_gpu

#define DEPTHSORT_NCCL_CHECK(call)                                                                                   \
  do {                                                                                                               \
    const ncclResult_t depthsort_nccl_status_ = (call);                                                              \
    if (depthsort_nccl_status_ != ncclSuccess)                                                                       \
      ::depthsort::multi_gpu::throw_nccl_error(static_cast<int>(depthsort_nccl_status_), #call, __FILE__, __LINE__); \
  } while (0)
