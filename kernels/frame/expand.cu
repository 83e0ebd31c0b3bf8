// The expanded draw path's kernel (expand.hpp): every sorted position becomes three ready vertices.
#include <cuda_runtime.h>

#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/expand.hpp"

namespace depthsort {

namespace {

constexpr int kBlock = 256;
constexpr int kWords = 3 * sizeof(ExpandedVertex) / sizeof(std::uint32_t);  // a position's 60 bytes
static_assert(sizeof(ExpandedVertex) % sizeof(std::uint32_t) == 0);

// One thread a position builds its three vertices in shared memory; the block then stores its
// positions' bytes as consecutive words, so each warp's store covers whole sectors instead of
// every thread writing its own 60-byte stride.
__global__ void expand_kernel(const MeshVertex* __restrict__ vertices, const std::uint32_t* __restrict__ indices,
                              std::size_t triangles, const ParticleVertex* __restrict__ particles, std::size_t n,
                              const std::uint32_t* __restrict__ order, const std::uint32_t* __restrict__ segment_starts,
                              std::uint32_t segment_count, ExpandView view, ExpandedVertex* __restrict__ out) {
  __shared__ ExpandedVertex tile[3 * kBlock];
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(kBlock);
  const std::size_t r = first + threadIdx.x;
  if (r < n)
    expand_primitive(vertices, indices, triangles, particles, n, order, segment_starts, segment_count, view, r,
                     &tile[3 * threadIdx.x]);
  __syncthreads();
  const std::size_t count = n - first < static_cast<std::size_t>(kBlock) ? n - first : kBlock;
  const auto* from = reinterpret_cast<const std::uint32_t*>(tile);
  auto* to = reinterpret_cast<std::uint32_t*>(out + 3 * first);
  for (std::size_t w = threadIdx.x; w < count * kWords; w += kBlock) to[w] = from[w];
}

}  // namespace

void launch_expand(const MeshVertex* vertices, const std::uint32_t* indices, std::size_t triangles,
                   const ParticleVertex* particles, std::size_t n, const std::uint32_t* order, const Segments& segments,
                   const ExpandView& view, ExpandedVertex* out, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<unsigned int>((n + kBlock - 1) / kBlock);
  expand_kernel<<<blocks, kBlock, 0, stream>>>(vertices, indices, triangles, particles, n, order, segments.starts,
                                               segments.starts ? segments.count : 0u, view, out);
  DEPTHSORT_CUDA_CHECK_LAUNCH("expand_kernel");
}

}  // namespace depthsort
