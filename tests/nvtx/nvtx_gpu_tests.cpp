// The NVTX ranges on a CUDA device, as a profiler sees them (through the recorder, injected the way
// Nsight's own library is): a headless frame of the demo and one sort of every GPU sorter in the
// benchmark must give balanced, properly nested ranges named as their --json timings. Each test
// reports itself skipped where no CUDA device exists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "depthsort/sort/registry.hpp"
#include "recorded_run.hpp"

namespace depthsort::nvtx_test {
namespace {

#ifdef DEPTHSORT_NVTX_BENCH
// One timed sort of every available GPU sorter (cub-radix first, the baseline), nothing else.
void check_bench(const std::string& name, std::vector<std::string> args) {
  const std::string record = out_path(name + ".nvtx"), json = out_path(name + ".json");
  args.insert(args.begin(), DEPTHSORT_NVTX_BENCH);
  args.insert(args.end(), {"--warmup", "0", "--json", json});
  const RecordedRun run = run_recorded(args, record);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_TRUE(run.recorded) << "NVTX did not load the recorder: " << run.output;
  const nlohmann::json report = nlohmann::json::parse(read_text(json));
  int gpu_rows = 0;
  for (const auto& row : report.at("rows")) {
    gpu_rows += row.at("backend") == "gpu";
    EXPECT_GT(row.at("reps").get<int>(), 0) << row.dump();  // a skipped row would check nothing
  }
  int available = 0;
  for (const SorterInfo& info : sorter_registry())
    available += info.backend == Backend::Gpu && info.is_available(nullptr);
  EXPECT_GE(gpu_rows, available) << "every available GPU sorter must have a row";
  const auto problems = check_bench_run(run.recording, report);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxGpu, OneSortOfEveryGpuSorterHasItsStepsRanges) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  check_bench("bench-gpu", {"--sizes", "1M", "--reps", "1"});
}

TEST(NvtxGpu, ASequencesTimedFrameHasItsStepsRanges) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  // Frame 0 (scene order, untimed) and frame 1 (coherent, timed): what scripts/profile.sh selects.
  check_bench("sequence-gpu", {"--sequence", "orbit", "--frames", "2", "--sizes", "1M"});
}

TEST(NvtxGpu, AFusedSequencesTimedFramesHaveTheirStepsRanges) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  // Frame 0 (untimed) leaves the splitters; the timed frames are depth-bucket's own or its fallback's.
  check_bench("sequence-fused-gpu", {"--sequence", "orbit", "--frames", "4", "--sizes", "1M", "--fused"});
}
#endif

#ifdef DEPTHSORT_NVTX_DEMO
void check_demo(const std::string& name, std::vector<std::string> args) {
  const std::string record = out_path(name + ".nvtx"), json = out_path(name + ".json");
  args.insert(args.begin(), DEPTHSORT_NVTX_DEMO);
  args.insert(args.end(), {"--headless", "--frames", "2", "--json", json});
  const RecordedRun run = run_recorded(args, record);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_NE(run.output.find("path: GPU"), std::string::npos) << "not on the GPU path: " << run.output;
  ASSERT_TRUE(run.recorded) << "NVTX did not load the recorder: " << run.output;
  const nlohmann::json report = nlohmann::json::parse(read_text(json));
  const auto problems = check_app_run(run.recording, report);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(NvtxGpu, AHeadlessFrameOfTheDemoHasItsPhasesAndStepsRanges) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  check_demo("demo-gpu", {"--triangles", "200K", "--particles", "50K"});
}

TEST(NvtxGpu, TheExpandedDrawAndCoherentFramesToo) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  check_demo("demo-gpu-expanded", {"--triangles", "200K", "--particles", "50K", "--coherent", "--draw-path", "expanded",
                                   "--sorter", "hybrid"});
}

TEST(NvtxGpu, SeparatePassesSortTwiceInsideSort) {
  if (std::string why; !cuda_device_usable(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  check_demo("demo-gpu-separate", {"--triangles", "200K", "--particles", "50K", "--separate-passes"});
}
#endif

}  // namespace
}  // namespace depthsort::nvtx_test
