// depthsort-multigpu: tests and benchmark of Sintorn & Assarsson's Section 6.1 split on N GPUs
// (kernels/sort/multi_gpu/, docs/algorithms/multi-gpu.md). A program of its own so that only it
// needs libnccl at run time.
//
//   --test                 both cases (pairs on GPU 0 / pairs spread over the GPUs) with 1 GPU and
//                          with every GPU found, every distribution, sizes around the split points,
//                          inputs that put everything on one side; exact against the CPU reference;
//                          last line "N passed, M failed". Exit 77 (ctest: skipped) without enough GPUs.
//   --bench                both cases against one GPU's `hybrid` and `cub-radix` in the same run.
// See usage() for the flags.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
#include "depthsort/host/stats.hpp"
#include "depthsort/harness/workload.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "gpu_inputs.hpp"

namespace depthsort::multi_gpu {
namespace {

constexpr int kExitSkipped = 77;  // ctest SKIP_RETURN_CODE
constexpr int kExitUsage = 2;

// ---------------------------------------------------------------------------------------------
// --bench

struct Timing {
  std::vector<double> total;
  std::vector<StepTimes> steps;
};


struct Row {
  std::string kase;
  int gpus = 1;
  std::size_t n = 0;
  std::string dist;
  int reps = 0;
  double median_ms = 0, min_ms = 0, p90_ms = 0;
  double vs_hybrid = 0, vs_cub = 0;
  double steps[MultiGpuSorter::kSteps] = {};
  bool has_steps = false;
  std::uint64_t bytes_between = 0;
  double nccl_ms = 0;
  std::string counts;
  std::string check = "-";
};

Row timed_row(std::string kase, int gpus, std::size_t n, const std::string& dist, const std::vector<double>& samples) {
  Row row;
  row.kase = std::move(kase);
  row.gpus = gpus;
  row.n = n;
  row.dist = dist;
  row.reps = static_cast<int>(samples.size());
  row.median_ms = median(samples);
  row.min_ms = *std::min_element(samples.begin(), samples.end());
  row.p90_ms = nearest_rank_quantile(samples, 0.9);
  return row;
}

void write_csv_header(std::ostream& out) {
  out << "case,gpus,n,dist,reps,median_ms,min_ms,p90_ms,gpairs_per_s,vs_hybrid_1gpu,vs_cub_radix_1gpu,"
         "histogram_ms,partition_ms,exchange_ms,local_sort_ms,gather_ms,bytes_between_gpus,exchange_gb_per_s,"
         "nccl_same_volume_ms,nccl_gb_per_s,exchange_vs_nccl,range_counts,check\n";
}

std::string number(double v, int digits = 4) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s << std::setprecision(digits) << std::fixed << v;
  return s.str();
}

void write_csv_row(std::ostream& out, const Row& r) {
  const double gb = static_cast<double>(r.bytes_between) / 1e9;
  const double exchange = r.has_steps ? r.steps[2] : 0;
  out << r.kase << ',' << r.gpus << ',' << r.n << ',' << r.dist << ',' << r.reps << ',' << number(r.median_ms) << ','
      << number(r.min_ms) << ',' << number(r.p90_ms) << ','
      << number(static_cast<double>(r.n) / (r.median_ms * 1e-3) / 1e9, 3) << ',' << number(r.vs_hybrid, 3) << ','
      << number(r.vs_cub, 3);
  for (int s = 0; s < MultiGpuSorter::kSteps; ++s) out << ',' << (r.has_steps ? number(r.steps[s]) : "");
  out << ',' << r.bytes_between << ',' << (exchange > 0 ? number(gb / (exchange * 1e-3), 1) : "") << ','
      << (r.nccl_ms > 0 ? number(r.nccl_ms) : "") << ','
      << (r.nccl_ms > 0 ? number(gb / (r.nccl_ms * 1e-3), 1) : "") << ','
      << (r.nccl_ms > 0 && exchange > 0 ? number(exchange / r.nccl_ms, 3) : "") << ',' << r.counts << ','
      << r.check << '\n';
  out.flush();
}

std::string check_text(const CheckResult& result) { return result.ok ? "pass" : "FAIL: " + result.message; }

int run_bench(const Config& config, int found) {
  const int N = config.gpus ? config.gpus : std::min(found, kMaxGpus);
  if (N > found) {
    std::cout << "skipped: --gpus " << N << " but " << found << " GPU(s) found\n";
    return kExitSkipped;
  }
  std::ofstream csv;
  if (!config.csv.empty()) {
    csv.open(config.csv);
    if (!csv) {
      std::cerr << "depthsort-multigpu: cannot write " << config.csv << '\n';
      return kExitUsage;
    }
    write_csv_header(csv);
  }
  cudaDeviceProp prop{};
  DEPTHSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::cout << "depthsort-multigpu --bench: " << N << " x " << prop.name << ", dist " << distribution_name(config.dist)
            << ", reps " << config.reps << " (medians), warm-up " << config.warmup << std::endl;

  MultiGpuSorter multi(first_devices(N));
  std::vector<Row> rows;
  for (const std::size_t n : config.sizes) {
    std::cout << "n = " << size_text(n) << ": making the input" << std::endl;
    const std::vector<float> keys = make_keys(config.dist, n, 1);
    const std::vector<std::uint32_t> values = make_values(n);
    std::optional<std::vector<std::uint32_t>> reference;
    auto ref = [&]() -> const std::vector<std::uint32_t>& {
      if (!reference) reference = reference_order(keys);
      return *reference;
    };
    const std::string dist(distribution_name(config.dist));
    double hybrid_ms = 0, cub_ms = 0;

    // One GPU: hybrid and cub-radix on GPU 0, input restored before every repetition.
    GpuInput g0(0, n);
    g0.upload(keys.data(), values.data(), n);
    DeviceBuffer<float> out_keys;
    DeviceBuffer<std::uint32_t> out_values;
    {
      DeviceScope scope(0);
      out_keys = DeviceBuffer<float>(n, "depthsort-multigpu output");
      out_values = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu output");
    }
    for (const char* name : {"cub-radix", "hybrid"}) {
      DeviceScope scope(0);
      const SorterInfo* info = find_sorter(name);
      std::unique_ptr<Sorter> sorter = info->create(default_options(*info));
      sorter->reserve(n);
      CudaStream stream;
      CudaEvent start, stop;
      const SortBuffers buffers{g0.keys.data(), g0.values.data(), out_keys.data(), out_values.data(), n};
      std::vector<double> samples;
      for (int rep = -config.warmup; rep < config.reps; ++rep) {
        g0.restore(n, stream.get());
        DEPTHSORT_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
        sorter->sort(buffers, stream.get());
        DEPTHSORT_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
        DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(stop.get()));
        float ms = 0;
        DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        if (rep >= 0) samples.push_back(ms);
      }
      Row row = timed_row("one-gpu-" + std::string(name), 1, n, dist, samples);
      if (config.check) {
        std::vector<float> k(n);
        std::vector<std::uint32_t> v(n);
        download(k.data(), out_keys.data(), n, 0);
        download(v.data(), out_values.data(), n, 0);
        row.check = check_text(check_sorted_pairs(keys, ref(), k, v));
      }
      (std::string_view(name) == "hybrid" ? hybrid_ms : cub_ms) = row.median_ms;
      rows.push_back(row);
    }
    for (Row& r : rows)
      if (r.n == n && r.kase.rfind("one-gpu", 0) == 0) {
        r.vs_hybrid = hybrid_ms / r.median_ms;
        r.vs_cub = cub_ms / r.median_ms;
        if (csv) write_csv_row(csv, r);
      }

    multi.reserve(n);
    // Distributed inputs: GPU r holds its chunk (GPU 0's chunk is a separate copy).
    std::vector<std::unique_ptr<GpuInput>> chunks;
    std::vector<DevicePairs> chunk_pairs(N);
    for (int r = 0; r < N; ++r) {
      const std::size_t begin = chunk_begin(n, r, N), end = chunk_begin(n, r + 1, N);
      chunks.push_back(std::make_unique<GpuInput>(r, end - begin));
      chunks[r]->upload(keys.data() + begin, values.data() + begin, end - begin);
      chunk_pairs[r] = chunks[r]->pairs(end - begin);
    }
    // ms to send all n pairs out of GPU 0 once, from the NCCL probe of the equal-split row.
    double send_all_ms = 0;
    enum class Case { Gathered, Weighted, Distributed };
    for (const Case kase : {Case::Gathered, Case::Weighted, Case::Distributed}) {
      const bool gathered = kase != Case::Distributed;
      // The weighted paper's case: GPU 0 sorts a share f while the others' (1 - f) n pairs go out,
      // are sorted and come back: f T1 = (1 - f) (2 S + T1 / (N - 1)), with T1 one GPU's hybrid
      // time and S the time to send n pairs, both measured above in this run.
      double share = 0;
      if (kase == Case::Weighted) {
        if (N < 2 || send_all_ms <= 0) continue;
        const double other = 2 * send_all_ms + hybrid_ms / (N - 1);
        share = std::clamp(other / (hybrid_ms + other), 1.0 / N, Options{}.max_gpu0_share);
      }
      std::vector<double> totals;
      std::vector<double> steps[MultiGpuSorter::kSteps];
      for (int rep = -config.warmup; rep < config.reps; ++rep) {
        if (gathered) g0.restore(n, multi.stream(0));
        else
          for (int r = 0; r < N; ++r) chunks[r]->restore(chunk_pairs[r].n, multi.stream(r));
        multi.synchronize();
        if (gathered) multi.sort_gathered(g0.pairs(n), out_keys.data(), out_values.data(), share);
        else multi.sort_distributed(chunk_pairs);
        const StepTimes t = multi.last_times();
        if (rep < 0) continue;
        totals.push_back(t.total);
        const float s[MultiGpuSorter::kSteps] = {t.histogram, t.partition, t.exchange, t.local_sort, t.gather};
        for (int k = 0; k < MultiGpuSorter::kSteps; ++k) steps[k].push_back(s[k]);
      }
      std::ostringstream name;
      name << (kase == Case::Gathered ? "gathered" : kase == Case::Distributed ? "distributed" : "gathered-share");
      if (kase == Case::Weighted) name << std::fixed << std::setprecision(2) << share;
      Row row = timed_row(name.str(), N, n, dist, totals);
      row.vs_hybrid = hybrid_ms / row.median_ms;
      row.vs_cub = cub_ms / row.median_ms;
      row.has_steps = true;
      for (int k = 0; k < MultiGpuSorter::kSteps; ++k) row.steps[k] = median(steps[k]);
      row.bytes_between = multi.last_bytes_between_gpus();
      const std::vector<std::uint64_t>& counts = multi.last_counts();
      std::uint64_t exchanged = 0;  // pairs that crossed in the exchange step
      for (int r = 0; r < N; ++r) {
        row.counts += (r ? ";" : "") + std::to_string(multi.range_count(r));
        for (int j = 0; j < N; ++j)
          if (r != j) exchanged += counts[static_cast<std::size_t>(r) * N + j];
      }
      // NCCL alone moving the exchange's volume: from GPU 0 to the others (gathered) or an even
      // all-to-all (distributed).
      if (N > 1 && exchanged > 0) {
        const std::size_t per_peer = gathered ? exchanged / (N - 1) : exchanged / (static_cast<std::size_t>(N) * (N - 1));
        const float ms = multi.time_nccl_exchange(per_peer, gathered, config.reps);
        const std::size_t probe_pairs = per_peer * (gathered ? N - 1 : N * (N - 1));
        // Scaled to the exchange's exact volume (the probe's is rounded down to whole pairs per peer).
        row.nccl_ms = probe_pairs ? ms * static_cast<double>(exchanged) / static_cast<double>(probe_pairs) : 0;
        if (kase == Case::Gathered) send_all_ms = row.nccl_ms * static_cast<double>(n) / static_cast<double>(exchanged);
      }
      if (config.check) {
        std::vector<float> k(n);
        std::vector<std::uint32_t> v(n);
        if (gathered) {
          download(k.data(), out_keys.data(), n, 0);
          download(v.data(), out_values.data(), n, 0);
        } else {
          std::size_t at = 0;
          for (int r = 0; r < N; ++r) {
            download(k.data() + at, multi.range_keys(r), multi.range_count(r), multi.device(r));
            download(v.data() + at, multi.range_values(r), multi.range_count(r), multi.device(r));
            at += multi.range_count(r);
          }
        }
        row.check = check_text(check_sorted_pairs(keys, ref(), k, v));
      }
      rows.push_back(row);
      if (csv) write_csv_row(csv, row);
      std::cout << "  " << row.kase << ": " << number(row.median_ms, 3) << " ms (hybrid 1 GPU " << number(hybrid_ms, 3)
                << " ms, x" << number(row.vs_hybrid, 2) << "; cub-radix x" << number(row.vs_cub, 2) << ")" << std::endl;
    }
  }

  // The summary, last.
  std::cout << "\nsummary (" << N << " GPUs, medians in ms; steps: histogram/partition/exchange/local sort/gather)\n";
  std::cout << std::left << std::setw(22) << "case" << std::setw(9) << "n" << std::setw(11) << "median"
            << std::setw(10) << "x hybrid" << std::setw(8) << "x cub" << std::setw(44) << "steps" << std::setw(10)
            << "GB moved" << std::setw(12) << "xchg/NCCL" << "check\n";
  for (const Row& r : rows) {
    std::string steps;
    if (r.has_steps)
      for (int s = 0; s < MultiGpuSorter::kSteps; ++s) steps += (s ? "/" : "") + number(r.steps[s], 2);
    const double exchange = r.has_steps ? r.steps[2] : 0;
    std::cout << std::setw(22) << r.kase << std::setw(9) << size_text(r.n) << std::setw(11) << number(r.median_ms, 3)
              << std::setw(10) << number(r.vs_hybrid, 2) << std::setw(8) << number(r.vs_cub, 2) << std::setw(44)
              << steps << std::setw(10) << number(static_cast<double>(r.bytes_between) / 1e9, 2) << std::setw(12)
              << (r.nccl_ms > 0 ? number(exchange / r.nccl_ms, 2) : "-") << r.check << '\n';
  }
  return 0;
}

// What the logs need to be read later: NCCL's version, the GPUs, and whether they reach each
// other directly (NVLink / PCIe peer access).
void print_machine(int found) {
  int version = 0;
  DEPTHSORT_NCCL_CHECK(ncclGetVersion(&version));
  std::cout << "NCCL " << version / 10000 << '.' << (version / 100) % 100 << '.' << version % 100 << " (built with "
            << NCCL_MAJOR << '.' << NCCL_MINOR << '.' << NCCL_PATCH << "), NCCL_NVLS_ENABLE=" << std::getenv("NCCL_NVLS_ENABLE")
            << '\n';
  for (int d = 0; d < found; ++d) {
    cudaDeviceProp prop{};
    DEPTHSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    std::cout << "GPU " << d << ": " << prop.name << ", " << prop.multiProcessorCount << " SMs, "
              << prop.totalGlobalMem / (1u << 30) << " GiB; peer access to";
    for (int p = 0; p < found; ++p) {
      if (p == d) continue;
      int can = 0;
      DEPTHSORT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, d, p));
      std::cout << ' ' << p << (can ? ":yes" : ":no");
    }
    std::cout << '\n';
  }
  std::cout << std::flush;
}

int run(int argc, char** argv) {
  std::string error;
  const std::optional<Config> config = parse_args(argc, argv, error);
  if (!config) {
    std::cerr << "depthsort-multigpu: " << error << '\n' << usage();
    return kExitUsage;
  }
  if (config->help || (!config->test && !config->bench)) {
    std::cout << usage();
    return config->help ? 0 : kExitUsage;
  }
  // NVLink multicast (NVLS) stays off: NCCL would otherwise create multicast objects, which some
  // shared and virtualised machines forbid.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int found = 0;
  const cudaError_t status = cudaGetDeviceCount(&found);
  if (status != cudaSuccess) found = 0;
  const std::string why_none = status != cudaSuccess ? std::string(": ") + cudaGetErrorString(status) : "";
  if (config->require_gpus > found) {
    std::cout << "skipped: fewer than " << (config->require_gpus == 2 ? std::string("two") : std::to_string(config->require_gpus))
              << " GPUs (found " << found << why_none << ")\n";
    return kExitSkipped;
  }
  if (found == 0) {
    std::cout << "skipped: no usable CUDA device" << why_none << "\n";
    return kExitSkipped;
  }
  if (config->gpus > found) {
    std::cout << "skipped: --gpus " << config->gpus << " but " << found << " GPU(s) found\n";
    return kExitSkipped;
  }
  found = std::min(found, kMaxGpus);
  print_machine(found);
  int result = 0;
  if (config->test) result = run_tests(*config, found);
  if (config->bench && result == 0) result = run_bench(*config, found);
  return result;
}

}  // namespace
}  // namespace depthsort::multi_gpu

int main(int argc, char** argv) {
  try {
    return depthsort::multi_gpu::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "depthsort-multigpu: " << e.what() << '\n';
    return 1;
  }
}
