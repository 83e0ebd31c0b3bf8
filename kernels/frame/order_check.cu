// The order checks (order_check.hpp): each position against its neighbour and its own key, and
// every id marked once, then the unmarked (or twice-marked) ones counted.
#include "depthsort/frame/order_check.hpp"

#include "depthsort/sort/errors.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort {
namespace {

constexpr int kBlock = 256;

__global__ void check_sorted_kernel(const float* __restrict__ key_of_id, std::size_t id_count,
                                    const float* __restrict__ keys_out, const std::uint32_t* __restrict__ values_out,
                                    std::size_t n, unsigned int* __restrict__ bad_count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const unsigned int bad =
      __syncthreads_count(i < n && sorted_position_wrong(key_of_id, id_count, keys_out, values_out, n, i));
  if (threadIdx.x == 0 && bad) atomicAdd(bad_count, bad);
}

__global__ void check_order_kernel(const float* __restrict__ key_of_id, std::size_t id_count,
                                   const std::uint32_t* __restrict__ order, std::size_t n,
                                   unsigned int* __restrict__ bad_count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  bool wrong = false;
  if (i < n) {
    const std::uint32_t id = order[i];
    if (id >= id_count) {
      wrong = true;
    } else if (i + 1 < n) {
      const std::uint32_t next = order[i + 1];
      wrong = next < id_count && ordered_key(key_of_id[next]) < ordered_key(key_of_id[id]);
    }
  }
  const unsigned int bad = __syncthreads_count(wrong);
  if (threadIdx.x == 0 && bad) atomicAdd(bad_count, bad);
}

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

__global__ void count_unmarked_kernel(const std::uint32_t* __restrict__ marks, std::size_t n, unsigned int* bad_count) {
  unsigned int bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    bad += marks[i] != 1u;
  if (bad) atomicAdd(bad_count, bad);
}

// The per-position checks: one thread a position. The permutation's grid-stride kernels: enough
// blocks to fill the device, no more.
unsigned int grid_for(std::size_t n) { return primitives::grid_for(n, kBlock); }
unsigned grid_stride_for(std::size_t n) { return primitives::grid_for(n, 256, 8192); }

}  // namespace

void launch_check_sorted(const float* key_of_id, std::size_t id_count, const float* keys_out,
                         const std::uint32_t* values_out, std::size_t n, unsigned int* bad_count, cudaStream_t stream) {
  if (n == 0) return;
  check_sorted_kernel<<<grid_for(n), kBlock, 0, stream>>>(key_of_id, id_count, keys_out, values_out, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("check_sorted_kernel");
}

void launch_check_order(const float* key_of_id, std::size_t id_count, const std::uint32_t* order, std::size_t n,
                        unsigned int* bad_count, cudaStream_t stream) {
  if (n == 0) return;
  check_order_kernel<<<grid_for(n), kBlock, 0, stream>>>(key_of_id, id_count, order, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("check_order_kernel");
}

void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks, unsigned int* bad_count,
                              cudaStream_t stream) {
  if (n == 0) return;
  DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(marks, 0, n * sizeof(std::uint32_t), stream));
  mark_ids_kernel<<<grid_stride_for(n), 256, 0, stream>>>(values, n, marks, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("mark_ids_kernel");
  count_unmarked_kernel<<<grid_stride_for(n), 256, 0, stream>>>(marks, n, bad_count);
  DEPTHSORT_CUDA_CHECK_LAUNCH("count_unmarked_kernel");
}

}  // namespace depthsort
