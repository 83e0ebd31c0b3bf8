#include "loop/sorter_choice.hpp"

#include <cuda_runtime.h>

#include <filesystem>
#include <stdexcept>
#include <utility>

namespace depthsort::app {

namespace {

// Why CUDA cannot run, in a presenter's words. Without an NVIDIA GPU the CUDA runtime reports
// "CUDA driver version is insufficient" (no driver library to ask) or "no CUDA-capable device":
// that reads like a broken driver, so it is said as what it is. A loaded NVIDIA kernel driver
// means there is a GPU and the message is the runtime's; a GPU whose architecture the build lacks
// keeps its own message (cuda_device_usable).
std::string no_gpu_reason(const std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  cudaGetLastError();
  const bool nvidia_driver = std::filesystem::exists("/proc/driver/nvidia/version");
  if ((status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) &&
      !nvidia_driver)
    return "no NVIDIA GPU on this machine";
  if (status == cudaErrorInsufficientDriver)
    return "the NVIDIA driver is older than this build's CUDA runtime needs (update the driver)";
  return why;
}

}  // namespace

SorterChoice selected_sorter(const Settings& settings) {
  return SorterChoice{&sorter_registry()[static_cast<std::size_t>(settings.sorter_index)], settings.options};
}

std::vector<SorterChoice> cycle_choices(Backend backend) {
  std::vector<SorterChoice> choices;
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != backend || !info.is_available(nullptr)) continue;
    for (OptionValues& options : option_variants(info)) choices.push_back(SorterChoice{&info, std::move(options)});
  }
  return choices;
}

const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu) {
  const SorterInfo* cpu = nullptr;
  for (const SorterInfo& info : sorter_registry())
    if (info.backend == Backend::Cpu && !cpu) cpu = &info;
  if (!cpu) throw std::logic_error("the sorter registry has no CPU sorter");
  std::string why;
  const bool gpu_ok = !force_cpu && cuda_device_usable(&why);
  if (!force_cpu && !gpu_ok) why = no_gpu_reason(why);
  if (force_cpu) why = "--cpu given";
  if (!requested.empty()) {
    const SorterInfo* info = find_sorter(requested);
    if (!info) throw std::invalid_argument("unknown sorter '" + requested + "'; valid sorters: " + sorter_names());
    if (info->backend == Backend::Cpu) {
      why_cpu = "--sorter " + requested + " is a CPU sorter";
      return *info;
    }
    std::string not_here;
    if (gpu_ok && info->is_available(&not_here)) return *info;
    why_cpu = "--sorter " + requested + " needs a GPU (" + (gpu_ok ? not_here : why) + "); using the CPU sorter '" +
              std::string(cpu->name) + "'";
    return *cpu;
  }
  if (gpu_ok) {
    // The demo opens with the project's headline algorithm, Sintorn & Assarsson's hybrid sort.
    if (const SorterInfo* hybrid = find_sorter("hybrid"); hybrid && hybrid->is_available(nullptr)) return *hybrid;
    for (const SorterInfo& info : sorter_registry())
      if (info.backend == Backend::Gpu && info.is_available(nullptr)) return info;
    why = "no GPU sorter is available";
  }
  why_cpu = why;
  return *cpu;
}

}  // namespace depthsort::app
