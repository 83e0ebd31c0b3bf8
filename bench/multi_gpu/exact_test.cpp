// depthsort-multigpu --test: both cases (pairs on GPU 0 / pairs spread over the GPUs) exact
// against the CPU reference, with and without sub-ranges (the pipeline), on both transports (the
// copy engines and NCCL), both default local sorts and cub-radix for both (on the cut bits and on
// all 32), every distribution, sizes around the split points and inputs that put everything on
// one side; then an error planted into one output, which the check must catch.
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
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/registry.hpp"
#include "depthsort/host/stats.hpp"
#include "depthsort/harness/workload.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

#include "gpu_inputs.hpp"

namespace depthsort::multi_gpu {
namespace {

// ---------------------------------------------------------------------------------------------
// --test

struct Tally {
  int passed = 0, failed = 0;
  void add(bool ok, const std::string& what, const std::string& why) {
    if (ok) {
      ++passed;
      return;
    }
    ++failed;
    std::cout << "FAIL " << what << ": " << why << std::endl;
  }
};

struct TestInput {
  std::string name;
  std::vector<float> keys;
  std::vector<std::uint32_t> values;
  std::vector<std::uint32_t> reference;
};

// Inputs whose split points fall inside a run of equal keys, or that put (nearly) every pair on
// one side of a pivot: one GPU's range would be empty or hold everything without the tie split.
std::vector<TestInput> edge_inputs(std::size_t n) {
  auto bits = [](std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<TestInput> inputs;
  auto add = [&](std::string name, auto key_at) {
    TestInput t{std::move(name), std::vector<float>(n), make_values(n), {}};
    for (std::size_t i = 0; i < n; ++i) t.keys[i] = key_at(i);
    t.reference = reference_order(t.keys);
    inputs.push_back(std::move(t));
  };
  add("one-nan-payload", [&](std::size_t) { return bits(0x7FC12345u); });
  add("signed-zeros", [&](std::size_t i) { return i % 2 ? 0.0f : -0.0f; });
  add("one-inf-rest-equal", [&](std::size_t i) { return i == n / 2 ? inf : 1.0f; });
  add("neg-inf-then-one-nan", [&](std::size_t i) { return i + 1 == n ? bits(0xFFC00001u) : -inf; });
  add("half-equal-then-rising", [&](std::size_t i) { return i < n / 2 ? 2.0f : 2.0f + static_cast<float>(i); });
  return inputs;
}

class TestRunner {
 public:
  TestRunner(int max_gpus, std::size_t max_n) {
    // GPU 0 may hold everything; the others at most their share with 2 GPUs.
    for (int r = 0; r < max_gpus; ++r) inputs_.push_back(std::make_unique<GpuInput>(r, r == 0 ? max_n : max_n / 2 + 1));
    DeviceScope scope(0);
    out_keys_ = DeviceBuffer<float>(max_n, "depthsort-multigpu output");
    out_values_ = DeviceBuffer<std::uint32_t>(max_n, "depthsort-multigpu output");
  }

  // The paper's case: every pair on GPU 0, sorted output gathered on GPU 0.
  CheckResult gathered(MultiGpuSorter& sorter, const TestInput& in, bool exact_balance, double gpu0_share) {
    const std::size_t n = in.keys.size();
    GpuInput& g0 = *inputs_[0];
    g0.upload(in.keys.data(), in.values.data(), n);
    g0.restore(n, nullptr);
    {
      DeviceScope scope(0);
      if (n) {
        DEPTHSORT_CUDA_CHECK(cudaMemset(out_keys_.data(), 0xFF, n * sizeof(float)));
        DEPTHSORT_CUDA_CHECK(cudaMemset(out_values_.data(), 0xFF, n * sizeof(std::uint32_t)));
      }
      DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
    }
    sorter.sort_gathered(g0.pairs(n), out_keys_.data(), out_values_.data(), gpu0_share);
    sorter.synchronize();
    std::vector<float> keys(n), keys_after(n);
    std::vector<std::uint32_t> values(n);
    download(keys.data(), out_keys_.data(), n, 0);
    download(values.data(), out_values_.data(), n, 0);
    download(keys_after.data(), g0.keys.data(), n, 0);
    CheckResult result = check_sorted_pairs(in.keys, in.reference, keys, values);
    if (result.ok && n && std::memcmp(keys_after.data(), in.keys.data(), n * sizeof(float)) != 0)
      result = {false, "the input keys changed"};
    if (result.ok && exact_balance) result = check_balance(sorter, n, gpu0_share);
    return result;
  }

  // The distributed case: GPU r holds its part; afterwards GPU r holds range r. `plant`: the last
  // key of the last range overwritten on the device with the input's smallest key (an error the
  // check must report).
  CheckResult distributed(MultiGpuSorter& sorter, const TestInput& in, bool exact_balance, bool plant = false) {
    const std::size_t n = in.keys.size();
    const int N = sorter.gpus();
    std::vector<DevicePairs> pairs(N);
    for (int r = 0; r < N; ++r) {
      const std::size_t begin = chunk_begin(n, r, N), end = chunk_begin(n, r + 1, N);
      inputs_[r]->upload(in.keys.data() + begin, in.values.data() + begin, end - begin);
      inputs_[r]->restore(end - begin, nullptr);
      pairs[r] = inputs_[r]->pairs(end - begin);
      DeviceScope scope(r);
      DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
    }
    sorter.poison_ranges();
    sorter.synchronize();
    sorter.sort_distributed(pairs);
    sorter.synchronize();
    if (plant && N > 0 && sorter.range_count(N - 1) > 0) {
      // Out of order unless every key is the smallest.
      const float smallest = *std::min_element(in.keys.begin(), in.keys.end(), key_less);
      DeviceScope scope(sorter.device(N - 1));
      float* last = const_cast<float*>(sorter.range_keys(N - 1)) + sorter.range_count(N - 1) - 1;
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(last, &smallest, sizeof(float), cudaMemcpyHostToDevice));
    }
    std::vector<float> keys(n);
    std::vector<std::uint32_t> values(n);
    std::size_t at = 0;
    for (int r = 0; r < N; ++r) {
      const std::size_t c = sorter.range_count(r);
      if (at + c > n) return {false, "ranges hold more pairs than the input"};
      download(keys.data() + at, sorter.range_keys(r), c, sorter.device(r));
      download(values.data() + at, sorter.range_values(r), c, sorter.device(r));
      at += c;
    }
    CheckResult result =
        at == n ? check_sorted_pairs(in.keys, in.reference, keys, values)
                : CheckResult{false, "ranges hold " + std::to_string(at) + " pairs, not " + std::to_string(n)};
    if (result.ok && exact_balance) result = check_balance(sorter, n, 0.0);
    return result;
  }

  void run(MultiGpuSorter& sorter, const std::string& label, const TestInput& in, bool exact_balance, double gpu0_share,
           Tally& tally) {
    const std::string what = label + " " + in.name + " n=" + size_text(in.keys.size());
    try {
      const CheckResult result = gathered(sorter, in, exact_balance, gpu0_share);
      tally.add(result.ok, "gathered " + what, result.message);
    } catch (const std::exception& e) {
      tally.add(false, "gathered " + what, std::string("threw: ") + e.what());
    }
    try {
      const CheckResult result = distributed(sorter, in, exact_balance);
      tally.add(result.ok, "distributed " + what, result.message);
    } catch (const std::exception& e) {
      tally.add(false, "distributed " + what, std::string("threw: ") + e.what());
    }
  }

 private:
  // Exact splitters: range j holds exactly t_{j+1} - t_j pairs, t_j = floor(j n / N) (or
  // floor(share n) and even shares of the rest, for a weighted GPU 0).
  static CheckResult check_balance(const MultiGpuSorter& sorter, std::size_t n, double gpu0_share) {
    const int N = sorter.gpus();
    std::vector<std::uint64_t> edges{0};
    const std::vector<std::uint64_t> targets = split_targets(n, N, N > 1 ? gpu0_share : 0.0);
    edges.insert(edges.end(), targets.begin(), targets.end());
    while (edges.size() < static_cast<std::size_t>(N) + 1) edges.push_back(n);
    edges.back() = n;
    for (int j = 0; j < N; ++j) {
      const std::size_t expected = edges[j + 1] - edges[j];
      if (sorter.range_count(j) != expected)
        return {false, "range " + std::to_string(j) + " holds " + std::to_string(sorter.range_count(j)) +
                           " pairs, exact splitters give " + std::to_string(expected)};
    }
    return {};
  }

  std::vector<std::unique_ptr<GpuInput>> inputs_;
  DeviceBuffer<float> out_keys_;
  DeviceBuffer<std::uint32_t> out_values_;
};

}  // namespace

int run_tests(const Config& config, int found) {
  const int max_gpus = config.gpus.empty() ? found : *std::max_element(config.gpus.begin(), config.gpus.end());
  const std::size_t max_n = config.max_test_size;
  constexpr std::size_t k1M3 = (std::size_t{1} << 20) + 3, k4M5 = (std::size_t{4} << 20) + 5;
  std::vector<std::size_t> sizes{0, 1, 1000, 65537, k1M3, k4M5, std::size_t{1} << 24};
  for (const int N : {1, 2, max_gpus}) {
    sizes.push_back(N - 1);
    sizes.push_back(N + 1);
  }
  std::erase_if(sizes, [&](std::size_t s) { return s > max_n; });
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  // The sorters (each one NCCL set-up), then the configurations run on them: GPU counts 1, 2 and
  // every GPU; the default local sorts (hybrid for the paper's case, cub-radix on the cut bits for
  // the distributed one) and cub-radix for both; auto sub-ranges (one per GPU at these sizes) and
  // explicit ones (the pipeline: 3, 5 and 8 per GPU); the default transport (the copy engines where
  // every pair of GPUs has peer access) and NCCL; cub-radix on all 32 bits; the weighted paper's
  // case; the paper's single histogram pass.
  struct Sorter {
    std::unique_ptr<MultiGpuSorter> sorter;
    std::string label;
  };
  std::vector<Sorter> sorters;
  auto make = [&](int gpus, Options options, std::string label) {
    auto sorter = std::make_unique<MultiGpuSorter>(first_devices(gpus), options);
    sorter->reserve(max_n);
    sorters.push_back({std::move(sorter), "gpus=" + std::to_string(gpus) + (label.empty() ? "" : " " + label)});
    return sorters.size() - 1;
  };
  const std::size_t one = make(1, {}, "");
  const std::size_t two = max_gpus > 2 ? make(2, {}, "") : 0;
  const std::size_t all = max_gpus > 1 ? make(max_gpus, {}, "") : one;
  // One local sort for both cases: cub-radix, or the one asked for with --local-sorter.
  Options local;
  local.local_sorter = config.local_sorter.empty() ? "cub-radix" : config.local_sorter;
  local.local_options = config.local_options;
  const std::size_t all_cub = make(max_gpus, local, "local=" + local.local_sorter);
  Options single_pass;
  single_pass.levels = 1;
  const std::size_t all_single = make(max_gpus, single_pass, "levels=1");
  Options nccl;
  nccl.transport = Transport::Nccl;
  const std::size_t all_nccl = max_gpus > 1 ? make(max_gpus, nccl, "transport=nccl") : all;
  Options all_bits;
  all_bits.cut_bits = false;
  const std::size_t all_32 = make(max_gpus, all_bits, "all-bits");

  struct Run {
    std::size_t sorter;
    int chunks;
    double share;
    std::size_t max_n;
    bool exact;
  };
  std::vector<Run> runs{{one, 0, 0, max_n, true}, {one, 3, 0, k1M3, true}};
  if (max_gpus > 2) runs.push_back({two, 0, 0, max_n, true}), runs.push_back({two, 5, 0, k1M3, true});
  if (max_gpus > 1) {
    runs.push_back({all, 0, 0, max_n, true});
    runs.push_back({all, 8, 0, k4M5, true});
    runs.push_back({all, 4, 0.7, k1M3, true});
  }
  runs.push_back({all_cub, 3, 0, k4M5, true});
  if (max_gpus > 1) {
    runs.push_back({all_nccl, 0, 0, k1M3, true});
    runs.push_back({all_nccl, 3, 0, k1M3, true});
  }
  runs.push_back({all_32, 2, 0, k1M3, true});
  runs.push_back({all_single, 2, 0, k1M3, false});

  std::cout << "depthsort-multigpu --test: " << found << " GPU(s) found; default transport: "
            << (sorters[all].sorter->peer_access() || max_gpus < 2 ? "copy engines" : "NCCL (no peer access)")
            << "; sorters:";
  for (const Sorter& s : sorters) std::cout << " [" << s.label << "]";
  std::cout << "; sizes";
  for (const std::size_t s : sizes) std::cout << ' ' << size_text(s);
  std::cout << std::endl;

  TestRunner runner(max_gpus, max_n);
  Tally tally;
  auto run_all = [&](const TestInput& in) {
    for (const Run& run : runs) {
      if (in.keys.size() > run.max_n) continue;
      Sorter& s = sorters[run.sorter];
      s.sorter->set_chunks(run.chunks);
      std::string label = s.label + " chunks=" + (run.chunks ? std::to_string(run.chunks) : "auto");
      if (run.share > 0) label += " gpu0_share=" + std::to_string(run.share).substr(0, 4);
      runner.run(*s.sorter, label, in, run.exact, run.share, tally);
    }
  };
  for (const Distribution dist : all_distributions()) {
    const int failed_before = tally.failed;
    for (const std::size_t n : sizes) {
      TestInput in{std::string(distribution_name(dist)), make_keys(dist, n, n + 17), make_values(n), {}};
      in.reference = reference_order(in.keys);
      run_all(in);
    }
    std::cout << "  " << distribution_name(dist) << (tally.failed == failed_before ? ": ok" : ": FAILED") << std::endl;
  }
  std::vector<std::size_t> edge_sizes;
  for (const std::size_t n : {std::size_t{2}, std::size_t(max_gpus + 1), std::size_t{65537}, k1M3})
    if (n <= max_n) edge_sizes.push_back(n);
  for (const std::size_t n : edge_sizes) {
    const int failed_before = tally.failed;
    for (const TestInput& in : edge_inputs(n)) run_all(in);
    std::cout << "  edge inputs n=" << size_text(n) << (tally.failed == failed_before ? ": ok" : ": FAILED")
              << std::endl;
  }
  // A planted error: one key of the last range overwritten after a correct sort. The check must
  // report it, or every "passed" above means nothing.
  {
    const std::size_t n = std::min<std::size_t>(max_n, 65537);
    TestInput in{"uniform", make_keys(Distribution::Uniform, n, 5), make_values(n), {}};
    in.reference = reference_order(in.keys);
    MultiGpuSorter& sorter = *sorters[all_cub].sorter;
    sorter.set_chunks(3);
    try {
      const CheckResult result = runner.distributed(sorter, in, false, /*plant=*/true);
      tally.add(!result.ok, "planted error (one key of the last range overwritten) n=" + size_text(n),
                "the check did not catch it");
      if (!result.ok) std::cout << "  planted error caught: " << result.message << std::endl;
    } catch (const std::exception& e) {
      tally.add(false, "planted error", std::string("threw: ") + e.what());
    }
  }
  std::cout << tally.passed << " passed, " << tally.failed << " failed" << std::endl;
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace depthsort::multi_gpu
