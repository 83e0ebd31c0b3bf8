#include "sequence.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/harness/permutation_check.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "depthsort/harness/workload.hpp"
#include "reference_copy.hpp"

namespace depthsort::bench {
namespace {

// The device arrays of one size's sequences: the scene, one frame's pairs, and the check's.
struct SequenceSet {
  PathCamera camera;                 // the scene's framing camera, where every path starts
  DeviceBuffer<ParticleVertex> scene;  // the points, as the frame layer's depth pass reads them
  DeviceBuffer<float> keys_in, keys_out, keys_by_id;
  DeviceBuffer<std::uint32_t> values_in, values_out, marks;
  DeviceBuffer<unsigned int> bad;
  explicit SequenceSet(std::size_t n)
      : scene(n, "depthsort-bench (scene)"),
        keys_in(n, "depthsort-bench (frame keys)"),
        keys_out(n, "depthsort-bench (sorted keys)"),
        keys_by_id(n, "depthsort-bench (check keys)"),
        values_in(n, "depthsort-bench (frame ids)"),
        values_out(n, "depthsort-bench (sorted ids)"),
        marks(n, "depthsort-bench (check marks)"),
        bad(1, "depthsort-bench (check count)") {}
};

// The timings of one sequence: every counted frame, and for the cuts path the cut frames and the
// others apart.
struct SequenceSamples {
  Samples all, cut, shot;
};

// One sorter over config.frames frames of the path. Frame 0 lists the depths in scene order; each
// later frame in the order the sorter left (its values_out: the ids, sorted by the last frame), or,
// with --scratch, in scene order again (the from-scratch sort the coherent order is compared with).
// Frame 0 is not counted (no last frame); every frame is checked on the device, untimed.
// In scene order the depth pass writes the pairs itself (keys, ids), as the demo's from-scratch
// frame does; in the last order it writes the depths by id and a gather lists them in that order,
// as the demo's coherent frame does.
SequenceSamples run_sequence(Sorter& sorter, const BenchConfig& config, SequenceSet& d, std::size_t n,
                             cudaStream_t stream, const Events& events, std::string* check) {
  const CameraPath path = *config.sequence;
  const SortBuffers buffers{d.keys_in.data(), d.values_in.data(), d.keys_out.data(), d.values_out.data(), n};
  const auto plane_of = [&](int frame) {
    return camera_plane(path, d.camera, static_cast<std::uint64_t>(frame), static_cast<std::uint64_t>(config.frames));
  };
  // `order` null: scene order. keys_by_id holds the frame's depths by id until the next frame, for
  // the check.
  auto frame_input = [&](int frame, const std::uint32_t* order) {
    if (!order) {
      launch_point_depth(d.scene.data(), n, plane_of(frame), d.keys_in.data(), d.values_in.data(), stream);
      return;
    }
    launch_point_depth(d.scene.data(), n, plane_of(frame), d.keys_by_id.data(), nullptr, stream);
    launch_gather_keys(d.keys_by_id.data(), order, n, d.keys_in.data(), d.values_in.data(), stream);
  };
  auto check_frame = [&](int frame, bool scene_order) {
    // The depths by id, from the scene again where the listing did not keep them (untimed).
    if (scene_order) launch_point_depth(d.scene.data(), n, plane_of(frame), d.keys_by_id.data(), nullptr, stream);
    launch_check_sorted(d.keys_by_id.data(), n, d.keys_out.data(), d.values_out.data(), n, d.bad.data(), stream);
    launch_check_permutation(d.values_out.data(), n, d.marks.data(), d.bad.data(), stream);
  };
  // A profiler's reference for the memory's speed (scripts/profile.sh), on frame 0's pairs; untimed.
  frame_input(0, nullptr);
  launch_reference_copy(d.keys_in.data(), d.values_in.data(), d.keys_out.data(), d.values_out.data(), n, stream);
  for (int w = 0; w < config.warmup; ++w) {
    frame_input(0, nullptr);
    sorter.sort(buffers, stream);
    sorter.timer().wait_last();
  }
  DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(d.bad.data(), 0, sizeof(unsigned int), stream));
  frame_input(0, nullptr);
  sorter.sort(buffers, stream);
  sorter.timer().wait_last();
  check_frame(0, true);
  SequenceSamples samples;
  for (int frame = 1; frame < config.frames; ++frame) {
    // The listing pass (this frame's depths in scene order, or in the last frame's order) is part
    // of what an order costs: timed beside the sort, and summed with it, in the row's steps.
    const char* list_step = config.scratch ? "list keys (scene order)" : "list keys (last order)";
    {
      const NvtxRange timed("timed");  // frames 1.., the ones the rows report
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.list(), stream));
      {
        const NvtxRange list(list_step);
        frame_input(frame, config.scratch ? nullptr : d.values_out.data());
      }
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.start(), stream));
      sorter.sort(buffers, stream);
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
    }
    DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(events.stop()));
    float ms = 0, list_ms = 0;
    DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(), events.stop()));
    DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&list_ms, events.list(), events.start()));
    const std::span<const StepTime> sort_steps = sorter.timer().wait_last();
    std::vector<StepTime> steps{{list_step, list_ms}, {"list + sort", list_ms + ms}};
    steps.insert(steps.end(), sort_steps.begin(), sort_steps.end());
    const bool cut = is_cut(path, static_cast<std::uint64_t>(frame));
    for (Samples* target : {&samples.all, cut ? &samples.cut : &samples.shot}) {
      target->total_ms.push_back(ms);
      target->add_steps(steps);
    }
    check_frame(frame, config.scratch);
  }
  unsigned int bad = 0;
  DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(&bad, d.bad.data(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
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
  std::size_t gpu_variants = 0;
  for (const SorterVariant& v : variants) gpu_variants += v.info->backend == Backend::Gpu;
  const std::size_t total = config.sizes.size() * gpu_variants * (cuts ? 3 : 1);
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
      set_error = "skipped: sequence buffers (44 bytes a point) do not fit: " + first_line(e.what());
    } catch (const std::bad_alloc&) {
      set.reset();
      set_error = "skipped: host memory too small for the scene";
    }
    std::map<std::string, double> cub_median;  // per dist label, from the baseline row
    for (const SorterVariant& v : variants) {
      if (v.info->backend != Backend::Gpu) continue;
      SequenceSamples samples;
      std::string check = set_error;
      if (set) {
        try {
          std::unique_ptr<Sorter> sorter = v.info->create(v.options);
          sorter->reserve(n);
          samples = run_sequence(*sorter, config, *set, n, stream, events, &check);
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
        row.sorter = std::string(v.info->name);
        row.options = v.options_text;
        row.baseline = v.baseline;
        row.gpu = true;
        row.dist = dist;
        row.n = n;
        row.check = check;
        if (!part->total_ms.empty()) fill_row(row, *part);
        if (v.baseline) cub_median[dist] = row.median_ms;
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
