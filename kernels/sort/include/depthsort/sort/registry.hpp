// The explicit registry of sorters, on top of the sorters themselves: each declares its factory,
// options and description with the types of sorter.hpp, and registry.cpp lists them all (no static
// self-registration, which a static library's linker can drop). It feeds the demo's sorter combo,
// the `--sorter NAME` flag, the benchmark's `--sorters` list and the GPU test suite, which tests
// every entry automatically.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/sort/sorter.hpp"

namespace depthsort {

std::span<const SorterInfo> sorter_registry();
// nullptr if no sorter has that name.
const SorterInfo* find_sorter(std::string_view name);
// "a, b, c": for error messages listing what is valid.
std::string sorter_names();

OptionValues default_options(const SorterInfo& info);
// Parses "name=value,name=value" (a bare flag name means 1) over the defaults; throws OptionError
// naming the sorter, the bad option and the valid ones.
OptionValues parse_options(const SorterInfo& info, std::string_view text);
// "shuffle=1,buckets=1024": the inverse of parse_options, for tables and test names.
std::string format_options(const OptionValues& values);

// The option sets every test runs: the defaults, then each flag flipped from its default.
std::vector<OptionValues> option_variants(const SorterInfo& info);

}  // namespace depthsort
