#include "depthsort/host/memory_available.hpp"

#include <cuda_runtime_api.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace depthsort {

namespace {

// The "<key> <n> kB" line of a /proc file, in bytes.
std::optional<std::uint64_t> proc_kib(const char* path, const char* key) {
  std::FILE* file = std::fopen(path, "r");
  if (file == nullptr) return std::nullopt;
  std::optional<std::uint64_t> bytes;
  char line[256];
  const std::size_t key_length = std::strlen(key);
  while (std::fgets(line, sizeof line, file) != nullptr)
    if (std::strncmp(line, key, key_length) == 0) bytes = std::strtoull(line + key_length, nullptr, 10) * 1024;
  std::fclose(file);
  return bytes;
}

}  // namespace

std::optional<std::uint64_t> host_memory_available() {
  std::optional<std::uint64_t> available = proc_kib("/proc/meminfo", "MemAvailable:");
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t mapped = proc_kib("/proc/self/status", "VmSize:").value_or(0);
    const std::uint64_t room = limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0;
    available = std::min(available.value_or(room), room);
  }
  return available;
}

std::optional<std::uint64_t> device_memory_free() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return free_bytes;
}

}  // namespace depthsort
