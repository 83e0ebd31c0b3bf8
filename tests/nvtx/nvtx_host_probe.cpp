// A host-only stand-in for one frame of the demo, for the CPU test of the NVTX recorder: the same
// NvtxRange and StepTimer (host clock) code the demo and the sorters use, around a real sort by the
// registry's CPU sorter. Prints the timings the way the demo's --json names them, one a line
// ("frame/depth", "sort/radix passes", ...), so the test can compare them with what was recorded.
#include <cstdint>
#include <iostream>
#include <memory>
#include <vector>

#include "depthsort/sort/registry.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"

int main() {
  using namespace depthsort;
  const SorterInfo* cpu = nullptr;
  for (const SorterInfo& info : sorter_registry())
    if (info.backend == Backend::Cpu) cpu = &info;
  if (cpu == nullptr) {
    std::cerr << "nvtx-host-probe: the registry has no CPU sorter\n";
    return 1;
  }
  std::unique_ptr<Sorter> sorter = cpu->create(default_options(*cpu));
  constexpr std::size_t n = 4096;
  sorter->reserve(n);
  std::vector<float> keys(n), keys_out(n);
  std::vector<std::uint32_t> values(n), values_out(n);
  StepTimer timer(TimerClock::Host);
  {
    const NvtxRange frame("frame");
    timer.begin_frame(nullptr);
    {
      StepScope step(timer, "depth");
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = static_cast<float>((i * 2654435761u) % 1000u);
        values[i] = static_cast<std::uint32_t>(i);
      }
    }
    {
      StepScope step(timer, "sort");
      sorter->sort({keys.data(), values.data(), keys_out.data(), values_out.data(), n});
    }
    timer.end_frame();
  }
  std::cout << cpu->name << '\n';  // the sorter, then the timings
  for (const StepTime& step : timer.wait_last()) std::cout << "frame/" << step.name << '\n';
  std::cout << "frame/compute\n";  // a sum, as the demo reports it: no range by design
  for (const StepTime& step : sorter->timer().wait_last()) std::cout << "sort/" << step.name << '\n';
  return 0;
}
