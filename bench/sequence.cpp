#include "sequence.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <string>

#include "depthsort/frame/frame_order.hpp"
#include "depthsort/harness/workload.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "reference_copy.hpp"

namespace depthsort::bench {
namespace {

// The device side of one size's sequences: the scene (the points, as the frame's particles), the
// frame's order unit the demo runs, and the draw order it writes.
struct SequenceSet {
  PathCamera camera;                   // the scene's framing camera, where every path starts
  DeviceBuffer<ParticleVertex> scene;  // the points, as the frame's depth pass reads them
  DeviceBuffer<std::uint32_t> order;   // the draw order (the demo's GL buffer)
  FrameOrder unit;
  // The reference copy's pairs (scripts/profile.sh reads the memory's speed from it).
  DeviceBuffer<float> copy_keys_in, copy_keys_out;
  DeviceBuffer<std::uint32_t> copy_values_out;
  explicit SequenceSet(std::size_t n)
      : scene(n, "depthsort-bench (scene)"),
        order(n, "depthsort-bench (draw order)"),
        unit(0, n),
        copy_keys_in(n, "depthsort-bench (reference copy)"),
        copy_keys_out(n, "depthsort-bench (reference copy)"),
        copy_values_out(n, "depthsort-bench (reference copy)") {}
};

// The timings of one sequence: every counted frame, and for the cuts path the cut frames and the
// others apart.
struct SequenceSamples {
  Samples all, cut, shot;
};

// What one row orders with: a registry sorter (the depth pass, then the sort, coherent unless
// --scratch), or depth-bucket (the fused order; `sorter` null).
struct RowMethod {
  Sorter* sorter = nullptr;
  OrderMethod method = OrderMethod::Sorter;
};

// One row's config.frames frames of the path through the frame's order unit, as the demo's frame
// runs it: frame 0 in scene order (no last frame), each later frame listed in the order the last
// frame left in the draw order (or, with --scratch, in scene order again), or fused. Frame 0 is
// not counted; every frame's order is checked on the device, untimed (after the frame's events).
SequenceSamples run_sequence(const RowMethod& row, const BenchConfig& config, SequenceSet& d, std::size_t n,
                             cudaStream_t stream, const Events& events, StepTimer& frame_timer, std::string* check) {
  const CameraPath path = *config.sequence;
  const FrameRecords records = d.unit.records(d.scene.data(), n);
  const auto request_for = [&](int frame) {
    OrderRequest request;
    request.plane =
        camera_plane(path, d.camera, static_cast<std::uint64_t>(frame), static_cast<std::uint64_t>(config.frames));
    request.method = row.method;
    request.coherent = !config.scratch;
    return request;
  };
  unsigned long long bad = 0;
  const auto take_check = [&] {
    OrderCheck result;
    if (d.unit.finish_check(result)) bad += result.bad_first + result.bad_second;
  };
  // The order of one frame (timed: between the events, in the NVTX range "timed"), then its check.
  const auto run_frame = [&](int frame, bool timed) {
    const OrderRequest request = request_for(frame);
    {
      const NvtxRange range(timed ? "timed" : "untimed");
      frame_timer.begin_frame(stream);
      if (timed) DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.start(), stream));
      d.unit.order_single(records, request, row.sorter, d.order.data(), stream, frame_timer);
      if (timed) DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
      frame_timer.end_frame();
    }
    d.unit.check_last_order(records, request.plane, static_cast<std::uint64_t>(frame), stream);
    take_check();
  };
  d.unit.forget_order();
  // A profiler's reference for the memory's speed (scripts/profile.sh), on frame 0's pairs; untimed.
  launch_record_depth(records, request_for(0).plane, d.copy_keys_in.data(), d.order.data(), stream);
  launch_reference_copy(d.copy_keys_in.data(), d.order.data(), d.copy_keys_out.data(), d.copy_values_out.data(), n,
                        stream);
  for (int w = 0; w < config.warmup; ++w) {
    d.unit.forget_order();
    run_frame(0, false);
  }
  d.unit.forget_order();
  run_frame(0, false);
  SequenceSamples samples;
  for (int frame = 1; frame < config.frames; ++frame) {
    run_frame(frame, true);  // frames 1.., the ones the rows report
    DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(events.stop()));
    float ms = 0;
    DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(), events.stop()));
    const std::span<const StepTime> order_steps = frame_timer.wait_last();
    std::vector<StepTime> steps(order_steps.begin(), order_steps.end());
    if (row.sorter) {
      const std::span<const StepTime> sort_steps = row.sorter->timer().wait_last();
      steps.insert(steps.end(), sort_steps.begin(), sort_steps.end());
    } else {
      const std::span<const StepTime> fused_steps = d.unit.fused_timer().wait_last();
      steps.insert(steps.end(), fused_steps.begin(), fused_steps.end());
    }
    const bool cut = is_cut(path, static_cast<std::uint64_t>(frame));
    for (Samples* target : {&samples.all, cut ? &samples.cut : &samples.shot}) {
      target->total_ms.push_back(ms);
      target->add_steps(steps);
    }
  }
  *check = bad == 0 ? "pass"
                    : "FAIL: " + std::to_string(bad) + " bad positions or ids over " + std::to_string(config.frames) +
                          " frames";
  return samples;
}

}  // namespace

bool run_sequences(const BenchConfig& config, const std::vector<SorterVariant>& variants, cudaStream_t stream,
                   const Events& events, const RunHeader& header, const std::vector<ResultFile>& files,
                   std::vector<Row>& rows) {
  const CameraPath path = *config.sequence;
  const std::string label = "seq-" + std::string(camera_path_name(path)) + (config.scratch ? "-scratch" : "");
  const bool cuts = path == CameraPath::Cuts;
  // The rows of one size: every GPU variant, then depth-bucket's fused order where --fused asks.
  std::vector<const SorterVariant*> row_variants;
  for (const SorterVariant& v : variants)
    if (v.info->backend == Backend::Gpu) row_variants.push_back(&v);
  if (config.fused) row_variants.push_back(nullptr);
  const std::size_t total = config.sizes.size() * row_variants.size() * (cuts ? 3 : 1);
  StepTimer frame_timer;
  bool failed = false;
  for (const std::size_t n : config.sizes) {
    std::unique_ptr<SequenceSet> set;
    std::string set_error;
    try {
      set = std::make_unique<SequenceSet>(n);
      const std::vector<ScenePoint> scene = make_scene(n, config.seed);
      set->camera = scene_camera(scene);
      std::vector<ParticleVertex> points(n);
      for (std::size_t i = 0; i < n; ++i) points[i] = ParticleVertex{scene[i].x, scene[i].y, scene[i].z, 0.0f, 0u};
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(set->scene.data(), points.data(), n * sizeof(ParticleVertex),
                                           cudaMemcpyHostToDevice, stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    } catch (const CapacityError& e) {
      cudaGetLastError();
      set.reset();
      set_error = "skipped: the sequence's buffers do not fit: " + first_line(e.what());
    } catch (const std::bad_alloc&) {
      set.reset();
      set_error = "skipped: host memory too small for the scene";
    }
    std::map<std::string, double> cub_median;  // per dist label, from the baseline row
    for (const SorterVariant* v : row_variants) {
      SequenceSamples samples;
      std::string check = set_error;
      if (set) {
        try {
          std::unique_ptr<Sorter> sorter;
          RowMethod method{nullptr, OrderMethod::Fused};
          if (v) {
            sorter = v->info->create(v->options);
            sorter->reserve(n);
            method = RowMethod{sorter.get(), OrderMethod::Sorter};
          }
          samples = run_sequence(method, config, *set, n, stream, events, frame_timer, &check);
        } catch (const CapacityError& e) {
          cudaGetLastError();
          check = "skipped: " + first_line(e.what());
        } catch (const std::exception& e) {
          check = "error: " + first_line(e.what());
          failed = true;
        }
      }
      if (check.starts_with("FAIL")) failed = true;
      std::vector<std::pair<std::string, const Samples*>> parts{{label, &samples.all}};
      if (cuts) {
        parts.emplace_back(label + "@cut", &samples.cut);
        parts.emplace_back(label + "@shot", &samples.shot);
      }
      for (const auto& [dist, part] : parts) {
        Row row;
        row.sorter = v ? std::string(v->info->name) : std::string(kFusedRowName);
        row.options = v ? v->options_text : std::string("fused");
        row.baseline = v && v->baseline;
        row.gpu = true;
        row.dist = dist;
        row.n = n;
        row.check = check;
        if (!part->total_ms.empty()) fill_row(row, *part);
        if (row.baseline) cub_median[dist] = row.median_ms;
        const auto base = cub_median.find(dist);
        row.vs_cub = base == cub_median.end() ? std::numeric_limits<double>::quiet_NaN() : row.median_ms / base->second;
        rows.push_back(row);
        std::cout << progress_line(row, rows.size(), total) << '\n' << std::flush;
        for (const ResultFile& file : files) file.save(header, rows, false);
      }
    }
  }
  return !failed;
}

}  // namespace depthsort::bench
