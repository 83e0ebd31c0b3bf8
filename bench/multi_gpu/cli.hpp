// depthsort-multigpu's command line (CLI11, as depthsort and depthsort-bench read theirs).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "depthsort/harness/workload.hpp"

namespace depthsort::multi_gpu {

struct Config {
  bool test = false, bench = false, help = false, check = false;
  int gpus = 0;          // 0: every GPU found
  int require_gpus = 0;  // skip (exit 77) with fewer
  int reps = 11, warmup = 2;
  std::size_t max_test_size = std::size_t{1} << 24;
  std::vector<std::size_t> sizes{std::size_t{1} << 24};
  Distribution dist = Distribution::Uniform;
  std::string csv;
};

// The --help text: flags and the CSV columns.
const char* usage();
// Parses argv; nullopt with *error set on a usage error (exit status 2).
std::optional<Config> parse_args(int argc, char** argv, std::string& error);

}  // namespace depthsort::multi_gpu
