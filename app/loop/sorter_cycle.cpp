#include "loop/sorter_cycle.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace depthsort::app {

MemorySample sample_memory(std::uint64_t frame, bool gpu) {
  MemorySample sample;
  sample.frame = frame;
  if (gpu) {
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
      sample.device_used = total - free_bytes;
    else
      cudaGetLastError();
  }
  // POSIX calls and a stack buffer: nothing allocated inside the frame loop.
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[128] = {};
    const ssize_t got = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    unsigned long long pages = 0, resident = 0;
    if (got > 0 && std::sscanf(buf, "%llu %llu", &pages, &resident) == 2)
      sample.host_resident = static_cast<std::size_t>(resident) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  }
  return sample;
}

void SorterCycle::reserve_samples(std::uint64_t frames) {
  if (active()) samples_.reserve(static_cast<std::size_t>(frames / kMemoryEvery + 2));
}

void SorterCycle::select(FramePipeline& pipeline, std::uint64_t frame) const noexcept {
  if (active()) pipeline.select(static_cast<std::size_t>(frame % choices_.size()));
}

void SorterCycle::finish(FramePipeline& pipeline, std::uint64_t frame, std::uint64_t frames) {
  if (!active()) return;
  pipeline.finish_checks();
  if ((frame % kMemoryEvery == 0 || frame + 1 == frames) && samples_.size() < samples_.capacity())
    samples_.push_back(sample_memory(frame, pipeline.on_gpu()));
}

std::string SorterCycle::names() const {
  std::string names;
  for (const SorterChoice& c : choices_) {
    if (!names.empty()) names += ", ";
    names += std::string(c.info->name);
    if (!c.options.empty()) names += " (" + format_options(c.options) + ")";
  }
  return names;
}

}  // namespace depthsort::app
