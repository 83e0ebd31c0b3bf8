// The run's reports: the console's lines on the draw path, dropped sorter options and memory over
// a --cycle-sorters run; the summary at a run's end; the --json meta data and file; the warning
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

// The bytes the sorted mode needs beside the scene: the sorter's workspace, the key/id pairs (the
// GPU path's frame order unit, or the CPU path's host pairs) and the GL draw order with its
// segment ids.
std::size_t sorted_mode_bytes(const RunState& run);
// The transparency mode's lines: the A-buffer's budget and use, the difference view's count, each
// mode's memory (empty strings where a line does not apply).
std::string transparency_line(const RunState& run);
std::string difference_line(const RunState& run);
std::string transparency_memory_line(const RunState& run);

// The per-pixel reference's budget exceeded in some frame: a warning on stderr (even with
// --quiet), never silent.
void report_over_budget(const RunState& run);

// The summary at a run's end, headless or windowed: the medians of every series, the order
// checks, memory over the run.
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
