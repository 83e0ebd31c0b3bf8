// depthsort-multigpu: tests and benchmark of Sintorn & Assarsson's Section 6.1 split on N GPUs
// (kernels/sort/multi_gpu/, docs/algorithms/multi-gpu.md). A program of its own so that only it
// needs libnccl at run time.
//
//   --test                 both cases (pairs on GPU 0 / pairs spread over the GPUs) with 1, 2 and
//                          every GPU found, with and without sub-ranges, every distribution, sizes
//                          around the split points, inputs that put everything on one side; exact
//                          against the CPU reference; last line "N passed, M failed". Exit 77
//                          (ctest: skipped) without enough GPUs.
//   --bench                both cases against one GPU's `hybrid` and `cub-radix` in the same run,
//                          NCCL's and the copy engines' own rates for each sort's transfers, the
//                          other transport, one sub-range and all 32 bits beside the default rows,
//                          every output checked on the GPUs, and the weighted split's model.
//   --info                 the GPUs, their peer access and NCCL's version.
// See usage() for the flags.
// Here: the command's dispatch (the flags: cli.cpp; --test: exact_test.cpp; --bench: bench_run.cpp).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "depthsort/sort/errors.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "gpu_inputs.hpp"

namespace depthsort::multi_gpu {
namespace {

// What the logs need to be read later: NCCL's version, the GPUs, and whether they reach each
// other directly (NVLink / PCIe peer access).
void print_machine(int found) {
  int version = 0;
  DEPTHSORT_NCCL_CHECK(ncclGetVersion(&version));
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  std::cout << "NCCL " << version / 10000 << '.' << (version / 100) % 100 << '.' << version % 100 << " (built with "
            << NCCL_MAJOR << '.' << NCCL_MINOR << '.' << NCCL_PATCH
            << "), NCCL_NVLS_ENABLE=" << (nvls ? nvls : "(unset)") << '\n';
  int runtime = 0, driver = 0;
  DEPTHSORT_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  DEPTHSORT_CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::cout << "CUDA runtime " << runtime / 1000 << '.' << (runtime % 1000) / 10 << ", driver API " << driver / 1000
            << '.' << (driver % 1000) / 10 << '\n';
  for (int d = 0; d < found; ++d) {
    cudaDeviceProp prop{};
    DEPTHSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    std::cout << "GPU " << d << ": " << prop.name << ", " << prop.multiProcessorCount << " SMs, "
              << prop.totalGlobalMem / (1u << 30) << " GiB; peer access to";
    for (int p = 0; p < found; ++p) {
      if (p == d) continue;
      int can = 0;
      DEPTHSORT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, d, p));
      std::cout << ' ' << p << (can ? ":yes" : ":no");
    }
    std::cout << '\n';
  }
  std::cout << std::flush;
}

int run(int argc, char** argv) {
  std::string error;
  const std::optional<Config> config = parse_args(argc, argv, error);
  if (!config) {
    std::cerr << "depthsort-multigpu: " << error << '\n' << usage();
    return kExitUsage;
  }
  if (config->help || (!config->test && !config->bench && !config->info)) {
    std::cout << usage();
    return config->help ? 0 : kExitUsage;
  }
  // NVLink multicast (NVLS) stays off: NCCL would otherwise create multicast objects
  // (cuMulticastCreate), which can take a shared host's GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int found = 0;
  const cudaError_t status = cudaGetDeviceCount(&found);
  if (status != cudaSuccess) found = 0;
  const std::string why_none = status != cudaSuccess ? std::string(": ") + cudaGetErrorString(status) : "";
  if (config->require_gpus > found) {
    std::cout << "skipped: fewer than "
              << (config->require_gpus == 2 ? std::string("two") : std::to_string(config->require_gpus))
              << " GPUs (found " << found << why_none << ")\n";
    return kExitSkipped;
  }
  if (found == 0) {
    std::cout << "skipped: no usable CUDA device" << why_none << "\n";
    return kExitSkipped;
  }
  for (const int N : config->gpus)
    if (N > found) {
      std::cout << "skipped: --gpus " << N << " but " << found << " GPU(s) found\n";
      return kExitSkipped;
    }
  found = std::min(found, kMaxGpus);
  print_machine(found);
  int result = 0;
  if (config->test) result = run_tests(*config, found);
  if (config->bench && result == 0) result = run_bench(*config, found);
  return result;
}

}  // namespace
}  // namespace depthsort::multi_gpu

int main(int argc, char** argv) {
  try {
    return depthsort::multi_gpu::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "depthsort-multigpu: " << e.what() << '\n';
    return 1;
  }
}
