// Which sorters a run sorts with: the one the command line asks for where it can run (else the
// CPU sorter, saying why), the one the settings select, and every variant --cycle-sorters goes
// through.
#pragma once

#include <string>
#include <vector>

#include "depthsort/sort/registry.hpp"
#include "settings.hpp"

namespace depthsort::app {

// One sorter a pipeline can sort with: a registry entry and its options.
struct SorterChoice {
  const SorterInfo* info = nullptr;
  OptionValues options;
};
// The sorter the settings select (their registry index and options).
SorterChoice selected_sorter(const Settings& settings);

// The sorters --cycle-sorters goes through on this path: every available registry sorter of the
// path's backend, each with its option_variants() (defaults, then each flag flipped).
std::vector<SorterChoice> cycle_choices(Backend backend);

// The registry entry a run uses: --sorter NAME, else hybrid (or, if it cannot run, the first usable
// GPU sorter) where CUDA works, else the CPU sorter. `why_cpu` says why the CPU path was taken, if it was.
const SorterInfo& choose_sorter(const std::string& requested, bool force_cpu, std::string& why_cpu);

}  // namespace depthsort::app
