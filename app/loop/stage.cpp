#include "loop/stage.hpp"

#include <string>
#include <utility>

namespace depthsort::app {

Stage::Stage(const Target& target, Scene scene, std::span<const SorterChoice> choices)
    : target_(target), scene_(std::move(scene)) {
  build(choices);
}

void Stage::build(std::span<const SorterChoice> choices) {
  pipeline_.reset();
  renderer_.reset();
  renderer_.emplace(scene_, target_.offscreen, target_.width, target_.height, target_.draw_path);
  const SorterChoice& first = choices.front();
  pipeline_ = first.info->backend == Backend::Gpu ? make_gpu_pipeline(renderer_->buffers(), scene_, choices)
                                                  : make_cpu_pipeline(renderer_->buffers(), scene_, choices);
  // Software GL (the CPU path's llvmpipe) is timed on the host clock; its timer queries do not
  // cover the deferred rasterisation.
  gl_timer_.emplace(!pipeline_->on_gpu());
}

void Stage::rebuild_scene(const SceneSpec& spec, bool cpu_path, std::span<const SorterChoice> choices) {
  pipeline_.reset();
  renderer_.reset();
  MemoryBudget budget;
  budget.expanded = target_.draw_path == DrawPath::Expanded;
  std::string notes;  // the run's notes were said at its start
  scene_ = build_scene(spec, cpu_path, notes, budget);
  build(choices);
}

}  // namespace depthsort::app
