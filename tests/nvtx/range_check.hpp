// Reads what tests/nvtx/nvtx_recorder.cpp recorded (the `depthsort` domain's pushes and pops, as a
// profiler sees them) and compares the ranges with the timings the same run reported (--json), so
// the names an Nsight profile shows are the names the panel and the benchmark show.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace depthsort::nvtx_test {

// The one list of names that differ between ranges and timings by design (docs/profiling.md repeats
// it). Ranges without a timing of their own: the demo's frame, the benchmark's bracket around each
// timed sort and its reference copy, and every sorter's own range (Sorter::sort; its name is the
// sorter's, checked apart). Timings without a range: sums and spans the program computes (the
// demo's, and a benchmark sequence row's listing pass plus its sort).
inline constexpr std::array<std::string_view, 3> kRangesWithoutTiming{"frame", "timed", "reference copy"};
inline constexpr std::array<std::string_view, 4> kTimingsWithoutRange{"compute", "step sum", "host frame",
                                                                      "list + sort"};

// Whether `name` is in one of the lists above.
bool without_timing(std::string_view name);
bool without_range(std::string_view name);

struct Range {
  std::string name;
  std::vector<Range> children;
};

// Every thread's top-level ranges, in order (threads numbered as recorded).
struct Recording {
  std::map<int, std::vector<Range>> roots;
  std::vector<std::string> problems;  // unbalanced or malformed input; empty when well formed
  bool ok() const { return problems.empty(); }
};

// Parses the recorder's lines. Never throws: a pop without a push, a range left open at the end
// or a line it cannot read is a problem, named with its line.
Recording parse_recording(std::string_view text);

// One sort: `sorter_range` must be the sorter's own range, and every step name reported for it a
// range directly inside it; every range directly inside it must have a timing. Returns the
// problems found (empty: they agree).
std::vector<std::string> compare_sort(const Range& sorter_range, std::string_view sorter,
                                      const std::vector<std::string>& steps);

// One frame of the demo: `frame` the frame's range; `labels` the frame's timings as --json names
// them ("frame/depth", "sort/radix sort", "particle sort/..."); `sorter` the sorter's name (and
// `particle_sorter`, with --separate-passes, the second sort's). Phases ("frame/X") must be ranges
// directly inside the frame, sort steps ranges directly inside the sorter's range inside "sort".
std::vector<std::string> compare_frame(const Range& frame, const std::vector<std::string>& labels,
                                       std::string_view sorter, std::string_view particle_sorter = {});

// The path from `range` down to the first range named `name` below it at any depth
// ("above/b/name", `above` the path to `range`), or "" where there is none.
std::string find_below(const Range& range, std::string_view name, const std::string& above);

// "a/b/c" for a problem message: the names from a root down to a range.
std::string outline(const Range& range, int depth = 2);

}  // namespace depthsort::nvtx_test
