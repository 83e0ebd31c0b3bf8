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
#include <charconv>
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

#include "depthsort/cuda_handles.hpp"
#include "depthsort/device_buffer.hpp"
#include "depthsort/errors.hpp"
#include "depthsort/registry.hpp"
#include "depthsort/workload.hpp"
#include "sort/multi_gpu/multi_gpu_sort.hpp"

namespace depthsort::multi_gpu {
namespace {

constexpr int kExitSkipped = 77;  // ctest SKIP_RETURN_CODE
constexpr int kExitUsage = 2;

struct Config {
  bool test = false, bench = false, help = false, check = false;
  int gpus = 0;          // 0: every GPU found
  int require_gpus = 0;  // skip (exit 77) with fewer
  int reps = 11, warmup = 2;
  std::size_t max_test_size = std::size_t{1} << 24;
  std::vector<std::size_t> sizes{std::size_t{1} << 24};
  Distribution dist = Distribution::Uniform;
  std::string csv;
};

const char* usage() {
  return "usage: depthsort-multigpu --test [--gpus N] [--require-gpus K] [--max-test-size S]\n"
         "       depthsort-multigpu --bench [--gpus N] [--sizes 16M,64M,...] [--dist NAME] [--reps R]\n"
         "                          [--warmup W] [--csv FILE] [--check]\n"
         "  --gpus N          use GPUs 0..N-1 (default: every GPU found, at most 8)\n"
         "  --require-gpus K  exit 77 (skipped) with fewer than K GPUs\n"
         "  --max-test-size S largest test size (default 16M)\n"
         "  --sizes           pairs in all, suffixes K, M, G (powers of two): 1M+3 is 2^20+3\n"
         "  --check           bench: check each output against the CPU reference (slow above 64M)\n"
         "CSV columns: case,gpus,n,dist,reps,median_ms,min_ms,p90_ms,gpairs_per_s,vs_hybrid_1gpu,\n"
         "  vs_cub_radix_1gpu,histogram_ms,partition_ms,exchange_ms,local_sort_ms,gather_ms,\n"
         "  bytes_between_gpus,exchange_gb_per_s,nccl_same_volume_ms,nccl_gb_per_s,exchange_vs_nccl,\n"
         "  range_counts,check\n";
}

std::optional<std::size_t> parse_size(std::string_view text) {
  std::size_t plus = 0;
  if (const auto at = text.find('+'); at != std::string_view::npos) {
    const auto extra = parse_size(text.substr(at + 1));
    if (!extra) return std::nullopt;
    plus = *extra;
    text = text.substr(0, at);
  }
  std::size_t shift = 0;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'M' || text.back() == 'G')) {
    shift = text.back() == 'K' ? 10 : text.back() == 'M' ? 20 : 30;
    text.remove_suffix(1);
  }
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return (value << shift) + plus;
}

std::optional<Config> parse(int argc, char** argv, std::string& error) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        error = std::string(arg) + " needs a value";
        return {};
      }
      return argv[++i];
    };
    auto integer = [&](int& out) {
      const std::string_view v = value();
      const auto [end, e] = std::from_chars(v.data(), v.data() + v.size(), out);
      if (e != std::errc{} || end != v.data() + v.size()) error = std::string(arg) + " needs an integer";
    };
    if (arg == "--test") c.test = true;
    else if (arg == "--bench") c.bench = true;
    else if (arg == "--check") c.check = true;
    else if (arg == "--help" || arg == "-h") c.help = true;
    else if (arg == "--gpus") integer(c.gpus);
    else if (arg == "--require-gpus") integer(c.require_gpus);
    else if (arg == "--reps") integer(c.reps);
    else if (arg == "--warmup") integer(c.warmup);
    else if (arg == "--csv") c.csv = value();
    else if (arg == "--dist") {
      const auto d = parse_distribution(value());
      if (!d) error = "unknown distribution; valid: " + distribution_names();
      else c.dist = *d;
    } else if (arg == "--max-test-size") {
      const auto s = parse_size(value());
      if (!s) error = "--max-test-size: bad size";
      else c.max_test_size = *s;
    } else if (arg == "--sizes") {
      c.sizes.clear();
      std::string_view list = value();
      while (!list.empty() && error.empty()) {
        const auto comma = list.find(',');
        const auto s = parse_size(list.substr(0, comma));
        if (!s) error = "--sizes: bad size '" + std::string(list.substr(0, comma)) + "'";
        else c.sizes.push_back(*s);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else error = "unknown argument '" + std::string(arg) + "'";
    if (!error.empty()) return std::nullopt;
  }
  if (c.reps < 1 || c.warmup < 0) {
    error = "--reps must be >= 1 and --warmup >= 0";
    return std::nullopt;
  }
  if (c.gpus < 0 || c.gpus > kMaxGpus) {
    error = "--gpus must be 1.." + std::to_string(kMaxGpus);
    return std::nullopt;
  }
  return c;
}

std::string size_text(std::size_t n) {
  for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
    const std::size_t unit = std::size_t{1} << shift;
    if (n >= unit && n % unit == 0) return std::to_string(n / unit) + suffix;
    if (n > unit && n % unit < 16) return std::to_string(n / unit) + suffix + "+" + std::to_string(n % unit);
  }
  return std::to_string(n);
}

std::vector<int> first_devices(int count) {
  std::vector<int> devices(count);
  std::iota(devices.begin(), devices.end(), 0);
  return devices;
}

// Input pairs of one GPU, kept on that GPU: a pristine copy and the copy the sort reads.
struct GpuInput {
  int device = 0;
  DeviceBuffer<float> keys_src, keys;
  DeviceBuffer<std::uint32_t> values_src, values;
  GpuInput(int dev, std::size_t n) : device(dev) {
    DeviceScope scope(dev);
    keys_src = DeviceBuffer<float>(n, "depthsort-multigpu input");
    keys = DeviceBuffer<float>(n, "depthsort-multigpu input");
    values_src = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu input");
    values = DeviceBuffer<std::uint32_t>(n, "depthsort-multigpu input");
  }
  void upload(const float* k, const std::uint32_t* v, std::size_t n) {
    if (n == 0) return;
    DeviceScope scope(device);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_src.data(), k, n * sizeof(float), cudaMemcpyHostToDevice));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(values_src.data(), v, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  }
  // Restores the sort's input from the pristine copy (outside any timed interval).
  void restore(std::size_t n, cudaStream_t stream) {
    if (n == 0) return;
    DeviceScope scope(device);
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(keys.data(), keys_src.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpyAsync(values.data(), values_src.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  }
  DevicePairs pairs(std::size_t n) const { return {keys.data(), values.data(), n}; }
};

// Where pair i of n goes in the distributed case: GPU r holds [n*r/N, n*(r+1)/N).
std::size_t chunk_begin(std::size_t n, int r, int N) { return n * r / N; }

template <class T>
void download(T* to, const T* from, std::size_t count, int device) {
  if (count == 0) return;
  DeviceScope scope(device);
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(to, from, count * sizeof(T), cudaMemcpyDeviceToHost));
}

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

// ---------------------------------------------------------------------------------------------
// --bench

struct Timing {
  std::vector<double> total;
  std::vector<StepTimes> steps;
};

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

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
  row.p90_ms = quantile(samples, 0.9);
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
  const std::optional<Config> config = parse(argc, argv, error);
  if (!config) {
    std::cerr << "depthsort-multigpu: " << error << '\n' << usage();
    return kExitUsage;
  }
  if (config->help || (!config->test && !config->bench)) {
    std::cout << usage();
    return config->help ? 0 : kExitUsage;
  }
  // NVLink multicast (NVLS) stays off: the lent machines must never create multicast objects.
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
