#include "recorded_run.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/run_command.hpp"

namespace depthsort::nvtx_test {
namespace {

// Every thread's top-level ranges, thread by thread (the programs record from one thread).
std::vector<const Range*> all_roots(const Recording& recording) {
  std::vector<const Range*> roots;
  for (const auto& [thread, list] : recording.roots)
    for (const Range& range : list) roots.push_back(&range);
  return roots;
}

}  // namespace

RecordedRun run_recorded(const std::vector<std::string>& argv, const std::string& record_path, bool with_record_path) {
  std::filesystem::remove(record_path);
  std::string prefix = with_record_path ? "env" : "env -u DEPTHSORT_NVTX_RECORD";  // env's options first
  prefix += " NVTX_INJECTION64_PATH=" + testing::shell_quote(DEPTHSORT_NVTX_RECORDER);
  if (with_record_path) prefix += " DEPTHSORT_NVTX_RECORD=" + testing::shell_quote(record_path);
  const testing::CommandOutput run = testing::run_command(argv, prefix);
  RecordedRun result;
  result.status = run.status;
  result.output = run.output;
  result.recorded = std::filesystem::exists(record_path);
  result.recording = parse_recording(read_text(record_path));
  return result;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& problem : problems) text += "\n  " + problem;
  return text;
}

std::string out_path(const std::string& name) {
  std::filesystem::create_directories(DEPTHSORT_NVTX_TEST_OUT);
  return std::string(DEPTHSORT_NVTX_TEST_OUT) + "/" + name;
}

std::vector<std::string> check_bench_run(const Recording& recording, const nlohmann::json& report) {
  std::vector<std::string> problems = recording.problems;
  // The timed sorts the rows report, in order: each row's `reps` timed frames. A cut path's @cut
  // and @shot rows are parts of its main row's frames, not sorts of their own. A row of several
  // timed frames (a sequence's) reports every step any of its frames took, and a frame need not
  // take each (hybrid-coherent samples its splitters only where last frame's no longer hold;
  // depth-bucket hands a frame back to its fallback): there, each step's range must be in one of
  // the row's frames at least, and no frame may hold a range the row does not time.
  struct Row {
    std::string sorter;
    std::vector<std::string> steps;
    int reps = 1;
    bool fused = false;            // depth-bucket's rows (options "fused"): no registry sorter's range
    std::set<std::string> ranged;  // the step ranges its frames held
  };
  std::vector<Row> rows;
  std::vector<std::size_t> expected;  // the row of each timed sort
  std::vector<std::string> sorter_names;
  for (const auto& row : report.at("rows")) {
    const std::string sorter = row.at("sorter").get<std::string>();
    sorter_names.push_back(sorter);
    if (row.at("dist").get<std::string>().find('@') != std::string::npos) continue;
    Row r{sorter, {}, row.at("reps").get<int>(), row.value("options", std::string()) == "fused", {}};
    for (const auto& step : row.at("steps")) r.steps.push_back(step.at("name").get<std::string>());
    expected.insert(expected.end(), static_cast<std::size_t>(std::max(r.reps, 0)), rows.size());
    rows.push_back(std::move(r));
  }
  std::size_t next = 0;
  for (const Range* root : all_roots(recording)) {
    if (root->name == "reference copy") {
      if (!root->children.empty()) problems.push_back("the reference copy holds ranges: " + outline(*root));
      continue;
    }
    // "untimed": a sequence's frame 0 and warm-up frames, ordered outside the timed events.
    if (root->name != "timed") {
      if (root->name != "untimed" &&
          std::find(sorter_names.begin(), sorter_names.end(), root->name) == sorter_names.end())
        problems.push_back("top-level range '" + root->name +
                           "' is neither a timed sort, an untimed sort of a reported "
                           "sorter or frame, nor the reference copy");
      continue;
    }
    const std::string which = "timed sort " + std::to_string(next + 1);
    if (next >= expected.size()) {
      problems.push_back(which + ": more timed sorts recorded than the rows report (" +
                         std::to_string(expected.size()) + ")");
      continue;
    }
    Row& e = rows[expected[next++]];
    // Inside: the sorter's own range, and around or beside it the work the benchmark times itself
    // (a sequence frame's depth pass and its `sort` step around the sorter; depth-bucket's order
    // and its steps), each a range named as its step. Found depth first.
    const Range* sort = nullptr;
    std::vector<std::string> seen;
    std::vector<const Range*> pending{root};
    while (!pending.empty()) {
      const Range* range = pending.back();
      pending.pop_back();
      for (const Range& child : range->children) {
        if (child.name == e.sorter && sort == nullptr) {
          sort = &child;
          continue;
        }
        if (std::find(e.steps.begin(), e.steps.end(), child.name) == e.steps.end())
          problems.push_back(which + " (" + e.sorter + "): range '" + child.name + "' beside the sort has no timing");
        seen.push_back(child.name);
        // depth-bucket's fallback sort is timed as one step ("fallback: cub-radix"): its own
        // ranges are the fallback sorter's, not the row's.
        if (!child.name.starts_with("fallback: ")) pending.push_back(&child);
      }
    }
    e.ranged.insert(seen.begin(), seen.end());
    if (sort == nullptr) {
      // An order that is no registry sorter's (depth-bucket's) has its steps as ranges of their own.
      if (!e.fused)
        problems.push_back(which + ": no range of sorter '" + e.sorter + "' inside, found " + outline(*root, 2));
      continue;
    }
    // The sorter's steps: those not beside it (of a row of several frames, those this frame took).
    std::vector<std::string> sorter_steps;
    for (const std::string& step : e.steps)
      if (std::find(seen.begin(), seen.end(), step) == seen.end() &&
          (e.reps == 1 || !find_below(*sort, step, sort->name).empty()))
        sorter_steps.push_back(step);
    e.ranged.insert(sorter_steps.begin(), sorter_steps.end());
    for (const std::string& problem : compare_sort(*sort, e.sorter, sorter_steps))
      problems.push_back(which + " (" + e.sorter + "): " + problem);
  }
  if (next < expected.size())
    problems.push_back("the rows report " + std::to_string(expected.size()) + " timed sorts, " + std::to_string(next) +
                       " were recorded");
  for (const Row& row : rows) {
    if (row.reps == 1 && !row.fused) continue;  // its one frame was checked step by step above
    for (const std::string& step : row.steps)
      if (!without_range(step) && !row.ranged.contains(step))
        problems.push_back("'" + step + "' is timed for " + row.sorter + " but none of its " +
                           std::to_string(row.reps) + " timed frames has its range");
  }
  return problems;
}

std::vector<std::string> check_app_run(const Recording& recording, const nlohmann::json& report) {
  std::vector<std::string> problems = recording.problems;
  const std::string sorter = report.at("meta").at("sorter").get<std::string>();
  const std::vector<const Range*> roots = all_roots(recording);
  const auto& frames = report.at("frames");
  std::size_t checked = 0;
  for (const auto& row : frames) {
    const std::size_t index = row.at("frame").get<std::size_t>();
    if (index >= roots.size()) {
      problems.push_back("frame " + std::to_string(index) + " has timings but no range was recorded for it");
      continue;
    }
    std::vector<std::string> labels;
    for (const auto& [label, value] : row.items())
      if (label != "frame") labels.push_back(label);
    for (const std::string& problem : compare_frame(*roots[index], labels, sorter, sorter))
      problems.push_back("frame " + std::to_string(index) + ": " + problem);
    ++checked;
  }
  if (checked == 0) problems.push_back("no frame's timings to compare (--json has no frames)");
  for (const Range* root : roots)
    if (root->name != "frame") problems.push_back("range '" + root->name + "' was recorded outside a frame");
  if (roots.size() != frames.size())
    problems.push_back(std::to_string(roots.size()) + " frames recorded, " + std::to_string(frames.size()) +
                       " with timings in --json");
  return problems;
}

}  // namespace depthsort::nvtx_test
