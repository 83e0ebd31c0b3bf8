// The host's side of a value posted by a kernel (pinned_mailbox.hpp).
#include "sort/primitives/pinned_mailbox.hpp"

#include <atomic>
#include <stdexcept>
#include <string>

#include "depthsort/sort/errors.hpp"

namespace depthsort::primitives {

void wait_for_post(std::uint32_t& sequence, std::uint32_t expected, const CudaEvent& posted_before,
                   std::string_view what) {
  const std::atomic_ref<std::uint32_t> posted(sequence);
  for (unsigned spin = 1;; ++spin) {
    if (posted.load(std::memory_order_acquire) == expected) return;
    if (spin % 1024 != 0) continue;
    const cudaError_t done = cudaEventQuery(posted_before.get());
    if (done == cudaErrorNotReady) continue;
    DEPTHSORT_CUDA_CHECK(done);
    if (posted.load(std::memory_order_acquire) == expected) return;
    throw std::logic_error(std::string(what) + ": the kernel ended without posting it");
  }
}

}  // namespace depthsort::primitives
