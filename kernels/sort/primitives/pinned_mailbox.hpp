// A small value a kernel hands to the host through page-locked memory: the kernel writes the value
// and then its sequence number, and the host watches for the number. No copy and no stream
// synchronisation after the kernel, whose few microseconds of an idle device each sort would pay.
// Used where a sorter's host code must know a device result before it goes on: the key range
// (key_range.hpp) and run-bucket's verdict on its bucket path. Sorts on one instance run from one
// host thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"

namespace depthsort::primitives {

// The value as the device hands it over: `sequence` is written last.
template <typename T>
struct Posted {
  T value{};
  std::uint32_t sequence = 0;
};

#ifdef __CUDACC__
// Posts `value` numbered `sequence`, from one thread, after everything it must follow.
template <typename T>
__device__ void post_to_host(Posted<T>* slot, const T& value, std::uint32_t sequence) {
  slot->value = value;
  __threadfence_system();
  *static_cast<volatile std::uint32_t*>(&slot->sequence) = sequence;
}
#endif

// Spins until `sequence` (written by the device) reads `expected`. Every 1024 spins it asks
// `posted_before` (an event recorded after the posting kernel) whether the stream got there: a
// failed launch is reported, and a kernel that ended without posting is an error naming `what`.
void wait_for_post(std::uint32_t& sequence, std::uint32_t expected, const CudaEvent& posted_before,
                   std::string_view what);

template <typename T>
class PinnedMailbox {
 public:
  PinnedMailbox() = default;
  // `what` (a string literal) names the value in errors.
  explicit PinnedMailbox(const char* what)
      : slot_(1), posted_before_(std::make_unique<CudaEvent>(cudaEventDisableTiming)), what_(what) {
    slot_[0] = Posted<T>{};
  }
  // Where the next kernel posts, and the number it posts with (one post per wait).
  Posted<T>* slot() { return slot_.device_data(); }
  std::uint32_t next_sequence() { return ++sequence_; }

  // The value posted with the last next_sequence() by a kernel queued on `stream` before this call.
  T wait(cudaStream_t stream) {
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(posted_before_->get(), stream));
    wait_for_post(slot_[0].sequence, sequence_, *posted_before_, what_);
    return slot_[0].value;
  }

 private:
  PinnedBuffer<Posted<T>> slot_;
  std::unique_ptr<CudaEvent> posted_before_;
  const char* what_ = "";
  std::uint32_t sequence_ = 0;
};

}  // namespace depthsort::primitives
