// Sintorn & Assarsson (JPDC 2008), Section 6.1 on N GPUs: NCCL communicators and streams.
#include "sort/multi_gpu/nccl_comms.hpp"

#include <exception>
#include <sstream>
#include <string>

namespace depthsort::multi_gpu {

void throw_nccl_error(int code, const char* call, const char* file, int line) {
  const auto status = static_cast<ncclResult_t>(code);
  std::ostringstream message;
  message << call << " failed at " << file << ':' << line << ": " << ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(nullptr); last && *last) message << " (" << last << ')';
  if (status == ncclSystemError || status == ncclUnhandledCudaError)
    message << "; check that every GPU is visible (CUDA_VISIBLE_DEVICES) and run with NCCL_DEBUG=WARN";
  throw NcclError(message.str());
}

DeviceScope::DeviceScope(int device) {
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&previous_));
  DEPTHSORT_CUDA_CHECK(cudaSetDevice(device));
}

DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

NcclGroup::NcclGroup(std::span<const int> devices, StreamPriority priority) : devices_(devices.begin(), devices.end()) {
  if (devices_.empty()) throw Error("multi_gpu: no GPU given");
  comms_.assign(devices_.size(), nullptr);
  DEPTHSORT_NCCL_CHECK(ncclCommInitAll(comms_.data(), size(), devices_.data()));
  try {
    for (const int device : devices_) {
      DeviceScope scope(device);
      int least = 0, greatest = 0;  // CUDA: lower numbers are higher priorities
      DEPTHSORT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      cudaStream_t stream = nullptr;
      DEPTHSORT_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking,
                                                        priority == StreamPriority::Highest ? greatest : 0));
      streams_.push_back(stream);
    }
  } catch (...) {
    release();
    throw;
  }
}

NcclGroup::~NcclGroup() { release(); }

void NcclGroup::release() noexcept {
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaStreamSynchronize(streams_[r]);
    cudaStreamDestroy(streams_[r]);
  }
  streams_.clear();
  for (ncclComm_t comm : comms_)
    if (comm) ncclCommDestroy(comm);
  comms_.clear();
}

void NcclGroup::synchronize() const {
  for (int r = 0; r < size(); ++r) {
    DeviceScope scope(devices_[r]);
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(streams_[r]));
  }
}

NcclGroupCall::NcclGroupCall() { DEPTHSORT_NCCL_CHECK(ncclGroupStart()); }

NcclGroupCall::~NcclGroupCall() noexcept(false) {
  const ncclResult_t status = ncclGroupEnd();
  // While an exception unwinds, the group is closed and its status dropped: the first error wins.
  if (status != ncclSuccess && std::uncaught_exceptions() == 0)
    throw_nccl_error(static_cast<int>(status), "ncclGroupEnd()", __FILE__, __LINE__);
}

}  // namespace depthsort::multi_gpu
