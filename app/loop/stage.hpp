// What the frames run on: the scene, the renderer (its GL buffers and programs), the frame
// pipeline (GPU or CPU) with its sorters, and the GL timer of the draw and the panel. Built before
// the first frame; built again when the panel asks for another sorter or another scene, a user
// action outside the steady frame loop (allocating is fine then).
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "loop/frame_pipeline.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"
#include "settings.hpp"

namespace depthsort::app {

class Stage {
 public:
  // Where the frames are drawn: offscreen (headless) or the window, at width x height; the draw
  // path sizes the renderer's buffers once.
  struct Target {
    bool offscreen = false;
    int width = 0, height = 0;
    DrawPath draw_path = DrawPath::Pull;
  };

  Stage(const Target& target, Scene scene, std::span<const SorterChoice> choices);
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  // The renderer and the pipeline built again for `choices`, the first selected (with
  // --cycle-sorters every choice is created and reserved here, once).
  void build(std::span<const SorterChoice> choices);
  // The scene built again from `spec` (the old one's buffers freed first, so that its memory counts
  // as free), then build(choices). After a throw the stage has no pipeline until build() succeeds.
  void rebuild_scene(const SceneSpec& spec, bool cpu_path, std::span<const SorterChoice> choices);

  const Scene& scene() const noexcept { return scene_; }
  Renderer& renderer() noexcept { return *renderer_; }
  const Renderer& renderer() const noexcept { return *renderer_; }
  FramePipeline& pipeline() noexcept { return *pipeline_; }
  const FramePipeline& pipeline() const noexcept { return *pipeline_; }
  GlTimerRing& gl_timer() noexcept { return *gl_timer_; }

 private:
  Target target_;
  Scene scene_;
  // Declaration order = construction order; destruction runs backwards (pipeline first).
  std::optional<Renderer> renderer_;
  std::unique_ptr<FramePipeline> pipeline_;
  std::optional<GlTimerRing> gl_timer_;
};

}  // namespace depthsort::app
