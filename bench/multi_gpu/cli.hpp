// depthsort-multigpu's command line (CLI11, as depthsort and depthsort-bench read theirs).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "depthsort/harness/workload.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

namespace depthsort::multi_gpu {

struct Config {
  bool test = false, bench = false, info = false, help = false, check = false;
  std::vector<int> gpus;  // --bench: GPU counts to run (each uses GPUs 0..N-1); --test: the largest; empty: all
  int require_gpus = 0;   // skip (exit 77) with fewer
  int reps = 11, warmup = 2;
  int chunks = 0;  // sub-ranges per GPU; 0: auto
  int levels = 3;
  std::string local_sorter, local_options;  // empty: hybrid for the paper's cases, cub-radix for the distributed one
  Transport transport = Transport::Auto;
  bool cut_bits = true;  // false (--all-bits): cub-radix sorts all 32 bits of every sub-range
  std::size_t max_test_size = std::size_t{1} << 24;
  std::vector<std::size_t> sizes{std::size_t{1} << 24};
  Distribution dist = Distribution::Uniform;
  std::string csv;
};

// The --help text: flags and the CSV columns.
const char* usage();
// Parses argv; nullopt with *error set on a usage error (exit status 2). A --local-sorter that is
// not a GPU sorter of the registry is a usage error too, found before any GPU is touched.
std::optional<Config> parse_args(int argc, char** argv, std::string& error);

}  // namespace depthsort::multi_gpu
