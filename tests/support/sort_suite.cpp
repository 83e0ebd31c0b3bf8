#include "support/sort_suite.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"

namespace depthsort::testing {
namespace {

constexpr std::array<std::size_t, 21> kSizes{0,
                                             1,
                                             2,
                                             3,
                                             4,
                                             5,
                                             7,
                                             8,
                                             31,
                                             32,
                                             33,
                                             255,
                                             256,
                                             257,
                                             1023,
                                             1024,
                                             1025,
                                             4095,
                                             65537,
                                             (1u << 20) + 3,
                                             std::size_t{1} << 24};

// Host or device storage for one run's four arrays, sized once for the largest n.
class PairStorage {
 public:
  PairStorage(Backend backend, std::size_t max_n) : backend_(backend) {
    if (backend_ == Backend::Gpu) {
      keys_in_d_ = DeviceBuffer<float>(max_n, "test input keys");
      values_in_d_ = DeviceBuffer<std::uint32_t>(max_n, "test input values");
      keys_out_d_ = DeviceBuffer<float>(max_n, "test output keys");
      values_out_d_ = DeviceBuffer<std::uint32_t>(max_n, "test output values");
    } else {
      keys_in_h_.resize(max_n);
      values_in_h_.resize(max_n);
      keys_out_h_.resize(max_n);
      values_out_h_.resize(max_n);
    }
  }

  SortBuffers upload(std::span<const float> keys, std::span<const std::uint32_t> values) {
    const std::size_t n = keys.size();
    SortBuffers b = buffers(n);
    copy(const_cast<float*>(b.keys_in), keys.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    copy(const_cast<std::uint32_t*>(b.values_in), values.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice);
    // Poison: all-ones bits are a NaN key below every real key and a value no input has.
    poison(b.keys_out, n * sizeof(float));
    poison(b.values_out, n * sizeof(std::uint32_t));
    return b;
  }

  void download(const SortBuffers& b, std::span<float> keys_out, std::span<std::uint32_t> values_out,
                std::span<float> keys_in_after, std::span<std::uint32_t> values_in_after) {
    copy(keys_out.data(), b.keys_out, b.n * sizeof(float), cudaMemcpyDeviceToHost);
    copy(values_out.data(), b.values_out, b.n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
    copy(keys_in_after.data(), b.keys_in, b.n * sizeof(float), cudaMemcpyDeviceToHost);
    copy(values_in_after.data(), b.values_in, b.n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
  }

 private:
  SortBuffers buffers(std::size_t n) {
    if (backend_ == Backend::Gpu)
      return {keys_in_d_.data(), values_in_d_.data(), keys_out_d_.data(), values_out_d_.data(), n};
    return {keys_in_h_.data(), values_in_h_.data(), keys_out_h_.data(), values_out_h_.data(), n};
  }
  void copy(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return;
    if (backend_ == Backend::Gpu)
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(to, from, bytes, kind));
    else
      std::memcpy(to, from, bytes);
  }
  void poison(void* to, std::size_t bytes) {
    if (bytes == 0) return;
    if (backend_ == Backend::Gpu)
      DEPTHSORT_CUDA_CHECK(cudaMemset(to, 0xFF, bytes));
    else
      std::memset(to, 0xFF, bytes);
  }

  Backend backend_;
  DeviceBuffer<float> keys_in_d_, keys_out_d_;
  DeviceBuffer<std::uint32_t> values_in_d_, values_out_d_;
  std::vector<float> keys_in_h_, keys_out_h_;
  std::vector<std::uint32_t> values_in_h_, values_out_h_;
};

}  // namespace

std::span<const std::size_t> suite_sizes() { return kSizes; }

std::string test_name(std::string_view text) {
  std::string name(text);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::vector<SorterCase> sorter_cases(Backend backend) {
  std::vector<SorterCase> cases;
  for (const SorterInfo& info : sorter_registry()) {
    if (info.backend != backend) continue;
    for (OptionValues& options : option_variants(info)) {
      std::string label(info.name);
      for (const OptionSpec& spec : info.options)
        if (spec.is_flag())
          label += "_" + std::string(spec.name) + "_" + std::to_string(option_value(options, spec.name));
      cases.push_back({&info, std::move(options), test_name(label)});
    }
  }
  return cases;
}

CheckResult sort_and_check(Sorter& sorter, const std::vector<float>& keys) {
  const std::size_t n = keys.size();
  PairStorage storage(sorter.backend(), n);
  const std::vector<std::uint32_t> values = make_values(n);
  std::vector<float> keys_out(n), keys_in_after(n);
  std::vector<std::uint32_t> values_out(n), values_in_after(n);
  const SortBuffers buffers = storage.upload(keys, values);
  sorter.sort(buffers, nullptr);
  if (sorter.backend() == Backend::Gpu) DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
  storage.download(buffers, keys_out, values_out, keys_in_after, values_in_after);
  CheckResult result = check_sorted_pairs(keys, reference_order(keys), keys_out, values_out);
  // n = 0: no memcmp, whose pointers (data() of empty vectors) may be null, which is UB.
  if (result.ok && n > 0 && std::memcmp(keys.data(), keys_in_after.data(), n * sizeof(float)) != 0)
    result = CheckResult{false, "the sorter changed its input keys"};
  if (result.ok && n > 0 && std::memcmp(values.data(), values_in_after.data(), n * sizeof(std::uint32_t)) != 0)
    result = CheckResult{false, "the sorter changed its input values"};
  return result;
}

CheckResult sort_and_check(Sorter& sorter, Distribution dist, std::size_t n) {
  return sort_and_check(sorter, make_keys(dist, n, /*seed=*/n + 17));
}

void check_sorter(Sorter& sorter, Distribution dist, std::span<const std::size_t> sizes) {
  sorter.reserve(*std::max_element(sizes.begin(), sizes.end()));
  for (const std::size_t n : sizes) {
    SCOPED_TRACE(sorter.name() + " on " + std::string(distribution_name(dist)) + " keys, n = " + std::to_string(n));
    const CheckResult result = sort_and_check(sorter, dist, n);
    EXPECT_TRUE(result.ok) << result.message;
    if (!result.ok) return;  // one clear failure per distribution is enough to read
  }
}

}  // namespace depthsort::testing
