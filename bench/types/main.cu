// depthsort-mms-types: Karsin et al., "Analysis-driven Engineering of Comparison-based Sorting
// Algorithms on GPUs" (ICS 2018), Section 6.3 (Fig. 7) and 6.2 (Fig. 6): GPU-MMS beside
// cub::DeviceMergeSort with the same comparator on objects of two 32-bit integers (x, y):
//   pairs     by x alone (key-value pairs of ints)
//   l1        points by |x| + |y| (Manhattan distance from the origin)
//   rational  fractions x / y (y > 0) by cross-multiplication, x1 * y2 < x2 * y1, in 64 bits
// and the `pairs` type on a conflict-candidate input (Fig. 6) beside random input.
// Every run: input restored by a device copy outside the timed events, CUDA-event median after
// warm-up, result checked once (sorted under the comparator, same multiset as std::sort's).
//
// Usage: depthsort-mms-types [--sizes 1M,16M] [--reps 9] [--k 8,16] [--csv FILE] (types_args.hpp)
#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/host/output_file.hpp"
#include "depthsort/sort/registry.hpp"
#include "sort/gpu_mms/gpu_mms_kernels.cuh"
#include "stats.hpp"
#include "types_args.hpp"

namespace depthsort::mms_types {
namespace {

struct Obj {
  std::int32_t x, y;
};

struct ByFirst {
  __host__ __device__ bool operator()(const Obj& a, const Obj& b) const { return a.x < b.x; }
};
struct ByL1 {
  __host__ __device__ static std::int64_t l1(const Obj& a) {
    return (a.x < 0 ? -std::int64_t{a.x} : a.x) + (a.y < 0 ? -std::int64_t{a.y} : a.y);
  }
  __host__ __device__ bool operator()(const Obj& a, const Obj& b) const { return l1(a) < l1(b); }
};
struct ByRatio {
  __host__ __device__ bool operator()(const Obj& a, const Obj& b) const {
    return std::int64_t{a.x} * b.y < std::int64_t{b.x} * a.y;
  }
};

// Inputs stay below these in every order (x, |y| < 2^30, y > 0 for fractions).
constexpr Obj kSentinel{0x7FFFFFFF, 0x7FFFFFFF};
constexpr Obj kRatioSentinel{0x7FFFFFFF, 1};

std::vector<Obj> random_objs(std::size_t n, bool fraction, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> coord(-(1 << 30) + 1, (1 << 30) - 1), denom(1, (1 << 30) - 1);
  std::vector<Obj> v(n);
  for (Obj& o : v) o = Obj{coord(rng), fraction ? denom(rng) : coord(rng)};
  return v;
}

// Fig. 6 candidate: the sorted order taken in runs of 32 from lists chosen by the bit-reversed
// run index, so that every merge level of a two-way merge sort alternates between its two inputs
// every 32 elements, the stride at which merge-path threads read one shared-memory bank. A
// heuristic: CUB's exact access pattern (tile size, thread splits) was not modelled.
std::vector<Obj> conflict_objs(std::size_t n) {
  int bits = 0;
  while ((std::size_t{32} << bits) < n) ++bits;
  std::vector<Obj> v(n);
  std::size_t filled = 0;
  for (std::size_t r = 0; r < (std::size_t{32} << bits) && filled < n; ++r) {
    std::size_t run = r >> 5, rev = 0;
    for (int b = 0; b < bits; ++b) rev |= ((run >> b) & 1u) << (bits - 1 - b);
    const std::size_t pos = (rev << 5) | (r & 31);
    if (pos < n) {
      v[pos] = Obj{static_cast<std::int32_t>(r), static_cast<std::int32_t>(pos)};
      ++filled;
    }
  }
  return v;
}

std::uint64_t mix(const Obj& o) {
  std::uint64_t h = (std::uint64_t(std::uint32_t(o.x)) << 32 | std::uint32_t(o.y)) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

// Sorted under the comparator and the same multiset as the input: against std::sort up to 4M
// elements; above, by two order-free hashes of the multiset (the host sort of 16M objects would
// take most of the study's time).
template <class Less>
bool check(std::vector<Obj> in, const std::vector<Obj>& out, Less less) {
  for (std::size_t i = 1; i < out.size(); ++i)
    if (less(out[i], out[i - 1])) return false;
  if (in.size() > (std::size_t{1} << 22)) {
    std::uint64_t sum_in = 0, sum_out = 0, xor_in = 0, xor_out = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      sum_in += mix(in[i]);
      xor_in ^= mix(in[i]) * 31 + 7;
      sum_out += mix(out[i]);
      xor_out ^= mix(out[i]) * 31 + 7;
    }
    return sum_in == sum_out && xor_in == xor_out;
  }
  auto lex = [](const Obj& a, const Obj& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; };
  std::vector<Obj> sorted_out = out;
  std::sort(in.begin(), in.end(), lex);
  std::sort(sorted_out.begin(), sorted_out.end(), lex);
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].x != sorted_out[i].x || in[i].y != sorted_out[i].y) return false;
  return true;
}

class Runner {
 public:
  Runner(const TypesOptions& o, std::ostringstream& csv) : o_(o), csv_(csv) {
    const std::size_t max_n = *std::max_element(o.sizes.begin(), o.sizes.end());
    pristine_ = DeviceBuffer<Obj>(max_n, "types input");
    work_ = DeviceBuffer<Obj>(max_n, "types work");
    out_ = DeviceBuffer<Obj>(max_n, "types output");
    a_ = DeviceBuffer<Obj>(max_n, "types a");
    b_ = DeviceBuffer<Obj>(max_n, "types b");
    splits_ = DeviceBuffer<std::uint32_t>(gpu_mms::split_words(max_n), "types splits");
    DEPTHSORT_CUDA_CHECK(cudaEventCreate(&start_));
    DEPTHSORT_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Runner() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  template <class Less>
  void run(const char* type, const char* input, const std::vector<Obj>& host, Obj sentinel, Less less) {
    const std::size_t n = host.size();
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(pristine_.data(), host.data(), n * sizeof(Obj), cudaMemcpyHostToDevice));
    const auto n32 = static_cast<std::uint32_t>(n);
    for (const int k : o_.ks) {
      const gpu_mms::Config c{k, 4096, true};
      auto mms = [&] {
        if (k == 8)
          gpu_mms::sort_with_k<8>(gpu_mms::ArrayIn<Obj>{work_.data()}, gpu_mms::ArrayOut<Obj>{out_.data()}, a_.data(),
                                  b_.data(), splits_.data(), n32, c, sentinel, less, nullptr, nullptr);
        else
          gpu_mms::sort_with_k<16>(gpu_mms::ArrayIn<Obj>{work_.data()}, gpu_mms::ArrayOut<Obj>{out_.data()}, a_.data(),
                                   b_.data(), splits_.data(), n32, c, sentinel, less, nullptr, nullptr);
      };
      const float ms = time(n, mms);  // before verify: the check must read this sorter's output
      report(type, input, n, "gpu-mms", k, ms, verify(host, less));
    }
    std::size_t bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, work_.data(), static_cast<int>(n), less));
    DeviceBuffer<unsigned char> temp(bytes, "types cub temp");
    auto cub_sort = [&] {
      std::size_t b = bytes;
      DEPTHSORT_CUDA_CHECK(
          cub::DeviceMergeSort::SortKeysCopy(temp.data(), b, work_.data(), out_.data(), static_cast<int>(n), less));
    };
    const float ms = time(n, cub_sort);
    report(type, input, n, "cub-merge", 0, ms, verify(host, less));
  }

 private:
  void restore(std::size_t n) {
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(work_.data(), pristine_.data(), n * sizeof(Obj), cudaMemcpyDeviceToDevice));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(out_.data(), 0xFF, n * sizeof(Obj)));
  }
  // The median of the timed runs, as depthsort-bench reports it (bench/stats.hpp: the middle
  // value, the mean of the two middle values for an even count).
  template <class F>
  float time(std::size_t n, F sort) {
    std::vector<double> ms;
    for (int r = 0; r < 2 + o_.reps; ++r) {
      restore(n);
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(start_));
      sort();
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(stop_));
      DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(stop_));
      float t = 0;
      DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&t, start_, stop_));
      if (r >= 2) ms.push_back(t);
    }
    return static_cast<float>(bench::summarize(std::move(ms)).median);
  }
  template <class Less>
  bool verify(const std::vector<Obj>& host, Less less) {
    std::vector<Obj> out(host.size());
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(out.data(), out_.data(), out.size() * sizeof(Obj), cudaMemcpyDeviceToHost));
    return check(host, out, less);
  }
  void report(const char* type, const char* input, std::size_t n, const char* sorter, int k, float ms, bool ok) {
    std::printf("%-9s %-9s %10zu  %-9s k=%-2d %9.3f ms %7.2f G/s  %s\n", type, input, n, sorter, k, ms, n / (ms * 1e6),
                ok ? "pass" : "FAIL");
    csv_ << type << ',' << input << ',' << n << ',' << sorter << ',' << k << ',' << ms << ',' << n / (ms * 1e6) << ','
         << (ok ? "pass" : "FAIL") << '\n';
    failed_ |= !ok;
  }

 public:
  bool failed_ = false;

 private:
  const TypesOptions& o_;
  std::ostringstream& csv_;  // rows, written to the --csv file once all ran
  DeviceBuffer<Obj> pristine_, work_, out_, a_, b_;
  DeviceBuffer<std::uint32_t> splits_;
  cudaEvent_t start_{}, stop_{};
};

// A bad command line: the message, the usage, exit status 2.
int usage_error(const std::string& message) {
  std::fprintf(stderr, "depthsort-mms-types: %s\n%s", message.c_str(), kTypesUsage);
  return 2;
}

int run(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const TypesArgs parsed = parse_types_args(args);
  if (!parsed.error.empty()) return usage_error(parsed.error);
  const TypesOptions& o = parsed.options;
  if (o.help) {
    std::fputs(kTypesUsage, stdout);
    return 0;
  }
  // Without a device the first allocation would fail with a misleading "cannot reserve".
  if (std::string why; !cuda_device_usable(&why)) {
    std::fprintf(stderr, "depthsort-mms-types: %s; it times GPU sorts and needs a CUDA device\n", why.c_str());
    return 1;
  }
  std::ostringstream csv;
  csv << "type,input,n,sorter,k,median_ms,gelems_per_s,check\n";
  Runner r(o, csv);
  for (const std::size_t n : o.sizes) {
    r.run("pairs", "random", random_objs(n, false, n), kSentinel, ByFirst{});
    r.run("pairs", "conflict", conflict_objs(n), kSentinel, ByFirst{});
    r.run("l1", "random", random_objs(n, false, n + 1), kSentinel, ByL1{});
    r.run("rational", "random", random_objs(n, true, n + 2), kRatioSentinel, ByRatio{});
  }
  if (!o.csv.empty()) {
    OutputFile file(o.csv);
    file.write(csv.str());
    file.commit();
  }
  return r.failed_ ? 1 : 0;
}

}  // namespace
}  // namespace depthsort::mms_types

int main(int argc, char** argv) {
  try {
    return depthsort::mms_types::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "depthsort-mms-types: %s\n", e.what());
    return 1;
  }
}
