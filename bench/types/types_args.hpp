// The command line of depthsort-mms-types, host code apart from the CUDA program so that the CPU
// tests (tests/bench/) parse it in-process.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace depthsort::mms_types {

struct TypesOptions {
  std::vector<std::size_t> sizes{std::size_t{1} << 20, std::size_t{1} << 24};
  std::vector<int> ks{8, 16};
  int reps = 9;
  std::string csv;  // empty: no CSV
  bool help = false;
};

// The largest --sizes and --reps values.
constexpr std::size_t kMaxTypesSize = std::size_t{1} << 30;
constexpr int kMaxTypesReps = 1000;

extern const char* const kTypesUsage;

struct TypesArgs {
  TypesOptions options;
  std::string error;  // non-empty: a usage error (exit status 2), naming the flag
};

// Parses the arguments after the program name: --sizes LIST, --k LIST, --reps N, --csv FILE
// (each also as --flag=value, the last occurrence counting) and --help/-h. Counts are spelled as
// count_text.hpp reads them (1M, 2^24, 1000000).
TypesArgs parse_types_args(std::span<const std::string_view> args);

}  // namespace depthsort::mms_types
