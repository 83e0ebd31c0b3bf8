// depthsort-multigpu --bench's rows: one row of results, the CSV it is written to, the weighted split's model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "depthsort/harness/workload.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "gpu_inputs.hpp"

namespace depthsort::multi_gpu {

struct Row {
  std::string kase;
  int gpus = 1;
  std::size_t n = 0;
  std::string dist;
  int reps = 0;
  double median_ms = 0, min_ms = 0, p90_ms = 0;
  double vs_hybrid = 0, vs_cub = 0;
  std::string sorter;
  int chunks = 1;
  double steps[MultiGpuSorter::kSteps] = {};
  bool has_steps = false;
  std::uint64_t bytes_between = 0;   // every pair that crossed, returns included
  std::uint64_t exchange_bytes = 0;  // the exchange's pairs (out to the ranges' GPUs)
  double nccl_ms = 0;                // NCCL alone moving the exchange's pairs in one grouped call
  double ce_ms = 0;                  // the copy engines alone moving them, every pair of GPUs at once
  std::string transport = "-";
  std::string splitter_source = "-";  // what the splitter levels read: "candidates" or "every key"
  std::uint64_t candidates = 0;
  std::string counts;
  std::string check = "-";
};

Row timed_row(std::string kase, int gpus, std::size_t n, const std::string& dist, const std::vector<double>& samples);

void write_csv_header(std::ostream& out);

std::string number(double v, int digits = 4);

// The exchange's time: the copy engines' span, or NCCL's rounds that carry the pairs out.
double exchange_ms(const Row& r);

void write_csv_row(std::ostream& out, const Row& r);

std::string check_text(const CheckResult& result);

// The weighted split's model (docs/algorithms/multi-gpu.md): GPU 0 sorts a share f of n while the
// other GPUs receive theirs, sort it and send it back: f T1 = (1 - f)(2 S + T1 / (N - 1)), with T1
// one GPU's time for all n pairs and S NCCL's time to send all n pairs out of GPU 0. The pipeline
// leaves only one sub-range's transfers each way in the open: S / K in place of S.
double model_share(double t1, double s, int gpus);

struct Model {
  int gpus = 0, chunks = 1;
  std::size_t n = 0;
  std::string sorter;
  double t1 = 0, s = 0;  // ms: one GPU's sort of n pairs; the transport sending n pairs out of GPU 0
  std::string transport;
  double f = 0, f_pipelined = 0;        // the shares of the formula with S and with S / K
  double pre = 0;                       // ms: splitters + partition as measured in the weighted row
  double weighted_ms = 0, even_ms = 0;  // the rows' medians
  std::string text() const {
    std::ostringstream o;
    o << "model " << size_text(n) << " on " << gpus << " GPUs: T1 = " << number(t1, 2) << " ms (one GPU's " << sorter
      << "), S = " << number(s, 2) << " ms (" << transport << ": " << size_text(n)
      << " pairs out of GPU 0), K = " << chunks << "\n"
      << "  f T1 = (1 - f)(2S + T1/(N-1)): f = " << number(f, 3) << ", f T1 = " << number(f * t1, 2) << " ms (x"
      << number(t1 / (f * t1), 2) << "); with splitters + partition as measured (" << number(pre, 2)
      << " ms): " << number(f * t1 + pre, 2) << " ms (x" << number(t1 / (f * t1 + pre), 2) << ")\n"
      << "  the same with S/K (the pipeline's open transfers): f = " << number(f_pipelined, 3) << ", "
      << number(f_pipelined * t1 + pre, 2) << " ms (x" << number(t1 / (f_pipelined * t1 + pre), 2) << ")\n"
      << "  measured: gathered " << number(even_ms, 2) << " ms (x" << number(t1 / even_ms, 2)
      << "), weighted (f = " << number(f_pipelined, 3) << ") " << number(weighted_ms, 2) << " ms (x"
      << number(t1 / weighted_ms, 2) << "); the paper: x1.8 on two cards";
    return o.str();
  }
};

}  // namespace depthsort::multi_gpu
