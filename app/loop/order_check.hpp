// The check that a frame's sorted order is back to front, as both pipelines keep it: the panel's
// light, the counts of checks and failures, and the last failure (a headless run's exit status).
// The checks themselves run asynchronously on the GPU path (launch_check_sorted) and on the host
// on the CPU path.
#pragma once

#include <cstdint>

namespace depthsort::app {

enum class CheckLight { None, Pending, Ok, Fail };

// bad_mesh counts the positions out of order in the single order of every primitive (or, with
// --separate-passes, in the triangles' order); bad_particles those of the particles' own order.
struct CheckState {
  CheckLight light = CheckLight::None;
  std::uint64_t frame = 0;  // frame whose order was checked last
  unsigned int bad_mesh = 0, bad_particles = 0;
  std::uint64_t checks = 0, failures = 0;
  // The last check that failed (valid when failures > 0), kept when later checks pass.
  std::uint64_t failed_frame = 0;
  unsigned int failed_mesh = 0, failed_particles = 0;
};

// Counts one finished check of frame `frame` (positions out of order in the mesh and particle
// orders) into `state`: both paths' bookkeeping.
void record_check(CheckState& state, std::uint64_t frame, unsigned int bad_mesh, unsigned int bad_particles);
// A headless run's status from its checks: 1 if any check failed (not only the last one), else 0.
inline int check_exit_status(const CheckState& state) noexcept { return state.failures > 0 ? 1 : 0; }

}  // namespace depthsort::app
