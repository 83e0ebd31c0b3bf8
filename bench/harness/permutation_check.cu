// launch_check_permutation (permutation_check.hpp): every id marked once, then the unmarked (or
// twice-marked) ones counted.
#include "depthsort/harness/permutation_check.hpp"

#include "depthsort/sort/errors.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort {
namespace {

__global__ void mark_ids_kernel(const std::uint32_t* __restrict__ values, std::size_t n, std::uint32_t* marks,
                                unsigned int* bad_count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t v = values[i];
    if (v < n)
      atomicAdd(marks + v, 1u);
    else
      atomicAdd(bad_count, 1u);  // out of range: counted here (its own id is then missing too)
  }
}

__global__ void count_unmarked_kernel(const std::uint32_t* __restrict__ marks, std::size_t n,
                                      unsigned int* bad_count) {
  unsigned int bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    bad += marks[i] != 1u;
  if (bad) atomicAdd(bad_count, bad);
}

// Grid-stride kernels: enough blocks to fill the device, no more.
unsigned grid_for(std::size_t n) { return primitives::grid_for(n, 256, 8192); }

}  // namespace

void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks,
                              unsigned int* bad_count, cudaStream_t stream) {
  if (n == 0) return;
  DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(marks, 0, n * sizeof(std::uint32_t), stream));
  mark_ids_kernel<<<grid_for(n), 256, 0, stream>>>(values, n, marks, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("mark_ids_kernel");
  count_unmarked_kernel<<<grid_for(n), 256, 0, stream>>>(marks, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("count_unmarked_kernel");
}

}  // namespace depthsort
