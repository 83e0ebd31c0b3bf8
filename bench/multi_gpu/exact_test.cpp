// depthsort-multigpu --test: both cases (pairs on GPU 0 / pairs spread over the GPUs) exact
// against the CPU reference, every distribution, sizes around the split points and inputs that put
// everything on one side.
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
  TestRunner(int gpus_found, int max_gpus, std::size_t max_n) : max_n_(max_n) {
    for (int r = 0; r < max_gpus; ++r) inputs_.push_back(std::make_unique<GpuInput>(r, r == 0 ? max_n : max_n / 2 + 1));  // N >= 2 where r > 0
    DeviceScope scope(0);
    out_keys_ = DeviceBuffer<float>(max_n, "depthsort-multigpu output");
    out_values_ = DeviceBuffer<std::uint32_t>(max_n, "depthsort-multigpu output");
    (void)gpus_found;
  }

  void run(MultiGpuSorter& sorter, const std::string& label, const TestInput& in, bool exact_balance, double gpu0_share,
           Tally& tally) {
    const std::size_t n = in.keys.size();
    const int N = sorter.gpus();
    const std::string what = label + " " + in.name + " n=" + size_text(n);
    // The paper's case: every pair on GPU 0, sorted output gathered on GPU 0.
    try {
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
      tally.add(result.ok, "gathered " + what, result.message);
    } catch (const std::exception& e) {
      tally.add(false, "gathered " + what, std::string("threw: ") + e.what());
    }
    // The distributed case: GPU r holds its chunk; afterwards GPU r holds range r.
    try {
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
      std::vector<float> keys(n);
      std::vector<std::uint32_t> values(n);
      std::size_t at = 0;
      for (int r = 0; r < N; ++r) {
        const std::size_t c = sorter.range_count(r);
        if (at + c > n) throw Error("ranges hold more pairs than the input");
        download(keys.data() + at, sorter.range_keys(r), c, sorter.device(r));
        download(values.data() + at, sorter.range_values(r), c, sorter.device(r));
        at += c;
      }
      CheckResult result = at == n ? check_sorted_pairs(in.keys, in.reference, keys, values)
                                   : CheckResult{false, "ranges hold " + std::to_string(at) + " pairs, not " + std::to_string(n)};
      if (result.ok && exact_balance) result = check_balance(sorter, n, 0.0);
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
    const SplitterPlan plan(n, N, kLevels, N > 1 ? gpu0_share : 0.0);
    edges.insert(edges.end(), plan.targets().begin(), plan.targets().end());
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

  std::size_t max_n_;
  std::vector<std::unique_ptr<GpuInput>> inputs_;
  DeviceBuffer<float> out_keys_;
  DeviceBuffer<std::uint32_t> out_values_;
};

}  // namespace

int run_tests(const Config& config, int found) {
  const int max_gpus = config.gpus ? config.gpus : found;
  std::vector<int> gpu_counts{1};
  if (max_gpus > 2) gpu_counts.push_back(2);
  if (max_gpus > 1) gpu_counts.push_back(max_gpus);
  const std::size_t max_n = config.max_test_size;
  std::vector<std::size_t> sizes{0, 1000, 65537, (std::size_t{1} << 20) + 3, std::size_t{1} << 24};
  for (const int N : gpu_counts) {
    sizes.push_back(N - 1);
    sizes.push_back(N + 1);
  }
  std::erase_if(sizes, [&](std::size_t s) { return s > max_n; });
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  std::cout << "depthsort-multigpu --test: " << found << " GPU(s) found; testing with";
  for (const int N : gpu_counts) std::cout << ' ' << N;
  std::cout << " GPU(s); sizes";
  for (const std::size_t s : sizes) std::cout << ' ' << size_text(s);
  std::cout << std::endl;

  struct Setup {
    std::unique_ptr<MultiGpuSorter> sorter;
    std::string label;
    bool exact;
    std::size_t max_n;
    double gpu0_share = 0;
  };
  std::vector<Setup> setups;
  for (const int N : gpu_counts) {
    Setup s{std::make_unique<MultiGpuSorter>(first_devices(N)), "gpus=" + std::to_string(N) + " levels=3", true, max_n};
    s.sorter->reserve(max_n);
    setups.push_back(std::move(s));
  }
  // The weighted paper's case: GPU 0 sorts 70% on its side stream while the rest travels.
  if (max_gpus > 1) {
    const std::size_t weighted_max = std::min<std::size_t>(max_n, (std::size_t{1} << 20) + 3);
    Setup s{std::make_unique<MultiGpuSorter>(first_devices(max_gpus)),
            "gpus=" + std::to_string(max_gpus) + " levels=3 gpu0_share=0.7", true, weighted_max, 0.7};
    s.sorter->reserve(weighted_max);
    setups.push_back(std::move(s));
  }
  // The paper's single histogram pass: ranges may be far from balanced (one GPU may get every
  // pair), the sort must stay exact.
  const std::size_t faithful_max = std::min<std::size_t>(max_n, (std::size_t{1} << 20) + 3);
  {
    Options faithful;
    faithful.levels = 1;
    Setup s{std::make_unique<MultiGpuSorter>(first_devices(max_gpus), faithful),
            "gpus=" + std::to_string(max_gpus) + " levels=1", false, faithful_max};
    s.sorter->reserve(faithful_max);
    setups.push_back(std::move(s));
  }
  TestRunner runner(found, max_gpus, max_n);
  Tally tally;
  for (const Distribution dist : all_distributions()) {
    const int failed_before = tally.failed;
    for (const std::size_t n : sizes) {
      TestInput in{std::string(distribution_name(dist)), make_keys(dist, n, n + 17), make_values(n), {}};
      in.reference = reference_order(in.keys);
      for (Setup& s : setups)
        if (n <= s.max_n) runner.run(*s.sorter, s.label, in, s.exact, s.gpu0_share, tally);
    }
    std::cout << "  " << distribution_name(dist) << (tally.failed == failed_before ? ": ok" : ": FAILED") << std::endl;
  }
  std::vector<std::size_t> edge_sizes;
  for (const std::size_t n : {std::size_t{2}, std::size_t(max_gpus + 1), std::size_t{65537}, (std::size_t{1} << 20) + 3})
    if (n <= max_n) edge_sizes.push_back(n);
  for (const std::size_t n : edge_sizes) {
    const int failed_before = tally.failed;
    for (const TestInput& in : edge_inputs(n))
      for (Setup& s : setups)
        if (n <= s.max_n) runner.run(*s.sorter, s.label, in, s.exact, s.gpu0_share, tally);
    std::cout << "  edge inputs n=" << size_text(n) << (tally.failed == failed_before ? ": ok" : ": FAILED") << std::endl;
  }
  std::cout << tally.passed << " passed, " << tally.failed << " failed" << std::endl;
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace depthsort::multi_gpu
