// Particle systems for the demo: an emitter (fountain with a velocity cone), gravity, a curl-like
// divergence-free swirl, lifetime, and colour and size over life. The per-particle step is
// __host__ __device__: the GPU path runs it in CUDA straight into the mapped GL vertex buffer, the
// CPU path runs the same function on the host.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "depthsort/frame/depth.hpp"
#include "depthsort/sort/keys.hpp"

namespace depthsort {

// Simulation state that only the simulation reads (the GL vertex buffer holds position, size, colour).
struct ParticleState {
  float vx, vy, vz;
  float age;   // seconds since spawn
  float life;  // seconds
  std::uint32_t rng;
};

struct EmitterParams {
  float origin[3] = {0.0f, -1.0f, 0.0f};
  float spread = 0.35f;  // cone half-width (radians-ish) around +y
  float speed = 2.6f;    // initial speed, world units/s
  float gravity = 2.0f;  // downward acceleration
  float curl = 0.8f;     // strength of the swirl field
  float life_min = 1.5f, life_max = 3.0f;
  float size_start = 0.05f, size_end = 0.02f;
  std::uint32_t colour_start = 0xE040C8FFu;  // RGBA8, r in the low byte: warm yellow, alpha 0.88
  std::uint32_t colour_end = 0x20FF5028u;    // blue, fading out
  float time = 0.0f;                         // seconds since start (animates the swirl)
  float dt = 1.0f / 60.0f;
};

DEPTHSORT_HD std::uint32_t pcg_next(std::uint32_t& state) {
  state = state * 747796405u + 2891336453u;
  std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}
DEPTHSORT_HD float rng_unit(std::uint32_t& state) {  // [0, 1)
  return static_cast<float>(pcg_next(state) >> 8) * (1.0f / 16777216.0f);
}

DEPTHSORT_HD std::uint32_t lerp_rgba(std::uint32_t a, std::uint32_t b, float t) {
  std::uint32_t out = 0;
  for (int c = 0; c < 4; ++c) {
    const float x = static_cast<float>((a >> (8 * c)) & 0xFFu);
    const float y = static_cast<float>((b >> (8 * c)) & 0xFFu);
    out |= static_cast<std::uint32_t>(x + (y - x) * t + 0.5f) << (8 * c);
  }
  return out;
}

// (Re)spawns particle `index` at the emitter with age `age` (positions integrated analytically,
// so a fresh system starts in its steady state).
DEPTHSORT_HD void particle_spawn(ParticleState& s, ParticleVertex& v, const EmitterParams& e, float age) {
  const float phi = 6.2831853f * rng_unit(s.rng);
  const float r = e.spread * sqrtf(rng_unit(s.rng));
  const float speed = e.speed * (0.8f + 0.4f * rng_unit(s.rng));
  const float dx = r * cosf(phi), dz = r * sinf(phi);
  const float norm = 1.0f / sqrtf(1.0f + dx * dx + dz * dz);
  s.vx = dx * norm * speed;
  s.vy = norm * speed;
  s.vz = dz * norm * speed;
  s.life = e.life_min + (e.life_max - e.life_min) * rng_unit(s.rng);
  s.age = age * s.life;
  const float t = s.age;
  v.x = e.origin[0] + s.vx * t;
  v.y = e.origin[1] + s.vy * t - 0.5f * e.gravity * t * t;
  v.z = e.origin[2] + s.vz * t;
  s.vy -= e.gravity * t;
}

DEPTHSORT_HD void particle_colour_size(const ParticleState& s, ParticleVertex& v, const EmitterParams& e) {
  const float t = fminf(fmaxf(s.age / s.life, 0.0f), 1.0f);
  v.size = e.size_start + (e.size_end - e.size_start) * t;
  v.rgba = lerp_rgba(e.colour_start, e.colour_end, t);
}

DEPTHSORT_HD void particle_init(ParticleState& s, ParticleVertex& v, const EmitterParams& e, std::uint32_t index) {
  s.rng = index * 2654435761u + 12345u;
  pcg_next(s.rng);
  particle_spawn(s, v, e, rng_unit(s.rng));
  particle_colour_size(s, v, e);
}

// One explicit Euler step of dt: gravity plus the swirl field (sin y, sin z, sin x), whose
// divergence is zero like curl noise; a particle past its life respawns at the emitter.
DEPTHSORT_HD void particle_step(ParticleState& s, ParticleVertex& v, const EmitterParams& e) {
  s.age += e.dt;
  if (s.age >= s.life) {
    particle_spawn(s, v, e, 0.0f);
  } else {
    const float f = 2.1f, w = 0.7f * e.time;
    s.vx += e.dt * e.curl * sinf(f * v.y + w);
    s.vy += e.dt * (e.curl * sinf(f * v.z + 1.3f * w) - e.gravity);
    s.vz += e.dt * e.curl * sinf(f * v.x - w);
    v.x += s.vx * e.dt;
    v.y += s.vy * e.dt;
    v.z += s.vz * e.dt;
  }
  particle_colour_size(s, v, e);
}

// GPU launches (kernels/frame/particles.cu), stream-ordered, none allocating.
void launch_particles_init(ParticleState* state, ParticleVertex* vertices, std::size_t n, const EmitterParams& params,
                           cudaStream_t stream);
void launch_particles_step(ParticleState* state, ParticleVertex* vertices, std::size_t n, const EmitterParams& params,
                           cudaStream_t stream);

}  // namespace depthsort
