// The exact per-pixel reference (--transparency reference): an A-buffer in GL 4.5 storage
// buffers. The build pass (shaders/abuffer.frag) keeps every fragment of every primitive, in any
// order, in a per-pixel linked list whose nodes come from one pool through an atomic counter;
// the resolve pass (shaders/abuffer_resolve.frag) sorts each pixel's list by depth and blends it
// back to front. The pool is the fragment budget: sized from the window and the free memory, or
// fixed (--fragment-budget). A fragment past it is not stored but counted for its pixel, and such
// pixels are counted and drawn in magenta stripes, never shown as right. Buffers are allocated
// by prepare(), which reallocates only on a new size or budget: never in a steady frame.
#pragma once

#include <cstddef>
#include <cstdint>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "loop/frame_plan.hpp"
#include "render/gl.hpp"
#include "render/pulled_draw.hpp"

namespace depthsort::app {

struct SceneBuffers;

// The words of the transparency passes' statistics buffer (binding 8), read back each frame.
enum StatsWord : int {
  kStatFragments = 0,          // fragments the A-buffer's build pass asked to store (the counter)
  kStatOverBudgetPixels = 1,   // pixels that lost fragments to the budget (the resolve)
  kStatDifferingPixels = 2,    // pixels beyond the tolerance (the difference view)
  kStatLargestDifference = 3,  // the largest channel difference, in steps of 1/255
  kStatNotCompared = 4,        // pixels the difference view could not compare (over the budget)
  kStatDeepestList = 5,        // the most fragments in one pixel's list
  kStatWords = 8
};

// Bytes of one node: RGBA8 colour, window depth, the next node.
inline constexpr std::size_t kNodeBytes = 12;
// Fragments a pixel the pool holds before any frame asked for more.
inline constexpr std::size_t kStartLayers = 16;

// The pool's size in fragments for a target of `pixels`: kStartLayers a pixel, or 5/4 of
// `wanted` (what a frame asked for) where that is more; within a quarter of `free_bytes`, within
// `block_limit` bytes (one storage block, the driver's GL_MAX_SHADER_STORAGE_BLOCK_SIZE) and
// below 2^32 - 1 (the lists' end marker); at least one fragment a pixel where those allow.
std::size_t abuffer_budget(std::size_t pixels, std::uint64_t free_bytes, std::uint64_t block_limit, std::size_t wanted);

// What this GL context's memory has free: the CUDA device's on NVIDIA's driver (GL and CUDA
// share it), else the host's (software GL keeps its buffers in host memory).
std::uint64_t gl_free_memory();

class ABuffer {
 public:
  ABuffer();

  // Sizes the buffers for a width x height target and the pool for `fixed_budget` fragments
  // (0: abuffer_budget of the free memory, grown to `wanted` where a frame asked for more).
  // Allocates only when the size or the budget changes.
  void prepare(int width, int height, std::size_t fixed_budget, std::size_t wanted);
  // The build pass: clears the lists, then draws every primitive (submission order: the lists
  // are sorted later) into them. The statistics buffer is bound at binding 8 by the caller.
  void build(const SceneBuffers& buffers, GLuint vao, const glm::mat4& view, const glm::mat4& projection,
             const FramePlan& plan);
  // The resolve pass into the bound target (full screen: it writes every pixel).
  void resolve(GLuint fullscreen_vao, glm::vec3 background);
  // Binds the per-pixel lost counts (binding 7) for the difference view.
  void bind_lost() const;

  std::size_t budget() const noexcept { return budget_; }
  // Every buffer's bytes: the per-pixel heads and lost counts and the pool.
  std::size_t bytes() const noexcept { return pixels_ * 8 + budget_ * kNodeBytes; }
  // The same for a target of `pixels` and a pool of `budget` fragments, before it is built.
  static std::size_t bytes_for(std::size_t pixels, std::size_t budget) noexcept {
    return pixels * 8 + budget * kNodeBytes;
  }
  bool fixed() const noexcept { return fixed_; }

 private:
  PulledProgram build_program_;
  GLint build_budget_ = -1, build_width_ = -1;
  GlProgram resolve_program_;
  GLint resolve_width_ = -1, resolve_height_ = -1, resolve_budget_ = -1, resolve_background_ = -1;
  GlBuffer heads_, lost_, nodes_;
  int width_ = 0, height_ = 0;
  std::size_t pixels_ = 0, budget_ = 0;
  bool fixed_ = false;
  std::uint64_t block_limit_ = 0;
};

}  // namespace depthsort::app
