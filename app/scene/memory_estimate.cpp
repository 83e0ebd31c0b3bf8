#include "scene/memory_estimate.hpp"

#include <string>

#include "depthsort/frame/depth.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/frame/expand.hpp"
#include "depthsort/frame/frame_order.hpp"
#include "depthsort/host/memory_available.hpp"
#include "depthsort/frame/particles.hpp"

namespace depthsort::app {

MemoryNeed scene_memory(std::size_t triangles, std::size_t vertices, std::size_t particles, bool cpu_path,
                        std::size_t sorters, bool expanded) {
  constexpr std::size_t kIndices = 3 * sizeof(std::uint32_t);                  // one triangle's
  constexpr std::size_t kPairs = 2 * (sizeof(float) + sizeof(std::uint32_t));  // keys and values, in and out
  // Every sorter of the registry reserves at most about one more set of pairs as workspace; each
  // choice holds one sorter for the single order of every primitive and one per kind for
  // --separate-passes, so every primitive is covered twice.
  const std::size_t workspace = 2 * sorters * kPairs;
  MemoryNeed need;
  // The host mesh, and a second copy while tiling.
  need.host += 2 * (vertices * sizeof(MeshVertex) + triangles * kIndices);
  // GL: the separate passes' element buffers, and the single order's triangle list, id order and
  // segment ids (renderer.hpp).
  const std::size_t gl = vertices * sizeof(MeshVertex) + 2 * triangles * kIndices +
                         particles * (sizeof(ParticleVertex) + sizeof(std::uint32_t)) +
                         (triangles + particles) * 2 * sizeof(std::uint32_t);
  const std::size_t expanded_bytes = expanded ? (triangles + particles) * 3 * sizeof(ExpandedVertex) : 0;
  if (cpu_path) {
    need.host += 2 * expanded_bytes;  // software GL's buffer and the CPU pipeline's copy
    // Software GL keeps its buffers in host memory; the CPU pipeline copies the mesh, keeps the
    // element order and the particle state, and sorts on the host.
    need.host +=
        gl + vertices * sizeof(MeshVertex) + 2 * triangles * kIndices + triangles * (kPairs + workspace) +
        particles * (sizeof(ParticleState) + sizeof(ParticleVertex) + sizeof(std::uint32_t) + kPairs + workspace);
  } else {
    // The frame order unit's buffers (depthsort/frame/frame_order.hpp: pairs, ids, the check's,
    // depth-bucket's regions and its fallback's workspace) and the sorters'.
    need.device += expanded_bytes;
    need.device += gl + FrameOrder::bytes_for(triangles, triangles + particles) + triangles * (kIndices + workspace) +
                   particles * (sizeof(ParticleState) + workspace);
  }
  return need;
}

MemoryNeed frame_memory(int width, int height, bool screenshot, bool cpu_path) {
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  MemoryNeed need;
  (cpu_path ? need.host : need.device) += 2 * 4 * pixels;
  if (screenshot) need.host += 4 * 4 * pixels;
  return need;
}

std::string check_memory(const MemoryNeed& need, bool cpu_path, const std::string& what, const std::string& advice) {
  // 0: unknown, the check is skipped.
  const std::size_t host = host_memory_available().value_or(0);
  const std::size_t device = cpu_path ? 0 : device_memory_free().value_or(0);
  if (host > 0 && need.host > host)
    throw CapacityError(what + " needs about " + byte_text(need.host, ByteUnits::MiBOrGiB) +
                        " of host memory (estimate), but " + byte_text(host, ByteUnits::MiBOrGiB) + " are available; " +
                        advice);
  if (device > 0 && need.device > device)
    throw CapacityError(what + " needs about " + byte_text(need.device, ByteUnits::MiBOrGiB) +
                        " of GPU memory (estimate), but " + byte_text(device, ByteUnits::MiBOrGiB) + " are free; " +
                        advice);
  std::string line = "memory (estimate): " + byte_text(need.host, ByteUnits::MiBOrGiB) + " host";
  if (host > 0) line += " of " + byte_text(host, ByteUnits::MiBOrGiB) + " available";
  if (!cpu_path) {
    line += ", " + byte_text(need.device, ByteUnits::MiBOrGiB) + " GPU";
    if (device > 0) line += " of " + byte_text(device, ByteUnits::MiBOrGiB) + " free";
  }
  return line;
}

}  // namespace depthsort::app
