// Memory a run will need, estimated from its sizes before anything is built, and checked against
// what the machine has: a scene or a --frames count that cannot fit is refused in a second with
// the estimate, not after minutes of building and gigabytes of swap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace depthsort::app {

struct MemoryNeed {
  std::size_t host = 0, device = 0;
  MemoryNeed& operator+=(const MemoryNeed& o) {
    host += o.host;
    device += o.device;
    return *this;
  }
};

// The scene's buffers on either path, counted generously (the mesh as built and while tiled, the
// GL buffers, which software GL keeps in host memory, the depth keys and sorted orders, the
// sorters' workspace for `sorters` reserved sorters, particles and their state; with
// `expanded` (--draw-path expanded) the vertex buffer of three vertices a primitive, and on the
// CPU path its host copy).
MemoryNeed scene_memory(std::size_t triangles, std::size_t vertices, std::size_t particles, bool cpu_path,
                        std::size_t sorters, bool expanded = false);

// The picture: the framebuffer (RGBA8 colour and depth, 4 bytes a pixel each; host memory where
// software GL draws, the GPU's otherwise) and, with a screenshot, its pixels read back into host
// memory, their flipped copy, the PNG encoder's filtered rows and its output (4 bytes a pixel
// each, at most).
MemoryNeed frame_memory(int width, int height, bool screenshot, bool cpu_path);

// Throws CapacityError (depthsort/sort/errors.hpp) when `need` exceeds what is available
// (depthsort/host/memory_available.hpp: MemAvailable within ulimit -v, cudaMemGetInfo), with the
// estimate, what is available and `advice` (which flags to lower). Returns the console line that
// reports the estimate.
std::string check_memory(const MemoryNeed& need, bool cpu_path, const std::string& what, const std::string& advice);

}  // namespace depthsort::app
