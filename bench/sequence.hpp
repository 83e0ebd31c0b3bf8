// depthsort-bench --sequence: frames of a camera path (the demo's, camera_path.hpp) sorted the
// coherent way, every frame checked on the device.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "bench_args.hpp"
#include "report.hpp"
#include "run_parts.hpp"

namespace depthsort::bench {

// The rows of every GPU variant x size for config.sequence; returns false if a frame failed.
bool run_sequences(const BenchConfig& config, const std::vector<SorterVariant>& variants, cudaStream_t stream,
                   const Events& events, const RunHeader& header, const std::vector<ResultFile>& files,
                   std::vector<Row>& rows);

}  // namespace depthsort::bench
