// Factories of the library baselines and the CPU sorter (registered in kernels/sort/registry.cpp).
#pragma once

#include <memory>

#include "depthsort/sort/sorter.hpp"

namespace depthsort {

inline constexpr OptionSpec kCubRadixOptions[] = {
    {"range",
     "sort only the bits the keys' range spans: a reduction finds the smallest and largest key; where they span 24 "
     "bits or fewer, the keys minus the smallest are sorted by CUB on those bits, then restored",
     0, 0, 1},
};

// The options of `cub-radix` (kCubRadixOptions), read once by the factory. An option not given
// keeps its default: make_cub_radix_sorter({}) is cub-radix with its default options (the fallback
// other sorters take).
struct CubRadixOptions {
  bool range = false;

  static CubRadixOptions from(const OptionValues& values) {
    CubRadixOptions o;
    const auto range = values.find("range");
    o.range = range != values.end() && range->second != 0;
    return o;
  }
  bool operator==(const CubRadixOptions&) const = default;
};

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_cub_merge_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_thrust_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_cpu_sorter(const OptionValues& options);

}  // namespace depthsort
