// The NVTX check without a GPU (runs in CI): the comparison must catch a renamed range, a range
// left open, a pop too many and a step nested where it does not belong; and the recorder, injected
// into host programs (a probe with the demo's NvtxRange/StepTimer code and the registry's CPU
// sorter; the benchmark's and the demo's CPU paths), must see the ranges their timings name.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "range_check.hpp"
#include "recorded_run.hpp"

namespace depthsort::nvtx_test {
namespace {

// One frame as the demo records it: phases in the frame, the sorter's range in "sort".
constexpr const char* kFrame =
    "push\t1\tframe\n"
    "push\t1\tmap\npop\t1\n"
    "push\t1\tdepth\npop\t1\n"
    "push\t1\tsort\n"
    "push\t1\tcub-radix\n"
    "push\t1\tradix sort\npop\t1\n"
    "push\t1\tsigned-zero fixup\npop\t1\n"
    "pop\t1\n"
    "pop\t1\n"
    "push\t1\tgather\npop\t1\n"
    "push\t1\tunmap\npop\t1\n"
    "push\t1\tdraw\npop\t1\n"
    "pop\t1\n";
const std::vector<std::string> kFrameLabels{
    "frame/map",     "frame/depth", "frame/sort",       "frame/gather",    "frame/unmap",
    "frame/compute", "frame/draw",  "frame/host frame", "sort/radix sort", "sort/signed-zero fixup"};

std::vector<std::string> frame_problems(const std::string& text,
                                        const std::vector<std::string>& labels = kFrameLabels) {
  const Recording recording = parse_recording(text);
  if (!recording.ok()) return recording.problems;
  if (recording.roots.size() != 1 || recording.roots.begin()->second.size() != 1) return {"not one frame"};
  return compare_frame(recording.roots.begin()->second.front(), labels, "cub-radix");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(NvtxRanges, AFrameThatAgreesPasses) {
  const std::vector<std::string> problems = frame_problems(kFrame);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxRanges, ARenamedRangeFails) {
  const auto problems = frame_problems(replaced(kFrame, "push\t1\tgather", "push\t1\tgathr"));
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(joined(problems).find("'gather' is timed but has no range"), std::string::npos) << joined(problems);
  EXPECT_NE(joined(problems).find("range 'gathr' inside the frame has no timing"), std::string::npos)
      << joined(problems);
}

TEST(NvtxRanges, ARenamedStepFails) {
  const auto problems = frame_problems(replaced(kFrame, "radix sort", "radix-sort"));
  EXPECT_NE(joined(problems).find("sort: 'radix sort' is timed but has no range inside 'cub-radix'"), std::string::npos)
      << joined(problems);
}

TEST(NvtxRanges, ARenamedTimingFails) {
  std::vector<std::string> labels = kFrameLabels;
  labels[1] = "frame/depths";
  EXPECT_FALSE(frame_problems(kFrame, labels).empty());
}

TEST(NvtxRanges, ARangeLeftOpenFails) {
  const std::string text = replaced(kFrame, "push\t1\tunmap\npop\t1\n", "push\t1\tunmap\n");
  const Recording recording = parse_recording(text);
  ASSERT_FALSE(recording.ok());
  EXPECT_NE(joined(recording.problems).find("range 'frame' on thread 1 was never closed"), std::string::npos)
      << joined(recording.problems);
}

TEST(NvtxRanges, APopTooManyFails) {
  const Recording recording = parse_recording(std::string(kFrame) + "pop\t1\n");
  ASSERT_FALSE(recording.ok());
  EXPECT_NE(joined(recording.problems).find("line 21: a pop on thread 1 with no range open"), std::string::npos)
      << joined(recording.problems);
}

TEST(NvtxRanges, AMalformedLineFails) {
  EXPECT_FALSE(parse_recording("push\tx\tframe\npop\tx\n").ok());
  EXPECT_FALSE(parse_recording("begin\t1\tframe\n").ok());
  EXPECT_FALSE(parse_recording("push\t1\n").ok());
}

TEST(NvtxRanges, AStepNestedInAnotherStepFails) {
  // The fixup's range inside the radix sort's: balanced, but not how the timer's steps follow
  // each other.
  const std::string text = replaced(kFrame, "push\t1\tradix sort\npop\t1\npush\t1\tsigned-zero fixup\npop\t1\n",
                                    "push\t1\tradix sort\npush\t1\tsigned-zero fixup\npop\t1\npop\t1\n");
  const auto problems = frame_problems(text);
  EXPECT_NE(joined(problems).find("'signed-zero fixup' is timed as a step of 'cub-radix' but its range is nested "
                                  "deeper: cub-radix/radix sort/signed-zero fixup"),
            std::string::npos)
      << joined(problems);
}

TEST(NvtxRanges, APhaseOutsideItsFrameFails) {
  // The draw range after the frame's end: both balanced, the frame lacks it.
  const std::string text = replaced(kFrame, "push\t1\tdraw\npop\t1\npop\t1\n", "pop\t1\npush\t1\tdraw\npop\t1\n");
  const Recording recording = parse_recording(text);
  ASSERT_TRUE(recording.ok());
  const auto& roots = recording.roots.at(1);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_NE(joined(compare_frame(roots[0], kFrameLabels, "cub-radix")).find("'draw' is timed but has no range"),
            std::string::npos);
}

TEST(NvtxRanges, TheWrongSorterFails) {
  EXPECT_FALSE(frame_problems(replaced(kFrame, "push\t1\tcub-radix", "push\t1\tthrust")).empty());
}

TEST(NvtxRanges, TheSortersRangeMissingFails) {
  // Steps directly in "sort", without the sorter's own range around them.
  const std::string text = replaced(replaced(kFrame, "push\t1\tcub-radix\n", ""), "pop\t1\npop\t1\npush\t1\tgather",
                                    "pop\t1\npush\t1\tgather");
  EXPECT_FALSE(frame_problems(text).empty());
}

TEST(NvtxRanges, RangesOnTwoThreadsNestApart) {
  const Recording recording = parse_recording("push\t1\ta\npush\t2\tb\npop\t1\npop\t2\n");
  ASSERT_TRUE(recording.ok()) << joined(recording.problems);
  EXPECT_EQ(recording.roots.at(1).front().name, "a");
  EXPECT_EQ(recording.roots.at(2).front().name, "b");
}

// A benchmark sequence row: the frame's order unit's steps (the depth pass, and the `sort` step
// around the sorter's own range) inside "timed", and frame 0's untimed order outside it.
constexpr const char* kSequence =
    "push\t1\treference copy\npop\t1\n"
    "push\t1\tuntimed\npush\t1\tdepth\npop\t1\npush\t1\tsort\npush\t1\thybrid\npush\t1\tshuffle\npop\t1\npop\t1\n"
    "pop\t1\npop\t1\n"
    "push\t1\ttimed\n"
    "push\t1\tdepth\npop\t1\n"
    "push\t1\tsort\npush\t1\thybrid\npush\t1\tshuffle\npop\t1\npop\t1\npop\t1\n"
    "pop\t1\n";
const nlohmann::json kSequenceReport = nlohmann::json::parse(R"json({"rows": [{"sorter": "hybrid", "dist": "seq-orbit",
    "reps": 1, "steps": [{"name": "depth"}, {"name": "sort"}, {"name": "shuffle"}]}]})json");

// depth-bucket's row: no registry sorter's range, every step its own range.
constexpr const char* kFusedSequence =
    "push\t1\ttimed\n"
    "push\t1\torder (fused)\npush\t1\tsample\npop\t1\npush\t1\tdepth + scatter\npop\t1\n"
    "push\t1\tbucket sort\npop\t1\npop\t1\n"
    "pop\t1\n";
const nlohmann::json kFusedReport = nlohmann::json::parse(R"json({"rows": [{"sorter": "depth-bucket",
    "options": "fused", "dist": "seq-orbit", "reps": 1, "steps": [{"name": "order (fused)"}, {"name": "sample"},
    {"name": "depth + scatter"}, {"name": "bucket sort"}]}]})json");

TEST(NvtxRanges, AFusedSequenceThatAgreesPasses) {
  const auto problems = check_bench_run(parse_recording(kFusedSequence), kFusedReport);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxRanges, AFusedSequenceWithARangeWithoutTimingFails) {
  const auto problems =
      check_bench_run(parse_recording(replaced(kFusedSequence, "\tsample\n", "\tsampling\n")), kFusedReport);
  EXPECT_NE(joined(problems).find("range 'sampling' beside the sort has no timing"), std::string::npos)
      << joined(problems);
}

TEST(NvtxRanges, ABenchmarkSequenceThatAgreesPasses) {
  const auto problems = check_bench_run(parse_recording(kSequence), kSequenceReport);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxRanges, ABenchmarkRangeBesideTheSortWithoutTimingFails) {
  const auto problems = check_bench_run(
      parse_recording(replaced(kSequence, "\ttimed\npush\t1\tdepth", "\ttimed\npush\t1\tlisting")), kSequenceReport);
  EXPECT_NE(joined(problems).find("range 'listing' beside the sort has no timing"), std::string::npos)
      << joined(problems);
  EXPECT_NE(joined(problems).find("'depth' is timed but has no range inside 'hybrid'"), std::string::npos)
      << joined(problems);
}

TEST(NvtxRanges, ABenchmarkTimedSortTooManyOrWithoutItsSorterFails) {
  const std::string twice = std::string(kSequence) + "push\t1\ttimed\npush\t1\thybrid\npop\t1\npop\t1\n";
  EXPECT_NE(joined(check_bench_run(parse_recording(twice), kSequenceReport)).find("more timed sorts recorded"),
            std::string::npos);
  nlohmann::json thrust = kSequenceReport;
  thrust["rows"][0]["sorter"] = "thrust";
  EXPECT_NE(joined(check_bench_run(parse_recording(kSequence), thrust)).find("no range of sorter 'thrust' inside"),
            std::string::npos);
}

// A row of two timed frames whose sorter samples its splitters in the first only (hybrid-coherent
// where last frame's no longer hold): the row times "sample", one frame has its range.
constexpr const char* kTwoFrames =
    "push\t1\ttimed\npush\t1\tdepth\npop\t1\npush\t1\tsort\npush\t1\thybrid-coherent\n"
    "push\t1\tsample\npop\t1\npush\t1\tshuffle\npop\t1\npop\t1\npop\t1\npop\t1\n"
    "push\t1\ttimed\npush\t1\tdepth\npop\t1\npush\t1\tsort\npush\t1\thybrid-coherent\n"
    "push\t1\tshuffle\npop\t1\npop\t1\npop\t1\npop\t1\n";
const nlohmann::json kTwoFramesReport = nlohmann::json::parse(R"json({"rows": [{"sorter": "hybrid-coherent",
    "dist": "seq-orbit", "reps": 2, "steps": [{"name": "depth"}, {"name": "sort"}, {"name": "sample"},
    {"name": "shuffle"}]}]})json");

TEST(NvtxRanges, AStepOfSomeOfARowsFramesPasses) {
  const auto problems = check_bench_run(parse_recording(kTwoFrames), kTwoFramesReport);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxRanges, AStepOfNoneOfARowsFramesFails) {
  const auto problems =
      check_bench_run(parse_recording(replaced(kTwoFrames, "\tsample\n", "\tshuffle\n")), kTwoFramesReport);
  EXPECT_NE(joined(problems).find("'sample' is timed for hybrid-coherent but none of its 2 timed frames has its range"),
            std::string::npos)
      << joined(problems);
  // And a range the row does not time, in one of its frames, still fails.
  const auto untimed =
      check_bench_run(parse_recording(replaced(kTwoFrames, "\tsample\n", "\tresample\n")), kTwoFramesReport);
  EXPECT_NE(joined(untimed).find("range 'resample' inside 'hybrid-coherent' has no step timing"), std::string::npos)
      << joined(untimed);
}

// --- The recorder, injected into real host programs -------------------------------------------

TEST(NvtxRecorder, SeesTheProbesFrameAsItsTimingsNameIt) {
  const std::string record = out_path("probe.nvtx");
  const RecordedRun run = run_recorded({DEPTHSORT_NVTX_PROBE}, record);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_TRUE(run.recorded) << "NVTX did not load the recorder: " << run.output;
  ASSERT_TRUE(run.recording.ok()) << joined(run.recording.problems);
  std::istringstream lines(run.output);
  std::string sorter, line;
  std::getline(lines, sorter);
  std::vector<std::string> labels;
  while (std::getline(lines, line)) labels.push_back(line);
  ASSERT_GE(labels.size(), 4u) << run.output;
  ASSERT_EQ(run.recording.roots.size(), 1u);
  const std::vector<Range>& roots = run.recording.roots.begin()->second;
  ASSERT_EQ(roots.size(), 1u) << outline(roots.front());
  const auto problems = compare_frame(roots.front(), labels, sorter);
  EXPECT_TRUE(problems.empty()) << joined(problems) << "\nrecorded: " << outline(roots.front(), 4);
  // And a changed timing name on the same recording is caught.
  labels.back() += "x";
  EXPECT_FALSE(compare_frame(roots.front(), labels, sorter).empty());
}

TEST(NvtxRecorder, RefusesWithoutAFileToWrite) {
  const std::string record = out_path("refused.nvtx");
  const RecordedRun run = run_recorded({DEPTHSORT_NVTX_PROBE}, record, false);
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_FALSE(run.recorded);
  EXPECT_NE(run.output.find("DEPTHSORT_NVTX_RECORD (the file to write) is not set"), std::string::npos) << run.output;
}

#ifdef DEPTHSORT_NVTX_BENCH
TEST(NvtxRecorder, TheBenchmarksCpuSortsHaveTheirStepsRanges) {
  const std::string record = out_path("bench-cpu.nvtx"), json = out_path("bench-cpu.json");
  const RecordedRun run = run_recorded(
      {DEPTHSORT_NVTX_BENCH, "--sorters", "cpu", "--sizes", "1K", "--reps", "2", "--warmup", "1", "--json", json},
      record);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_TRUE(run.recorded) << run.output;
  const nlohmann::json report = nlohmann::json::parse(read_text(json));
  const auto problems = check_bench_run(run.recording, report);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  // Planted: the report's step renamed.
  nlohmann::json changed = report;
  for (auto& row : changed["rows"])
    if (row["sorter"] == "cpu" && !row["steps"].empty()) row["steps"][0]["name"] = "renamed";
  EXPECT_FALSE(check_bench_run(run.recording, changed).empty());
}
#endif

#ifdef DEPTHSORT_NVTX_DEMO
TEST(NvtxRecorder, TheDemosCpuPathFramesNestAsTheirTimings) {
  const std::string record = out_path("demo-cpu.nvtx"), json = out_path("demo-cpu.json");
  const RecordedRun run = run_recorded({DEPTHSORT_NVTX_DEMO, "--headless", "--cpu", "--scene", "test", "--size",
                                        "160x120", "--frames", "2", "--quiet", "--json", json},
                                       record);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_TRUE(run.recorded) << run.output;
  const nlohmann::json report = nlohmann::json::parse(read_text(json));
  const auto problems = check_app_run(run.recording, report);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}
#endif

}  // namespace
}  // namespace depthsort::nvtx_test
