// The run's reports: the console's lines on the draw path, dropped sorter options and memory over
// a --cycle-sorters run; the summary of a headless run; the --json meta data and file; the warning
// for timing samples that could not be kept.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "cli/run_options.hpp"
#include "depthsort/sort/registry.hpp"
#include "settings.hpp"

namespace depthsort::app {

struct RunState;
struct Scene;
class SorterCycle;
class Timings;

// The console's line on how the single order is drawn.
std::string draw_line(const Scene& scene, const Settings& settings);
// --sorter-options given for a sorter that does not run here: the note saying so.
std::string dropped_options_note(const RunOptions& options, const SorterInfo& running);
// Memory over a --cycle-sorters run, one line: the first, last and largest samples (a flat run
// has last close to first).
std::string memory_summary(const SorterCycle& cycle, bool gpu);
// Timing samples that could not be kept: a warning on stderr, never silent.
void report_dropped(const Timings& timings);

// A headless run's summary: the medians of every series, the order checks, memory over the run.
void summarize(const RunState& run, std::uint64_t frames);
// --json's "meta": the program, the device, the path, the scene, the settings and the checks.
nlohmann::ordered_json meta_json(const RunState& run, std::uint64_t frames);

// Runs `write` (one output file); a failure is reported and returns false, so that the other
// output is still written.
template <class Write>
bool write_output(const char* flag, Write&& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "depthsort: error: %s: %s\n", flag, e.what());
    return false;
  }
}
// --json, written whole or not at all; false (reported) if it could not be.
bool write_json(RunState& run, std::uint64_t frames);

}  // namespace depthsort::app
