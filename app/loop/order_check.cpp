#include "loop/order_check.hpp"

namespace depthsort::app {

void record_check(CheckState& state, std::uint64_t frame, unsigned int bad_mesh, unsigned int bad_particles) {
  state.frame = frame;
  state.bad_mesh = bad_mesh;
  state.bad_particles = bad_particles;
  ++state.checks;
  const bool ok = bad_mesh == 0 && bad_particles == 0;
  if (!ok) {
    ++state.failures;
    state.failed_frame = frame;
    state.failed_mesh = bad_mesh;
    state.failed_particles = bad_particles;
  }
  state.light = ok ? CheckLight::Ok : CheckLight::Fail;
}

}  // namespace depthsort::app
