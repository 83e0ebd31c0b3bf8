// The transparency modes' own passes (--transparency, settings.hpp): weighted blended OIT
// (McGuire & Bavoil 2013: one accumulation pass into two float targets, one composite), the exact
// per-pixel reference (render/abuffer.hpp), and the difference view (--difference: a mode's
// picture against the reference's, each drawn into a texture of its own, compared per pixel).
// The sorted and unsorted modes are the renderer's blended draw. The passes count what they see
// (fragments, pixels over the budget, pixels that differ) in one small storage buffer, copied
// after the frame into a ring of read-back buffers behind fences and read when done, so a window
// never waits for them. Per-size storage is made when a pass first needs it and again after a
// resize (user actions, outside the steady frame loop).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "loop/frame_plan.hpp"
#include "render/abuffer.hpp"
#include "render/gl.hpp"
#include "render/pulled_draw.hpp"

namespace depthsort::app {

class GlTimerRing;
struct SceneBuffers;

// The difference view's tolerance: a pixel differs where one of its channels differs by more
// than this many steps of 1/255 (the rounding of a few 8-bit blends stays within it).
inline constexpr int kDifferenceTolerance = 2;

struct TransparencyStats {
  // The last frame read back (a few frames late in a window; headless runs read every frame).
  bool reference = false;                // that frame built the A-buffer
  bool difference = false;               // that frame ran the difference view
  std::uint32_t fragments = 0;           // fragments the A-buffer was asked to store
  std::uint32_t over_budget_pixels = 0;  // pixels that lost fragments to the budget
  std::uint32_t differing_pixels = 0;    // pixels beyond kDifferenceTolerance
  std::uint32_t largest_difference = 0;  // in steps of 1/255
  std::uint32_t not_compared = 0;        // pixels the reference lost fragments at
  std::uint32_t deepest_list = 0;        // the most fragments in one pixel
  std::size_t budget = 0, pixels = 0;    // that frame's fragment budget and pixel count
  // Over the run: frames read with the A-buffer, and how many of them went over its budget.
  std::uint64_t reference_frames = 0, frames_over_budget = 0;
  std::uint32_t most_over_budget_pixels = 0;
  double differing_share() const noexcept {
    return pixels > 0 ? static_cast<double>(differing_pixels) / static_cast<double>(pixels) : 0.0;
  }
};

// The bytes each mode's own storage takes at the current size (allocated or, for a mode not yet
// used, what it would allocate; the A-buffer's pool as now sized, or its starting size).
struct TransparencyMemory {
  std::size_t wboit = 0, reference = 0, difference = 0;
};

class TransparencyPasses {
 public:
  TransparencyPasses();

  // The target's size; the per-size storage is made again when next used.
  void resize(int width, int height);
  // Reads back the statistics of finished frames; `wait`: up to the last frame, blocking.
  void collect(bool wait);
  // Before a frame's passes: its statistics zeroed, the buffer bound (binding 8).
  void begin_frame();
  // Weighted blended OIT into `target` (cleared to the background): two timed phases.
  void weighted(GLuint target, const SceneBuffers& buffers, GLuint pull_vao, const glm::mat4& view,
                const glm::mat4& projection, const FramePlan& plan, GlTimerRing& timer);
  // The per-pixel reference into `target`: the A-buffer's build and resolve, timed.
  void reference(GLuint target, const SceneBuffers& buffers, GLuint pull_vao, const glm::mat4& view,
                 const glm::mat4& projection, const FramePlan& plan, glm::vec3 background, GlTimerRing& timer);
  // The difference view's two offscreen targets (RGBA8 textures, the mode's with depth), made
  // when first asked for: the mode's picture and the reference's.
  GLuint mode_target();
  GLuint reference_target();
  // The difference view into `target`, from the two pictures drawn this frame: a timed phase.
  // With `mode_is_reference` the reference is compared with itself (its own picture twice).
  void difference(GLuint target, bool mode_is_reference, GlTimerRing& timer);
  // After the frame's passes: their statistics copied for reading back.
  void end_frame(bool reference, bool difference);

  const TransparencyStats& stats() const noexcept { return stats_; }
  TransparencyMemory memory(std::size_t fixed_budget) const noexcept;

 private:
  void bind_fullscreen(GLuint target) const;

  int width_ = 0, height_ = 0;
  GlVertexArray fullscreen_vao_;
  // Weighted blended OIT: RGBA16F sums, R16F revealage.
  PulledProgram accumulate_;
  GlProgram composite_;
  GlTexture accum_, revealage_;
  GlFramebuffer weighted_fbo_;
  // The per-pixel reference.
  std::optional<ABuffer> abuffer_;
  // The difference view: both pictures as textures, and its program.
  GlProgram difference_program_;
  GLint difference_width_ = -1, difference_tolerance_ = -1;
  GlTexture mode_colour_, reference_colour_;
  GlRenderbuffer mode_depth_;
  GlFramebuffer mode_fbo_, reference_fbo_;
  // The statistics: the live buffer the passes count into, and the read-back ring.
  GlBuffer live_;
  struct Slot {
    GlBuffer buffer;
    GlFence fence;
    bool pending = false, reference = false, difference = false;
    std::size_t budget = 0, pixels = 0;
  };
  static constexpr int kSlots = 4;
  std::array<Slot, kSlots> slots_;
  int next_slot_ = 0;
  TransparencyStats stats_;
};

}  // namespace depthsort::app
