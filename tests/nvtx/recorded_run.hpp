// Runs a program with the NVTX recorder injected and checks its ranges against its --json timings:
// shared by the CPU tests (host-clock runs, CI) and the GPU tests.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "range_check.hpp"
#include "support/run_command.hpp"

namespace depthsort::nvtx_test {

struct RecordedRun {
  int status = -1;     // exit status (-1: did not exit normally)
  std::string output;  // stdout and stderr together
  Recording recording;
  bool recorded = false;  // the record file was written (the recorder was loaded)
};

// Runs argv (argv[0] the program) with NVTX_INJECTION64_PATH naming the recorder
// (DEPTHSORT_NVTX_RECORDER, compiled in) and DEPTHSORT_NVTX_RECORD = record_path (removed first).
// `with_record_path` false leaves DEPTHSORT_NVTX_RECORD unset (the recorder must then refuse).
RecordedRun run_recorded(const std::vector<std::string>& argv, const std::string& record_path,
                         bool with_record_path = true);

// A run of depthsort-bench: every timed sort (the "timed" range, one per repetition or frame a row
// reports, in the rows' order) holds its sorter's range, whose steps are the row's, and around or
// beside it only ranges named as the row's other steps (work the benchmark times around the sort:
// a sequence frame's depth pass, and the `sort` step around the sorter); depth-bucket's rows
// (options "fused") hold no sorter's range, every step its own range. Every other top-level range
// is a reference copy, an untimed sort (warm-up) or an untimed frame (a sequence's frame 0).
std::vector<std::string> check_bench_run(const Recording& recording, const nlohmann::json& report);

// A run of the demo: the i-th top-level range is frame i's "frame", and its ranges agree with that
// frame's timings in --json (compare_frame); nothing is recorded outside a frame.
std::vector<std::string> check_app_run(const Recording& recording, const nlohmann::json& report);

using depthsort::testing::read_text;

// Problems one a line, for a failure message.
std::string joined(const std::vector<std::string>& problems);

// A file under the tests' output folder (DEPTHSORT_NVTX_TEST_OUT, created on demand).
std::string out_path(const std::string& name);

}  // namespace depthsort::nvtx_test
