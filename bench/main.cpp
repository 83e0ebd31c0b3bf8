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
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_args.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/pair_buffers.hpp"
#include "depthsort/host/memory_available.hpp"
#include "depthsort/host/output_file.hpp"
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
// Header: device, versions, date, command line.

std::string shell_quote(std::string_view arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=.,:/^@%") == std::string_view::npos)
    return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string version_text(int v) {
  return v <= 0 ? std::string("-") : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

RunHeader make_header(int argc, char** argv, const BenchConfig& config, bool gpu,
                      const std::string& why_no_gpu) {
  RunHeader h;
  for (int i = 0; i < argc; ++i) h.command += (i ? " " : "") + shell_quote(argv[i]);
  h.date = utc_now();
  h.reps = config.reps;
  h.warmup = config.warmup;
  h.seed = config.seed;
  int driver = 0;
  int runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) h.driver = version_text(driver);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) h.runtime = version_text(runtime);
  cudaGetLastError();
  if (!gpu) {
    h.device = "none: " + why_no_gpu;
    return h;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    h.device = prop.name;
    h.sm_count = prop.multiProcessorCount;
    h.compute_capability = std::to_string(prop.major) + std::to_string(prop.minor);
    h.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    h.l2_mib = static_cast<double>(prop.l2CacheSize) / (1024.0 * 1024.0);
  }
  cudaGetLastError();
  return h;
}

// ---------------------------------------------------------------------------------------------
// --list: the registry table.

void print_registry(std::ostream& out) {
  std::vector<std::vector<std::string>> lines;
  lines.push_back({"name", "backend", "stable", "available", "origin"});
  struct Extra {
    std::string description;
    std::vector<std::string> options;
  };
  std::vector<Extra> extras;
  for (const SorterInfo& info : sorter_registry()) {
    std::string why;
    const bool available = info.is_available(&why);
    lines.push_back({std::string(info.name), info.backend == Backend::Gpu ? "gpu" : "cpu",
                     info.stable ? "yes" : "no", available ? "yes" : "no", std::string(info.origin)});
    Extra extra{std::string(info.description), {}};
    if (!available) extra.description += "\n    not available here: " + why;
    for (const OptionSpec& spec : info.options) {
      extra.options.push_back(std::string(spec.name) + "=" + std::to_string(spec.default_value) +
                              (spec.is_flag() ? " (flag 0|1)"
                                              : " (" + std::to_string(spec.min_value) + ".." +
                                                    std::to_string(spec.max_value) + ")") +
                              "  " + std::string(spec.help));
    }
    extras.push_back(std::move(extra));
  }
  cudaGetLastError();
  std::vector<std::size_t> width(lines[0].size(), 0);
  for (const auto& line : lines)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  for (std::size_t r = 0; r < lines.size(); ++r) {
    std::string text;
    for (std::size_t c = 0; c < lines[r].size(); ++c) {
      text += lines[r][c];
      if (c + 1 < lines[r].size()) text += std::string(width[c] - lines[r][c].size() + 2, ' ');
    }
    out << text << '\n';
    if (r == 0) continue;
    const Extra& extra = extras[r - 1];
    out << "    " << extra.description << '\n';
    if (extra.options.empty()) out << "    options: none\n";
    for (const std::string& option : extra.options) out << "    option " << option << '\n';
  }
  out << "\ndistributions: " << distribution_names() << '\n'
      << "Options are set with --options NAME:opt=value,... (see --help).\n";
}

// ---------------------------------------------------------------------------------------------
// Independent inputs (--dist): each size's pairs sorted --reps times.

// Device buffers for one size: the pristine input, and the sorter's input and output pairs.
struct DeviceSet {
  DeviceBuffer<float> keys_src;
  DeviceBuffer<std::uint32_t> values_src;
  DevicePairs pairs;
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

void run_gpu(Sorter& sorter, const BenchConfig& config, DeviceSet& d, Input& input,
             cudaStream_t stream, const Events& events, Row& row) {
  const std::size_t n = row.n;
  DevicePairs& pairs = d.pairs;
  const SortBuffers buffers = pairs.buffers(0, n);
  auto restore = [&] {
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(pairs.keys_in.data(), d.keys_src.data(), n * sizeof(float),
                                         cudaMemcpyDeviceToDevice, stream));
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(pairs.values_in.data(), d.values_src.data(),
                                         n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
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
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(keys_out.data(), pairs.keys_out.data(), n * sizeof(float),
                                         cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(values_out.data(), pairs.values_out.data(),
                                         n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const CheckResult result = check_sorted_pairs(input.keys, input.ref(), keys_out, values_out);
    row.check = result.ok ? "pass" : "FAIL: " + result.message;
  }
}

void run_cpu(Sorter& sorter, const BenchConfig& config, Input& input, Row& row) {
  const std::size_t n = row.n;
  HostPairs pairs(n);
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
  std::vector<ResultFile> files;
  if (!config.csv_path.empty()) files.push_back({config.csv_path, csv_text});
  if (!config.json_path.empty()) files.push_back({config.json_path, json_text});
  for (ResultFile& file : files) file.stream = OutputFile(file.path).direct();  // a bad path fails here

  std::string why_no_gpu;
  const bool gpu = cuda_device_usable(&why_no_gpu);
  cudaGetLastError();

  // Rows to run: drop what cannot run here, saying why.
  std::vector<SorterVariant> variants;
  std::vector<std::string> notes;
  std::string gpu_skipped;  // without a device: the GPU sorters left out, in one note
  for (SorterVariant& v : resolve_variants(config, sorter_registry(), available_here)) {
    std::string why;
    if (!v.info->is_available(&why)) {
      cudaGetLastError();
      if (!gpu && v.info->backend == Backend::Gpu) {
        if (gpu_skipped.find(std::string(v.info->name)) == std::string::npos)
          gpu_skipped += (gpu_skipped.empty() ? "" : ", ") + std::string(v.info->name);
      } else {
        notes.push_back("skipping " + std::string(v.info->name) + ": " + why);
      }
      continue;
    }
    variants.push_back(std::move(v));
  }

  const RunHeader header = make_header(argc, argv, config, gpu, why_no_gpu);
  for (const std::string& line : header_lines(header)) std::cout << line << '\n';
  if (!gpu)
    std::cout << "note: " << why_no_gpu << ": GPU sorters skipped"
              << (gpu_skipped.empty() ? "" : " (" + gpu_skipped + ")")
              << "; only the CPU sorter runs here, and only when named (--sorters cpu)\n";
  for (const std::string& note : notes) std::cout << "note: " << note << '\n';
  if (variants.empty()) {
    std::cout << "note: nothing to run here" << (gpu ? "" : " (try --sorters cpu)") << '\n';
    for (const ResultFile& file : files) file.save(header, {}, true);  // the header, no rows
    return 0;
  }
  bool any_gpu_variant = false;
  bool any_cpu_variant = false;
  for (const SorterVariant& v : variants) {
    any_gpu_variant |= v.info->backend == Backend::Gpu;
    any_cpu_variant |= v.info->backend == Backend::Cpu;
  }

  std::optional<CudaStream> owned_stream;
  std::optional<Events> events;
  if (any_gpu_variant) {
    owned_stream.emplace();
    events.emplace();
  }
  const cudaStream_t stream = owned_stream ? owned_stream->get() : nullptr;

  // Every size is checked against the memory it needs before anything is generated; sizes that
  // cannot fit are reported now, with the estimate, and their rows skipped.
  const std::optional<std::uint64_t> host_available = host_memory_available();
  const std::optional<std::uint64_t> device_available = any_gpu_variant ? device_memory_free() : std::nullopt;
  std::vector<std::string> host_short(config.sizes.size()), device_short(config.sizes.size());
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    const std::size_t n = config.sizes[i];
    const MemoryEstimate need = estimate_memory(n, any_gpu_variant, any_cpu_variant, config.check);
    host_short[i] = memory_shortfall(need.host_bytes, host_available, "host", "available");
    device_short[i] = memory_shortfall(need.device_bytes, device_available, "device", "free");
    if (!host_short[i].empty())
      std::cout << "note: n=" << format_size(n) << " skipped: " << host_short[i] << '\n';
    else if (!device_short[i].empty())
      std::cout << "note: n=" << format_size(n) << ": GPU rows skipped: the benchmark's own buffers (6 x "
                << n << " x 4 bytes): " << device_short[i] << '\n';
  }
  std::cout << '\n' << std::flush;

  std::vector<Row> rows;
  if (config.sequence) {
    if (any_cpu_variant) std::cout << "note: --sequence runs GPU sorters only; the CPU sorter is left out\n";
    if (!any_gpu_variant) {
      std::cout << "note: nothing to run here: --sequence needs a CUDA device\n";
      for (const ResultFile& file : files) file.save(header, {}, true);
      return 0;
    }
    const bool ok = run_sequences(config, variants, stream, *events, header, files, rows);
    std::cout << '\n';
    print_table(std::cout, rows);
    for (const ResultFile& file : files) {
      file.save(header, rows, true);
      std::cout << "wrote " << quote_path(file.path) << '\n';
    }
    return ok ? 0 : 1;
  }
  const std::size_t total = config.sizes.size() * config.distributions.size() * variants.size();
  bool failed = false;
  std::size_t skipped = 0;

  for (std::size_t size_index = 0; size_index < config.sizes.size(); ++size_index) {
    const std::size_t n = config.sizes[size_index];
    std::unique_ptr<DeviceSet> device_set;
    std::string device_set_error;
    const bool host_fits = host_short[size_index].empty();
    if (!device_short[size_index].empty()) {
      device_set_error = "skipped: input buffers: " + device_short[size_index];
    } else if (any_gpu_variant && host_fits) {
      try {
        device_set = std::make_unique<DeviceSet>(n);
      } catch (const CapacityError& e) {
        device_set_error = "skipped: input buffers do not fit: " + first_line(e.what());
        cudaGetLastError();
        std::cout << "n=" << format_size(n) << ": the benchmark's own buffers (6 x " << n
                  << " x 4 bytes) do not fit in device memory: " << e.what() << '\n';
      }
    }
    for (const Distribution dist : config.distributions) {
      Input input;
      std::string input_error;
      if (!host_fits) {
        input_error = "skipped: " + host_short[size_index];
      } else if (device_set || any_cpu_variant) {
        try {
          input.keys = make_keys(dist, n, config.seed);
          input.values = make_values(n);
          if (device_set) {
            // On the benchmark's own stream (non-blocking: it would not wait for the legacy
            // default stream), and finished before any repetition restores from it.
            DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(device_set->keys_src.data(), input.keys.data(),
                                                 n * sizeof(float), cudaMemcpyHostToDevice, stream));
            DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(device_set->values_src.data(), input.values.data(),
                                                 n * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                                 stream));
            DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
          }
        } catch (const std::bad_alloc&) {
          input_error = "skipped: host memory too small for the input";
        }
      }
      double cub_median = std::numeric_limits<double>::quiet_NaN();
      for (const SorterVariant& v : variants) {
        Row row;
        row.sorter = std::string(v.info->name);
        row.options = v.options_text;
        row.baseline = v.baseline;
        row.gpu = v.info->backend == Backend::Gpu;
        row.dist = std::string(distribution_name(dist));
        row.n = n;
        if (!input_error.empty()) {
          row.check = input_error;
        } else if (row.gpu && !device_set) {
          row.check = device_set_error;
        } else {
          try {
            std::unique_ptr<Sorter> sorter = v.info->create(v.options);
            sorter->reserve(n);
            if (row.gpu)
              run_gpu(*sorter, config, *device_set, input, stream, *events, row);
            else
              run_cpu(*sorter, config, input, row);
          } catch (const CapacityError& e) {
            cudaGetLastError();
            row.check = "skipped: " + first_line(e.what());
          } catch (const std::bad_alloc&) {
            row.check = "skipped: host memory too small";
          } catch (const std::exception& e) {
            row.check = "error: " + first_line(e.what());
            failed = true;
          }
        }
        if (v.baseline) cub_median = row.median_ms;
        row.vs_cub = row.median_ms / cub_median;
        if (row.check.starts_with("FAIL")) failed = true;
        if (row.check.starts_with("skipped")) ++skipped;
        rows.push_back(row);
        std::cout << progress_line(row, rows.size(), total) << '\n' << std::flush;
        for (const ResultFile& file : files) file.save(header, rows, false);
      }
    }
  }

  std::cout << '\n';
  print_table(std::cout, rows);
  if (skipped > 0)
    std::cout << skipped << " row(s) skipped: they did not fit in memory (see the check column)\n";
  if (!gpu) std::cout << "note: ran without a CUDA device: CPU sorter only\n";

  for (const ResultFile& file : files) {
    file.save(header, rows, true);
    std::cout << "wrote " << quote_path(file.path) << '\n';
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace depthsort::bench

int main(int argc, char** argv) {
  try {
    return depthsort::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "depthsort-bench: " << e.what() << '\n';
    return 1;
  }
}
