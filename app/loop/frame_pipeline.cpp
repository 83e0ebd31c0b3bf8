#include "loop/frame_pipeline.hpp"

#include <stdexcept>
#include <utility>

namespace depthsort::app {

namespace {

std::unique_ptr<Sorter> make_sorter(const SorterChoice& choice, std::size_t n) {
  if (n == 0) return nullptr;
  std::unique_ptr<Sorter> sorter = choice.info->create(choice.options);
  sorter->reserve(n);
  return sorter;
}

}  // namespace

Segments FramePipeline::expand_segments(const FramePlan& plan) const {
  return plan.colour == ColourMode::Segment ? drawn_segments_ : Segments{};
}

ExpandView expand_view(const Camera& camera, const FramePlan& plan) {
  const glm::mat4 v = camera.view();  // column-major: v[col][row]; rigid, so rows 0 and 1 are the axes
  ExpandView e;
  for (int i = 0; i < 3; ++i) {
    e.right[i] = v[i][0];
    e.up[i] = v[i][1];
  }
  e.plane = camera.depth_plane();
  e.point_scale = plan.point_scale;
  e.colour_mode = static_cast<std::uint32_t>(plan.colour);
  return e;
}

std::size_t FramePipeline::workspace_bytes() const {
  std::size_t bytes = 0;
  for (const Slot& slot : slots_)
    bytes += (slot.all ? slot.all->workspace_bytes() : 0) + (slot.mesh ? slot.mesh->workspace_bytes() : 0) +
             (slot.particle ? slot.particle->workspace_bytes() : 0);
  return bytes;
}

void FramePipeline::make_sorters(std::span<const SorterChoice> choices, std::size_t triangles, std::size_t particles) {
  if (choices.empty()) throw std::logic_error("a frame pipeline needs at least one sorter");
  slots_.reserve(choices.size());
  for (const SorterChoice& choice : choices)
    slots_.push_back(Slot{choice, make_sorter(choice, triangles + particles), make_sorter(choice, triangles),
                          make_sorter(choice, particles)});
  current_ = 0;
}

}  // namespace depthsort::app
