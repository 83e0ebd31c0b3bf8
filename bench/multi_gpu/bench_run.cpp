// depthsort-multigpu --bench: both cases against one GPU's sorts, the transfer probes, the checks, the summary.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "depthsort/harness/workload.hpp"
#include "depthsort/host/stats.hpp"
#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "bench_rows.hpp"
#include "device_check.hpp"
#include "gpu_inputs.hpp"

namespace depthsort::multi_gpu {
namespace {

// One GPU's sort of all n pairs (the baselines) on GPU 0, input restored before every repetition.
Row one_gpu_row(const std::string& name, GpuInput& g0, float* out_keys, std::uint32_t* out_values, std::size_t n,
                const Config& config, const std::vector<float>& keys, const std::vector<std::uint32_t>& reference) {
  DeviceScope scope(0);
  const SorterInfo* info = find_sorter(name);
  std::unique_ptr<Sorter> sorter =
      info->create(name == config.local_sorter ? parse_options(*info, config.local_options) : default_options(*info));
  sorter->reserve(n);
  CudaStream stream;
  CudaEvent start, stop;
  const SortBuffers buffers{g0.keys.data(), g0.values.data(), out_keys, out_values, n};
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
  Row row = timed_row("one-gpu-" + name, 1, n, std::string(distribution_name(config.dist)), samples);
  row.sorter = name;
  if (config.check) {
    std::vector<float> k(n);
    std::vector<std::uint32_t> v(n);
    download(k.data(), out_keys, n, 0);
    download(v.data(), out_values, n, 0);
    row.check = check_text(check_sorted_pairs(keys, reference, k, v));
  }
  return row;
}
}  // namespace

int run_bench(const Config& config, int found) {
  std::vector<int> counts = config.gpus.empty() ? std::vector<int>{std::min(found, kMaxGpus)} : config.gpus;
  for (const int N : counts)
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
  std::cout << "depthsort-multigpu --bench: GPU counts";
  for (const int N : counts) std::cout << ' ' << N;
  std::cout << " x " << prop.name << ", dist " << distribution_name(config.dist) << ", reps " << config.reps
            << " (medians), warm-up " << config.warmup << std::endl;

  Options options;
  options.levels = config.levels;
  options.local_sorter = config.local_sorter;
  options.local_options = config.local_options;
  options.chunks = config.chunks;
  options.transport = config.transport;
  options.cut_bits = config.cut_bits;
  options.keep_sorters = false;  // at 1G pairs GPU 0 holds one sorter's workspace, not two
  // One sorter per GPU count, made once (NCCL's set-up), its buffers released between sizes.
  std::map<int, std::unique_ptr<MultiGpuSorter>> sorters;
  std::vector<Row> rows;
  std::vector<Model> models;
  int failures = 0;
  for (const std::size_t n : config.sizes) {
    try {
      for (auto& [count, sorter] : sorters) sorter->release();
      std::cout << "n = " << size_text(n) << ": making the input" << std::endl;
      const std::vector<float> keys = make_keys(config.dist, n, 1);
      const std::vector<std::uint32_t> values = make_values(n);
      const std::vector<std::uint32_t> reference = config.check ? reference_order(keys) : std::vector<std::uint32_t>{};
      const std::string dist(distribution_name(config.dist));

      // One GPU: cub-radix and hybrid (and the local sorter asked for) on GPU 0.
      GpuInput g0(0, n);
      g0.upload(keys.data(), values.data(), n);
      DeviceBuffer<float> out_keys;
      DeviceBuffer<std::uint32_t> out_values;
      {
        DeviceScope scope(0);
        out_keys = DeviceBuffer<float>(n, "depthsort-multigpu output");
        out_values = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu output");
      }
      std::vector<std::string> names{"cub-radix", "hybrid"};
      if (!config.local_sorter.empty() && std::find(names.begin(), names.end(), config.local_sorter) == names.end())
        names.push_back(config.local_sorter);
      std::map<std::string, double> one_gpu;
      const std::size_t first_row = rows.size();
      for (const std::string& name : names) {
        rows.push_back(one_gpu_row(name, g0, out_keys.data(), out_values.data(), n, config, keys, reference));
        one_gpu[name] = rows.back().median_ms;
      }
      const double hybrid_ms = one_gpu["hybrid"], cub_ms = one_gpu["cub-radix"];
      for (std::size_t i = first_row; i < rows.size(); ++i) {
        rows[i].vs_hybrid = hybrid_ms / rows[i].median_ms;
        rows[i].vs_cub = cub_ms / rows[i].median_ms;
        if (csv) write_csv_row(csv, rows[i]);
        std::cout << "  " << rows[i].kase << ": " << number(rows[i].median_ms, 3) << " ms" << std::endl;
      }

      for (const int N : counts) {
        auto& slot = sorters[N];
        if (!slot) slot = std::make_unique<MultiGpuSorter>(first_devices(N), options);
        for (auto& [count, sorter] : sorters)
          if (count != N) sorter->release();
        MultiGpuSorter& multi = *slot;
        multi.reserve(n);
        // Sub-ranges per GPU of each case (the model's pipeline is the paper's case's).
        const int K = config.chunks > 0 ? config.chunks : auto_chunks(n, N, true);
        const int K_distributed = config.chunks > 0 ? config.chunks : auto_chunks(n, N, false);
        // Distributed inputs: GPU r holds its part (GPU 0's part is a separate copy).
        std::vector<std::unique_ptr<GpuInput>> parts;
        std::vector<DevicePairs> part_pairs(N);
        for (int r = 0; r < N && N > 1; ++r) {
          const std::size_t begin = chunk_begin(n, r, N), end = chunk_begin(n, r + 1, N);
          parts.push_back(std::make_unique<GpuInput>(r, end - begin));
          parts[r]->upload(keys.data() + begin, values.data() + begin, end - begin);
          part_pairs[r] = parts[r]->pairs(end - begin);
        }
        // S: the transport of the default rows sending n pairs out of GPU 0 (measured on as many as
        // the other GPUs can take).
        double send_all_ms = 0;
        const bool copy_engines =
            config.transport == Transport::CopyEngines || (config.transport == Transport::Auto && multi.peer_access());
        if (N > 1) {
          const std::uint64_t each = (n + N - 1) / N;
          std::vector<std::uint64_t> pattern(static_cast<std::size_t>(N) * N, 0);
          for (int j = 1; j < N; ++j) pattern[j] = each;
          const float ms =
              copy_engines ? multi.time_copies(pattern, config.reps) : multi.time_nccl(pattern, config.reps);
          send_all_ms = ms * static_cast<double>(n) / static_cast<double>(each * static_cast<std::uint64_t>(N - 1));
        }
        Model model;
        model.transport = copy_engines ? "copy engines" : "NCCL";
        model.gpus = N, model.chunks = K, model.n = n;
        model.sorter = multi.sorter_name(Case::Gathered);
        model.t1 = one_gpu.count(model.sorter) ? one_gpu[model.sorter] : 0;
        model.s = send_all_ms;
        if (N > 1 && model.t1 > 0) {
          model.f = model_share(model.t1, model.s, N);
          model.f_pipelined = std::clamp(model_share(model.t1, model.s / K, N), 1.0 / N, Options{}.max_gpu0_share);
        }

        // The rows: first the default transport and sub-ranges (the goals), then the same with
        // the other transport, with one sub-range, and (distributed) with all 32 bits sorted.
        const Transport other =
            multi.peer_access() && config.transport != Transport::Nccl ? Transport::Nccl : Transport::CopyEngines;
        const std::string other_suffix = other == Transport::Nccl ? "-nccl" : "-ce";
        struct Variant {
          std::string name;
          Case kase;
          int chunks;
          double share;
          Transport transport;
          bool cut_bits;
        };
        std::vector<Variant> variants;
        if (N > 1)
          variants.push_back({"distributed", Case::Distributed, config.chunks, 0.0, config.transport, config.cut_bits});
        variants.push_back({"gathered", Case::Gathered, config.chunks, 0.0, config.transport, config.cut_bits});
        if (N > 1) {
          std::ostringstream weighted;
          weighted << "gathered-share" << std::fixed << std::setprecision(2) << model.f_pipelined;
          variants.push_back(
              {weighted.str(), Case::Gathered, config.chunks, model.f_pipelined, config.transport, config.cut_bits});
          variants.push_back(
              {"distributed" + other_suffix, Case::Distributed, config.chunks, 0.0, other, config.cut_bits});
          variants.push_back({"gathered" + other_suffix, Case::Gathered, config.chunks, 0.0, other, config.cut_bits});
          if (K_distributed > 1)
            variants.push_back({"distributed-k1", Case::Distributed, 1, 0.0, config.transport, config.cut_bits});
          if (K > 1) variants.push_back({"gathered-k1", Case::Gathered, 1, 0.0, config.transport, config.cut_bits});
          if (config.cut_bits && multi.sorter_name(Case::Distributed) == "cub-radix")
            variants.push_back({"distributed-allbits", Case::Distributed, config.chunks, 0.0, config.transport, false});
        }
        DeviceCheck device_check(first_devices(N), n);
        for (const Variant& v : variants) {
          const bool gathered = v.kase == Case::Gathered;
          if (v.share > 0 && model.t1 <= 0) continue;
          multi.set_chunks(v.chunks);
          multi.set_transport(v.transport);
          multi.set_cut_bits(v.cut_bits);
          multi.prepare(v.kase);
          std::vector<double> totals;
          std::vector<double> steps[MultiGpuSorter::kSteps];
          for (int rep = -config.warmup; rep < config.reps; ++rep) {
            if (gathered)
              g0.restore(n, multi.stream(0));
            else
              for (int r = 0; r < N; ++r) parts[r]->restore(part_pairs[r].n, multi.stream(r));
            multi.synchronize();
            if (gathered)
              multi.sort_gathered(g0.pairs(n), out_keys.data(), out_values.data(), v.share);
            else
              multi.sort_distributed(part_pairs);
            const StepTimes t = multi.last_times();
            if (rep < 0) continue;
            totals.push_back(t.total);
            const float s[MultiGpuSorter::kSteps] = {t.splitters, t.partition, t.exchange, t.local_sort, t.gather};
            for (int k = 0; k < MultiGpuSorter::kSteps; ++k) steps[k].push_back(s[k]);
          }
          Row row = timed_row(v.name, N, n, dist, totals);
          row.vs_hybrid = hybrid_ms / row.median_ms;
          row.vs_cub = cub_ms / row.median_ms;
          row.sorter = multi.local_sort_label(v.kase);
          row.chunks = multi.last_chunks();
          row.transport = N > 1 ? transport_name(multi.last_transport()) : "-";
          row.splitter_source = N * row.chunks == 1 ? "-" : multi.last_from_candidates() ? "candidates" : "every key";
          row.candidates = multi.last_candidates();
          row.has_steps = true;
          for (int k = 0; k < MultiGpuSorter::kSteps; ++k) row.steps[k] = median(steps[k]);
          row.bytes_between = multi.last_bytes_between_gpus();
          for (const std::uint64_t pairs : multi.last_counts()) row.exchange_bytes += pairs * 8;
          for (int r = 0; r < N; ++r) row.counts += (r ? ";" : "") + std::to_string(multi.range_count(r));
          // The last repetition's output, checked on the GPUs (every GPU reads the input keys and
          // the other bitmaps on GPU 0: only with peer access).
          if (N == 1 || multi.peer_access()) {
            std::vector<OutputRange> ranges;
            if (gathered)
              ranges.push_back({multi.device(0), out_keys.data(), out_values.data(), n});
            else
              for (int r = 0; r < N; ++r)
                ranges.push_back({multi.device(r), multi.range_keys(r), multi.range_values(r), multi.range_count(r)});
            const std::string why = device_check.check(ranges, g0.keys_src.data(), n);
            row.check = why.empty() ? "pass" : "FAIL: " + why;
            if (!why.empty()) ++failures;
          }
          // NCCL alone, and the copy engines alone, moving the exchange's pairs (the same pairs
          // from the same GPUs to the same GPUs) all at once.
          if (N > 1 && row.exchange_bytes > 0) {
            const std::vector<std::uint64_t> exchange = multi.last_counts();
            try {
              row.nccl_ms = multi.time_nccl(exchange, config.reps);
              if (multi.peer_access()) row.ce_ms = multi.time_copies(exchange, config.reps);
            } catch (const CapacityError& e) {
              std::cout << "  " << v.name << ": transfer probe skipped: " << e.what() << std::endl;
            }
          }
          if (config.check) {
            std::vector<float> k(n);
            std::vector<std::uint32_t> vals(n);
            if (gathered) {
              download(k.data(), out_keys.data(), n, 0);
              download(vals.data(), out_values.data(), n, 0);
            } else {
              std::size_t at = 0;
              for (int r = 0; r < N; ++r) {
                download(k.data() + at, multi.range_keys(r), multi.range_count(r), multi.device(r));
                download(vals.data() + at, multi.range_values(r), multi.range_count(r), multi.device(r));
                at += multi.range_count(r);
              }
            }
            const CheckResult against = check_sorted_pairs(keys, reference, k, vals);
            if (!against.ok) ++failures;
            row.check += std::string("; reference ") + (against.ok ? "pass" : "FAIL: " + against.message);
          }
          if (v.name == "gathered") model.even_ms = row.median_ms;
          if (v.share > 0) {
            model.weighted_ms = row.median_ms;
            model.pre = row.steps[0] + row.steps[1];
          }
          rows.push_back(row);
          if (csv) write_csv_row(csv, row);
          std::cout << "  " << row.kase << " (" << N << " GPUs, " << row.sorter << ", " << row.transport
                    << ", K = " << row.chunks << "): " << number(row.median_ms, 3) << " ms (x"
                    << number(row.vs_hybrid, 2) << " hybrid, x" << number(row.vs_cub, 2) << " cub-radix; steps";
          for (int k = 0; k < MultiGpuSorter::kSteps; ++k) std::cout << ' ' << number(row.steps[k], 2);
          std::cout << "; NCCL alone " << number(row.nccl_ms, 2) << " ms, copy engines alone " << number(row.ce_ms, 2)
                    << " ms; splitters from " << row.splitter_source << "; " << row.check << ")" << std::endl;
        }
        multi.set_transport(config.transport);
        multi.set_cut_bits(config.cut_bits);
        if (N > 1 && model.t1 > 0 && model.weighted_ms > 0) {
          models.push_back(model);
          std::cout << model.text() << std::endl;
        }
      }
    } catch (const CudaError&) {
      throw;  // the context may be unusable: stop here, with what was written so far
    } catch (const std::exception& e) {
      ++failures;
      std::cout << "n = " << size_text(n) << ": FAILED: " << e.what() << std::endl;
    }
  }

  // The summary, last.
  std::cout << "\nsummary (medians in ms; steps: splitters/partition/exchange/local sort/gather, overlapping; "
               "xchg/NCCL: NCCL's own time for the exchange's pairs in one call over the exchange's rounds, 1.00 = "
               "NCCL's rate)\n";
  std::cout << std::left << std::setw(22) << "case" << std::setw(5) << "gpus" << std::setw(7) << "n" << std::setw(10)
            << "median" << std::setw(9) << "x hybrid" << std::setw(7) << "x cub" << std::setw(3) << "K" << std::setw(34)
            << "steps" << std::setw(8) << "GB" << std::setw(10) << "xchg/NCCL"
            << "check\n";
  for (const Row& r : rows) {
    std::string steps;
    if (r.has_steps)
      for (int s = 0; s < MultiGpuSorter::kSteps; ++s) steps += (s ? "/" : "") + number(r.steps[s], 2);
    const double transfer = exchange_ms(r);
    std::cout << std::setw(22) << r.kase << std::setw(5) << r.gpus << std::setw(7) << size_text(r.n) << std::setw(10)
              << number(r.median_ms, 3) << std::setw(9) << number(r.vs_hybrid, 2) << std::setw(7) << number(r.vs_cub, 2)
              << std::setw(3) << r.chunks << std::setw(34) << steps << std::setw(8)
              << number(static_cast<double>(r.bytes_between) / 1e9, 2) << std::setw(10)
              << (r.nccl_ms > 0 && transfer > 0 ? number(r.nccl_ms / transfer, 2) : "-") << r.check << '\n';
  }
  for (const Model& m : models) std::cout << m.text() << '\n';
  return failures == 0 ? 0 : 1;
}

}  // namespace depthsort::multi_gpu
