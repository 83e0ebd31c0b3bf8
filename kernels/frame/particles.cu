// Particle simulation of the demo: one thread per particle, writing straight into the mapped GL
// vertex buffer (position, size, colour); the velocity and life state stay in CUDA memory.
#include <cuda_runtime.h>

#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/particles.hpp"

namespace depthsort {

namespace {

constexpr int kBlock = 256;

__global__ void particles_init_kernel(ParticleState* __restrict__ state, ParticleVertex* __restrict__ vertices,
                                      std::size_t n, EmitterParams params) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  ParticleState s{};
  ParticleVertex v{};
  particle_init(s, v, params, static_cast<std::uint32_t>(i));
  state[i] = s;
  vertices[i] = v;
}

__global__ void particles_step_kernel(ParticleState* __restrict__ state, ParticleVertex* __restrict__ vertices,
                                      std::size_t n, EmitterParams params) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  ParticleState s = state[i];
  ParticleVertex v = vertices[i];
  particle_step(s, v, params);
  state[i] = s;
  vertices[i] = v;
}

}  // namespace

void launch_particles_init(ParticleState* state, ParticleVertex* vertices, std::size_t n, const EmitterParams& params,
                           cudaStream_t stream) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned int>((n + kBlock - 1) / kBlock);
  particles_init_kernel<<<grid, kBlock, 0, stream>>>(state, vertices, n, params);
  DEPTHSORT_CUDA_CHECK_LAUNCH("particles_init_kernel");
}

void launch_particles_step(ParticleState* state, ParticleVertex* vertices, std::size_t n, const EmitterParams& params,
                           cudaStream_t stream) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned int>((n + kBlock - 1) / kBlock);
  particles_step_kernel<<<grid, kBlock, 0, stream>>>(state, vertices, n, params);
  DEPTHSORT_CUDA_CHECK_LAUNCH("particles_step_kernel");
}

}  // namespace depthsort
