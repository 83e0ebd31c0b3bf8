// The explicit registry of sorters (no static self-registration, which a static library's linker
// can drop). It feeds the demo's sorter combo, the `--sorter NAME` flag, the benchmark's
// `--sorters` list and the GPU test suite, which tests every entry automatically.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/sorter.hpp"

namespace depthsort {

// One tunable of a sorter: an integer in [min_value, max_value]; a flag has range [0, 1].
struct OptionSpec {
  std::string_view name;
  std::string_view help;
  int default_value;
  int min_value;
  int max_value;
  bool is_flag() const noexcept { return min_value == 0 && max_value == 1; }
};

using OptionValues = std::map<std::string, int, std::less<>>;

struct SorterInfo {
  std::string_view name;         // the --sorter NAME
  std::string_view origin;       // paper or library
  std::string_view description;  // one line
  Backend backend;
  bool stable;
  std::span<const OptionSpec> options;
  // True where the sorter can run here; otherwise fills *why_not.
  bool (*is_available)(std::string* why_not);
  std::unique_ptr<Sorter> (*create)(const OptionValues& options);
};

std::span<const SorterInfo> sorter_registry();
// nullptr if no sorter has that name.
const SorterInfo* find_sorter(std::string_view name);
// "a, b, c": for error messages listing what is valid.
std::string sorter_names();

OptionValues default_options(const SorterInfo& info);
// Parses "name=value,name=value" (a bare flag name means 1) over the defaults; throws OptionError
// naming the sorter, the bad option and the valid ones.
OptionValues parse_options(const SorterInfo& info, std::string_view text);
// The value of a declared option (throws OptionError if the name is not declared).
int option_value(const OptionValues& values, std::string_view name);
// "shuffle=1,buckets=1024": the inverse of parse_options, for tables and test names.
std::string format_options(const OptionValues& values);

// The option sets every test runs: the defaults, then each flag flipped from its default.
std::vector<OptionValues> option_variants(const SorterInfo& info);

// True if a CUDA device is present and runs this build's kernels; otherwise says why.
bool cuda_device_usable(std::string* why_not);
bool always_available(std::string* why_not);

}  // namespace depthsort
