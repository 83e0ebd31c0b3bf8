// Factories of the library baselines and the CPU sorter (registered in kernels/sort/core/registry.cpp).
#pragma once

#include <memory>

#include "depthsort/sorter.hpp"

namespace depthsort {

std::unique_ptr<Sorter> make_cub_radix_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_cub_merge_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_thrust_sorter(const OptionValues& options);
std::unique_ptr<Sorter> make_cpu_sorter(const OptionValues& options);

}  // namespace depthsort
