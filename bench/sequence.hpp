// depthsort-bench --sequence: frames of a camera path (the demo's, camera_path.hpp) ordered by
// the frame's order unit the demo runs (depthsort/frame/frame_order.hpp): the depth pass and each
// GPU sorter, coherent (or from scratch), and with --fused depth-bucket's fused order; every
// frame checked on the device.
#pragma once

#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

#include "bench_args.hpp"
#include "report.hpp"
#include "run_parts.hpp"

namespace depthsort::bench {

// The sorter column of depth-bucket's rows (the fused order is not a registry sorter).
inline constexpr std::string_view kFusedRowName = "depth-bucket";

// The rows of every GPU variant x size for config.sequence; returns false if a frame failed.
bool run_sequences(const BenchConfig& config, const std::vector<SorterVariant>& variants, cudaStream_t stream,
                   const Events& events, const RunHeader& header, const std::vector<ResultFile>& files,
                   std::vector<Row>& rows);

}  // namespace depthsort::bench
