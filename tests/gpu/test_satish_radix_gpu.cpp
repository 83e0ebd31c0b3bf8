// satish-radix (Satish, Harris & Garland 2009, Section III) at every digit size b = 4..8, every tile
// (4, 8, 16 pairs per thread) and every arrangement of its phases (and both block scans of the splits), on sizes around
// the tiles, and a check of the stability an LSD radix sort rests on (the registry entry says stable): equal keys keep
// their input order.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

constexpr std::array<std::size_t, 13> kSizes{1,    2,    1023, 1024,  1025,   2047,          3072,
                                             4095, 4096, 4097, 65537, 262144, (1u << 20) + 3};
constexpr std::array kDistributions{Distribution::Uniform, Distribution::Specials, Distribution::AllEqual,
                                    Distribution::Zipf};

struct Case {
  int bits;
  int items;
  int arrangement;
  int ballot_scan = 1;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int b = 4; b <= 8; ++b)
    for (const int items : {4, 8, 16})
      for (int a = 0; a <= 2; ++a) out.push_back({b, items, a});
  for (int b = 4; b <= 8; ++b)
    for (const int items : {4, 16})
      for (const int a : {0, 2}) out.push_back({b, items, a, 0});
  return out;
}

std::string options_text(const Case& c) {
  return "bits=" + std::to_string(c.bits) + ",items=" + std::to_string(c.items) +
         ",arrangement=" + std::to_string(c.arrangement) + ",ballot_scan=" + std::to_string(c.ballot_scan);
}

class SatishRadixBits : public ::testing::TestWithParam<Case> {};

TEST_P(SatishRadixBits, MatchCpuReference) {
  const SorterInfo* info = find_sorter("satish-radix");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const OptionValues options = parse_options(*info, options_text(GetParam()));
  for (const Distribution dist : kDistributions) {
    const std::unique_ptr<Sorter> sorter = info->create(options);
    SCOPED_TRACE(options_text(GetParam()));
    check_sorter(*sorter, dist, kSizes);
  }
}

// Equal keys in input order: the values (input positions) of every run of equal keys rise.
TEST_P(SatishRadixBits, IsStable) {
  const SorterInfo* info = find_sorter("satish-radix");
  ASSERT_NE(info, nullptr);
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = info->create(parse_options(*info, options_text(GetParam())));
  for (const Distribution dist : {Distribution::Zipf, Distribution::AllEqual, Distribution::Specials}) {
    const std::size_t n = 100003;
    sorter->reserve(n);
    const std::vector<float> keys = make_keys(dist, n, 5);
    const std::vector<std::uint32_t> values = make_values(n);
    DeviceBuffer<float> keys_in(n, "test"), keys_out(n, "test");
    DeviceBuffer<std::uint32_t> values_in(n, "test"), values_out(n, "test");
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_in.data(), keys.data(), n * 4, cudaMemcpyHostToDevice));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(values_in.data(), values.data(), n * 4, cudaMemcpyHostToDevice));
    sorter->sort({keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n});
    std::vector<float> k(n);
    std::vector<std::uint32_t> v(n);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(k.data(), keys_out.data(), n * 4, cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(v.data(), values_out.data(), n * 4, cudaMemcpyDeviceToHost));
    for (std::size_t i = 1; i < n; ++i) {
      if (std::bit_cast<std::uint32_t>(k[i]) != std::bit_cast<std::uint32_t>(k[i - 1])) continue;
      ASSERT_LT(index_for_value(v[i - 1]), index_for_value(v[i]))
          << distribution_name(dist) << ": equal keys out of input order at " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SatishRadixBits, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return test_name("satish_radix_" + options_text(info.param)); });

}  // namespace
}  // namespace depthsort::testing
