// What depthsort-bench says about the run and the machine: the header every output starts with
// and --list.
#pragma once

#include <ostream>

#include "bench_args.hpp"
#include "report.hpp"

namespace depthsort::bench {

// The run's header: the command line, the date, the repetitions and seed, the driver and runtime
// versions, and the device (or why there is none).
RunHeader make_header(int argc, char** argv, const BenchConfig& config, bool gpu, const std::string& why_no_gpu);
// --list: every sorter of the registry (backend, stability, availability here, origin), its
// description and options, then the distributions.
void print_registry(std::ostream& out);

}  // namespace depthsort::bench
