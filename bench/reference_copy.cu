#include "reference_copy.hpp"

#include <algorithm>
#include <cstdint>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/step_timer.hpp"

namespace depthsort::bench {
namespace {

// Grid-stride over both arrays as 4-word vectors, then the tail word by word: a copy kernel at the
// memory's speed, the ceiling a sort's step is compared with.
__global__ void copy_words(const uint4* __restrict__ a_in, uint4* __restrict__ a_out, const uint4* __restrict__ b_in,
                           uint4* __restrict__ b_out, std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    a_out[i] = a_in[i];
    b_out[i] = b_in[i];
  }
}

__global__ void copy_scalars(const std::uint32_t* a_in, std::uint32_t* a_out, const std::uint32_t* b_in,
                             std::uint32_t* b_out, std::size_t from, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = from + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    a_out[i] = a_in[i];
    b_out[i] = b_in[i];
  }
}

unsigned blocks_for(std::size_t items) {
  int device = 0, sms = 0;
  DEPTHSORT_CUDA_CHECK(cudaGetDevice(&device));
  DEPTHSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(std::min<std::size_t>((items + 255) / 256, static_cast<std::size_t>(sms) * 8));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void launch_reference_copy(const float* keys_in, const std::uint32_t* values_in, float* keys_out,
                           std::uint32_t* values_out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const NvtxRange range("reference copy");
  const auto* a_in = reinterpret_cast<const std::uint32_t*>(keys_in);
  auto* a_out = reinterpret_cast<std::uint32_t*>(keys_out);
  const bool vector = aligned16(a_in) && aligned16(a_out) && aligned16(values_in) && aligned16(values_out);
  const std::size_t vectors = vector ? n / 4 : 0;
  if (vectors > 0) {
    copy_words<<<blocks_for(vectors), 256, 0, stream>>>(
        reinterpret_cast<const uint4*>(a_in), reinterpret_cast<uint4*>(a_out),
        reinterpret_cast<const uint4*>(values_in), reinterpret_cast<uint4*>(values_out), vectors);
    DEPTHSORT_CUDA_CHECK(cudaGetLastError());
  }
  // The rest: fewer than 4 words, or every word where a pointer is not 16-byte aligned.
  if (const std::size_t from = vectors * 4; from < n) {
    copy_scalars<<<blocks_for(n - from), 256, 0, stream>>>(a_in, a_out, values_in, values_out, from, n);
    DEPTHSORT_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace depthsort::bench
