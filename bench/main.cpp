// depthsort-bench: every sorter of the registry timed side by side with cub-radix.
//
// For each size and distribution the unsorted input is made once on the host and uploaded to a
// pristine device copy. Each repetition restores the sorter's input from it (device-to-device,
// outside the timed interval), then a CUDA event pair brackets the sort alone. Medians, minimums
// and p90s over the repetitions; cub-radix runs first at every size and distribution so each row
// carries its ratio to it. See usage_text() in bench_args.cpp for the flags and the CSV columns.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_args.hpp"
#include "describe.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/pair_buffers.hpp"
#include "depthsort/host/memory_available.hpp"
#include "depthsort/host/output_file.hpp"
#include "depthsort/host/stop_signal.hpp"
#include "depthsort/sort/registry.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/sort/step_timer.hpp"
#include "depthsort/harness/workload.hpp"
#include "reference_copy.hpp"
#include "report.hpp"
#include "run_parts.hpp"
#include "sequence.hpp"
#include "stats.hpp"

namespace depthsort::bench {
namespace {

constexpr int kExitUsage = 2;

// ---------------------------------------------------------------------------------------------
// Independent inputs (--dist): each size's pairs sorted --reps times.

// Device buffers for one size: the pristine input, and the sorter's input and output pairs.
struct DeviceSet {
  DeviceBuffer<float> keys_src;
  DeviceBuffer<std::uint32_t> values_src;
  DevicePairBuffers pairs;
  explicit DeviceSet(std::size_t n)
      : keys_src(n, "depthsort-bench (pristine keys)"),
        values_src(n, "depthsort-bench (pristine values)"),
        pairs(n, "depthsort-bench") {}
};

struct Input {
  std::vector<float> keys;
  std::vector<std::uint32_t> values;
  std::optional<std::vector<std::uint32_t>> reference;  // made on the first --check
  const std::vector<std::uint32_t>& ref() {
    if (!reference) reference = reference_order(keys);
    return *reference;
  }
};

void run_gpu(Sorter& sorter, const BenchConfig& config, DeviceSet& d, Input& input, cudaStream_t stream,
             const Events& events, Row& row) {
  const std::size_t n = row.n;
  DevicePairBuffers& pairs = d.pairs;
  const SortBuffers buffers = pairs.buffers(0, n);
  auto restore = [&] {
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(pairs.keys_in.data(), d.keys_src.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(pairs.values_in.data(), d.values_src.data(), n * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToDevice, stream));
  };
  // A profiler's reference for the memory's speed (scripts/profile.sh); untimed.
  launch_reference_copy(d.keys_src.data(), d.values_src.data(), pairs.keys_in.data(), pairs.values_in.data(), n,
                        stream);
  for (int w = 0; w < config.warmup; ++w) {
    restore();
    sorter.sort(buffers, stream);
    sorter.timer().wait_last();
  }
  DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));

  Samples samples;
  for (int r = 0; r < config.reps; ++r) {
    restore();
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.start(), stream));
    {
      const NvtxRange timed("timed");  // the sorts the rows report, apart from warm-up and --check
      sorter.sort(buffers, stream);
    }
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
    DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(events.stop()));
    float ms = 0;
    DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(), events.stop()));
    samples.total_ms.push_back(ms);
    samples.add_steps(sorter.timer().wait_last());
  }
  fill_row(row, samples);

  if (config.check) {
    // One more, untimed run into poisoned outputs, so a sorter that writes nothing fails.
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(pairs.keys_out.data(), 0xFF, n * sizeof(float), stream));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(pairs.values_out.data(), 0xFF, n * sizeof(std::uint32_t), stream));
    restore();
    sorter.sort(buffers, stream);
    std::vector<float> keys_out(n);
    std::vector<std::uint32_t> values_out(n);
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(keys_out.data(), pairs.keys_out.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(values_out.data(), pairs.values_out.data(), n * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const CheckResult result = check_sorted_pairs(input.keys, input.ref(), keys_out, values_out);
    row.check = result.ok ? "pass" : "FAIL: " + result.message;
  }
}

void run_cpu(Sorter& sorter, const BenchConfig& config, Input& input, Row& row) {
  const std::size_t n = row.n;
  HostPairBuffers pairs(n);
  const SortBuffers buffers = pairs.buffers();
  auto restore = [&] {
    std::memcpy(pairs.keys_in.data(), input.keys.data(), n * sizeof(float));
    std::memcpy(pairs.values_in.data(), input.values.data(), n * sizeof(std::uint32_t));
  };
  for (int w = 0; w < config.warmup; ++w) {
    restore();
    sorter.sort(buffers);
  }
  Samples samples;
  for (int r = 0; r < config.reps; ++r) {
    restore();
    const auto start = std::chrono::steady_clock::now();
    {
      const NvtxRange timed("timed");
      sorter.sort(buffers);
    }
    const auto stop = std::chrono::steady_clock::now();
    samples.total_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    samples.add_steps(sorter.timer().wait_last());
  }
  fill_row(row, samples);
  if (config.check) {
    std::fill(pairs.keys_out.begin(), pairs.keys_out.end(), std::numeric_limits<float>::quiet_NaN());
    std::fill(pairs.values_out.begin(), pairs.values_out.end(), 0xFFFFFFFFu);
    restore();
    sorter.sort(buffers);
    const CheckResult result = check_sorted_pairs(input.keys, input.ref(), pairs.keys_out, pairs.values_out);
    row.check = result.ok ? "pass" : "FAIL: " + result.message;
  }
}

bool available_here(const SorterInfo& info) {
  std::string why;
  const bool ok = info.is_available(&why);
  cudaGetLastError();
  return ok;
}

// The rows this machine can run, in order, and why the others are left out.
struct Runnable {
  std::vector<SorterVariant> variants;
  std::vector<std::string> notes;  // one per variant that cannot run here (with a device)
  std::string gpu_skipped;         // without a device: the GPU sorters left out, in one note
  bool any_gpu = false, any_cpu = false;
};

Runnable runnable_variants(const BenchConfig& config, bool gpu) {
  Runnable runnable;
  for (SorterVariant& v : resolve_variants(config, sorter_registry(), available_here)) {
    std::string why;
    if (!v.info->is_available(&why)) {
      cudaGetLastError();
      if (!gpu && v.info->backend == Backend::Gpu) {
        if (runnable.gpu_skipped.find(std::string(v.info->name)) == std::string::npos)
          runnable.gpu_skipped += (runnable.gpu_skipped.empty() ? "" : ", ") + std::string(v.info->name);
      } else {
        runnable.notes.push_back("skipping " + std::string(v.info->name) + ": " + why);
      }
      continue;
    }
    runnable.any_gpu |= v.info->backend == Backend::Gpu;
    runnable.any_cpu |= v.info->backend == Backend::Cpu;
    runnable.variants.push_back(std::move(v));
  }
  return runnable;
}

// --csv and --json, each opened before anything runs (a bad path fails now, not after the rows).
std::vector<ResultFile> open_result_files(const BenchConfig& config) {
  std::vector<ResultFile> files;
  const auto add = [&files](const std::string& path, auto* render) {
    if (!path.empty()) files.push_back({path, render, std::make_shared<PlannedOutput>(path)});
  };
  add(config.csv_path, csv_text);
  add(config.json_path, json_text);
  return files;
}

// Why each size's rows cannot run here ("" where they fit): every size is checked against the
// memory it needs before anything is generated, and what cannot fit is reported now, with the
// estimate.
struct MemoryFit {
  std::vector<std::string> host_short, device_short;
};

MemoryFit check_memory(const BenchConfig& config, const Runnable& runnable) {
  const std::optional<std::uint64_t> host_available = host_memory_available();
  const std::optional<std::uint64_t> device_available = runnable.any_gpu ? device_memory_free() : std::nullopt;
  MemoryFit fit;
  fit.host_short.resize(config.sizes.size());
  fit.device_short.resize(config.sizes.size());
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    const std::size_t n = config.sizes[i];
    const MemoryEstimate need = estimate_memory(n, runnable.any_gpu, runnable.any_cpu, config.check);
    fit.host_short[i] = memory_shortfall(need.host_bytes, host_available, "host", "available");
    fit.device_short[i] = memory_shortfall(need.device_bytes, device_available, "device", "free");
    if (!fit.host_short[i].empty())
      std::cout << "note: n=" << format_size(n) << " skipped: " << fit.host_short[i] << '\n';
    else if (!fit.device_short[i].empty())
      std::cout << "note: n=" << format_size(n) << ": GPU rows skipped: the benchmark's own buffers (6 x " << n
                << " x 4 bytes): " << fit.device_short[i] << '\n';
  }
  std::cout << '\n' << std::flush;
  return fit;
}

// What the rows of one run share: the configuration, the stream and the events (when a GPU sorter
// runs), the header and the result files, rewritten after every row.
struct RowRun {
  RowRun(const BenchConfig& run_config, cudaStream_t run_stream, const Events* run_events, const RunHeader& run_header,
         const std::vector<ResultFile>& result_files)
      : config(run_config), stream(run_stream), events(run_events), header(run_header), files(result_files) {}
  const BenchConfig& config;
  cudaStream_t stream;
  const Events* events;
  const RunHeader& header;
  const std::vector<ResultFile>& files;
  std::size_t total = 0;  // rows to run
  std::vector<Row> rows;
  bool failed = false;
  std::size_t skipped = 0;
};

// One size's device buffers, or why there are none ("" with no GPU rows at all).
std::unique_ptr<DeviceSet> make_device_set(std::size_t n, const std::string& device_short, bool wanted,
                                           std::string& error) {
  if (!device_short.empty()) {
    error = "skipped: input buffers: " + device_short;
    return nullptr;
  }
  if (!wanted) return nullptr;
  try {
    return std::make_unique<DeviceSet>(n);
  } catch (const CapacityError& e) {
    error = "skipped: input buffers do not fit: " + first_line(e.what());
    cudaGetLastError();
    std::cout << "n=" << format_size(n) << ": the benchmark's own buffers (6 x " << n
              << " x 4 bytes) do not fit in device memory: " << e.what() << '\n';
    return nullptr;
  }
}

// The input of one size and distribution on the host, and uploaded to the pristine device copy;
// "" or why the rows are skipped.
std::string make_input(const BenchConfig& config, Distribution dist, std::size_t n, DeviceSet* device_set,
                       cudaStream_t stream, Input& input) {
  try {
    input.keys = make_keys(dist, n, config.seed);
    input.values = make_values(n);
    if (device_set) {
      // On the benchmark's own stream (non-blocking: it would not wait for the legacy default
      // stream), and finished before any repetition restores from it.
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(device_set->keys_src.data(), input.keys.data(), n * sizeof(float),
                                           cudaMemcpyHostToDevice, stream));
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(device_set->values_src.data(), input.values.data(),
                                           n * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  } catch (const std::bad_alloc&) {
    return "skipped: host memory too small for the input";
  }
  return "";
}

// One row: the variant sorted on the input, or `skip_reason` (why it cannot be) in its check column.
Row run_row(const SorterVariant& v, std::size_t n, Distribution dist, const std::optional<std::string>& skip_reason,
            DeviceSet* device_set, Input& input, RowRun& run) {
  Row row;
  row.sorter = std::string(v.info->name);
  row.options = v.options_text;
  row.baseline = v.baseline;
  row.gpu = v.info->backend == Backend::Gpu;
  row.dist = std::string(distribution_name(dist));
  row.n = n;
  if (skip_reason) {
    row.check = *skip_reason;
    return row;
  }
  try {
    std::unique_ptr<Sorter> sorter = v.info->create(v.options);
    sorter->reserve(n);
    if (row.gpu)
      run_gpu(*sorter, run.config, *device_set, input, run.stream, *run.events, row);
    else
      run_cpu(*sorter, run.config, input, row);
  } catch (const CapacityError& e) {
    cudaGetLastError();
    row.check = "skipped: " + first_line(e.what());
  } catch (const std::bad_alloc&) {
    row.check = "skipped: host memory too small";
  } catch (const std::exception& e) {
    row.check = "error: " + first_line(e.what());
    run.failed = true;
  }
  return row;
}

// Every row of one size: each distribution's input made once, every variant sorted on it, each
// row printed and saved as it finishes.
void run_size(std::size_t size_index, const std::vector<SorterVariant>& variants, const Runnable& runnable,
              const MemoryFit& fit, RowRun& run) {
  const std::size_t n = run.config.sizes[size_index];
  const bool host_fits = fit.host_short[size_index].empty();
  std::string device_set_error;
  const std::unique_ptr<DeviceSet> device_set =
      make_device_set(n, fit.device_short[size_index], runnable.any_gpu && host_fits, device_set_error);
  for (const Distribution dist : run.config.distributions) {
    Input input;
    std::string input_error;
    if (!host_fits)
      input_error = "skipped: " + fit.host_short[size_index];
    else if (device_set || runnable.any_cpu)
      input_error = make_input(run.config, dist, n, device_set.get(), run.stream, input);
    double cub_median = std::numeric_limits<double>::quiet_NaN();
    for (const SorterVariant& v : variants) {
      if (stop_signal() != 0) return;  // the rows so far are written whole by the caller
      std::optional<std::string> skip;
      if (!input_error.empty())
        skip = input_error;
      else if (v.info->backend == Backend::Gpu && !device_set)
        skip = device_set_error;
      Row row = run_row(v, n, dist, skip, device_set.get(), input, run);
      if (v.baseline) cub_median = row.median_ms;
      row.vs_cub = row.median_ms / cub_median;
      if (row.check.starts_with("FAIL")) run.failed = true;
      if (row.check.starts_with("skipped")) ++run.skipped;
      run.rows.push_back(row);
      std::cout << progress_line(row, run.rows.size(), run.total) << '\n' << std::flush;
      for (const ResultFile& file : run.files) file.save(run.header, run.rows, false);
    }
  }
}

// The table of every row.
void print_rows(const std::vector<Row>& rows) {
  std::cout << '\n';
  print_table(std::cout, rows);
}

// Each result file written a last time, whole.
void write_results(const std::vector<Row>& rows, const RunHeader& header, const std::vector<ResultFile>& files) {
  for (const ResultFile& file : files) {
    file.save(header, rows, true);
    std::cout << "wrote " << quote_path(file.path) << '\n';
  }
}

int run(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  const ParseResult parsed = parse_bench_args(args);
  if (!parsed.ok()) {
    std::cerr << "depthsort-bench: " << parsed.error << "\n(depthsort-bench --help lists every flag)\n";
    return kExitUsage;
  }
  const BenchConfig& config = *parsed.config;
  if (config.help) {
    std::cout << usage_text();
    return 0;
  }
  if (config.list) {
    print_registry(std::cout);
    return 0;
  }
  // Two outputs to one path would overwrite each other: refused.
  const NamedPath outputs[] = {{"--csv", config.csv_path}, {"--json", config.json_path}};
  if (const std::string clash = find_path_clash({}, outputs); !clash.empty()) {
    std::cerr << "depthsort-bench: " << clash << '\n';
    return kExitUsage;
  }
  const std::vector<ResultFile> files = open_result_files(config);

  std::string why_no_gpu;
  const bool gpu = cuda_device_usable(&why_no_gpu);
  cudaGetLastError();
  const Runnable runnable = runnable_variants(config, gpu);
  const RunHeader header = make_header(argc, argv, config, gpu, why_no_gpu);
  for (const std::string& line : header_lines(header)) std::cout << line << '\n';
  if (!gpu)
    std::cout << "note: " << why_no_gpu << ": GPU sorters skipped"
              << (runnable.gpu_skipped.empty() ? "" : " (" + runnable.gpu_skipped + ")")
              << "; only the CPU sorter runs here, and only when named (--sorters cpu)\n";
  for (const std::string& note : runnable.notes) std::cout << "note: " << note << '\n';
  if (runnable.variants.empty()) {
    std::cout << "note: nothing to run here" << (gpu ? "" : " (try --sorters cpu)") << '\n';
    for (const ResultFile& file : files) file.save(header, {}, true);  // the header, no rows
    return 0;
  }

  std::optional<CudaStream> owned_stream;
  std::optional<Events> events;
  if (runnable.any_gpu) {
    owned_stream.emplace();
    events.emplace();
  }
  const MemoryFit fit = check_memory(config, runnable);
  RowRun run(config, owned_stream ? owned_stream->get() : nullptr, events ? &*events : nullptr, header, files);
  if (config.sequence) {
    if (runnable.any_cpu) std::cout << "note: --sequence runs GPU sorters only; the CPU sorter is left out\n";
    if (!runnable.any_gpu) {
      std::cout << "note: nothing to run here: --sequence needs a CUDA device\n";
      for (const ResultFile& file : files) file.save(header, {}, true);
      return 0;
    }
    const bool ok = run_sequences(config, runnable.variants, run.stream, *events, header, files, run.rows);
    print_rows(run.rows);
    write_results(run.rows, header, files);
    return ok ? 0 : 1;
  }
  run.total = config.sizes.size() * config.distributions.size() * runnable.variants.size();
  for (std::size_t size_index = 0; size_index < config.sizes.size() && stop_signal() == 0; ++size_index)
    run_size(size_index, runnable.variants, runnable, fit, run);
  print_rows(run.rows);
  if (const int signal = stop_signal(); signal != 0) {
    std::cout << "stopped by " << stop_signal_name(signal) << " after " << run.rows.size() << " of " << run.total
              << " rows\n";
    write_results(run.rows, header, files);
    return 128 + signal;
  }
  if (run.skipped > 0)
    std::cout << run.skipped << " row(s) skipped: they did not fit in memory (see the check column)\n";
  if (!gpu) std::cout << "note: ran without a CUDA device: CPU sorter only\n";
  write_results(run.rows, header, files);
  return run.failed ? 1 : 0;
}

}  // namespace
}  // namespace depthsort::bench

int main(int argc, char** argv) {
  // Before anything is written: a signal, a closed pipe or `ulimit -f` ends a run with its
  // outputs whole or absent and a reason (depthsort/host/stop_signal.hpp).
  depthsort::install_stop_handler();
  try {
    return depthsort::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "depthsort-bench: " << e.what() << '\n';
    const int signal = depthsort::stop_signal();
    return signal > 0 ? 128 + signal : 1;
  }
}
