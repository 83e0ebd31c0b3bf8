// The host side of the staging paths (staging.hpp), and the probe of the library's own code.
#include "sort/primitives/staging.hpp"

#include <cuda_runtime_api.h>

#include "depthsort/sort/errors.hpp"

namespace depthsort::primitives {

const char* staging_path_name(StagingPath path) {
  switch (path) {
    case StagingPath::PlainLoads:
      return "plain loads";
    case StagingPath::AsyncCopy:
      return "cp.async";
    case StagingPath::BulkCopy:
      return "bulk copy";
  }
  return "?";
}

int compiled_arch(const void* kernel) {
  cudaFuncAttributes attributes{};
  DEPTHSORT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.ptxVersion * 10;  // 75 for compute_75, as __CUDA_ARCH__ counts it 750
}

namespace {
__global__ void arch_probe_kernel() {}
}  // namespace

int library_arch() { return compiled_arch(arch_probe_kernel); }

}  // namespace depthsort::primitives
