// The input generators: deterministic, the right size, and each shaped as its name says.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "depthsort/keys.hpp"
#include "depthsort/workload.hpp"

namespace depthsort {
namespace {

std::set<std::uint32_t> distinct(const std::vector<float>& keys) {
  std::set<std::uint32_t> bits;
  for (float k : keys) bits.insert(ordered_key(k));
  return bits;
}

TEST(Workload, EveryDistributionIsDeterministicAndSized) {
  for (Distribution d : all_distributions()) {
    SCOPED_TRACE(std::string(distribution_name(d)));
    for (std::size_t n : {0u, 1u, 33u, 4097u}) {
      const auto a = make_keys(d, n, 3), b = make_keys(d, n, 3);
      ASSERT_EQ(a.size(), n);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(float)));
    }
  }
}

TEST(Workload, NamesRoundTrip) {
  for (Distribution d : all_distributions()) EXPECT_EQ(parse_distribution(distribution_name(d)), d);
  EXPECT_FALSE(parse_distribution("bogus").has_value());
  EXPECT_NE(distribution_names().find("nearly-sorted"), std::string::npos);
}

TEST(Workload, ShapesMatchTheirNames) {
  const std::size_t n = 100000;
  const auto sorted = make_keys(Distribution::Sorted, n);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto reverse = make_keys(Distribution::Reverse, n);
  EXPECT_TRUE(std::is_sorted(reverse.rbegin(), reverse.rend()));
  EXPECT_EQ(distinct(make_keys(Distribution::AllEqual, n)).size(), 1u);
  EXPECT_EQ(distinct(make_keys(Distribution::TwoValues, n)).size(), 2u);
  EXPECT_EQ(distinct(make_keys(Distribution::FewUnique, n)).size(), 16u);
  const auto nearly = make_keys(Distribution::NearlySorted, n);
  EXPECT_FALSE(std::is_sorted(nearly.begin(), nearly.end()));
  std::size_t descents = 0;
  for (std::size_t i = 1; i < n; ++i) descents += nearly[i] < nearly[i - 1];
  EXPECT_LT(descents, n / 40);
  const auto uniform = make_keys(Distribution::Uniform, n);
  EXPECT_TRUE(std::all_of(uniform.begin(), uniform.end(), [](float k) { return k >= 0.0f && k < 1.0f; }));
  EXPECT_GT(distinct(uniform).size(), n * 9 / 10);
  // Zipf: rank 1 is the most frequent key, around 5% of all for 2^20 ranks.
  const auto zipf = make_keys(Distribution::Zipf, n);
  const auto ones = std::count(zipf.begin(), zipf.end(), 1.0f);
  EXPECT_GT(ones, static_cast<long>(n / 50));
  EXPECT_LT(ones, static_cast<long>(n / 10));
}

TEST(Workload, MeshKeysAreCoherentNotRandom) {
  const auto mesh = make_keys(Distribution::Mesh, 1 << 16);
  double step = 0.0;
  for (std::size_t i = 1; i < mesh.size(); ++i) step += std::abs(mesh[i] - mesh[i - 1]);
  step /= static_cast<double>(mesh.size() - 1);
  const auto [lo, hi] = std::minmax_element(mesh.begin(), mesh.end());
  // Consecutive vertices are far closer than random keys over the same range (mean gap range/3).
  EXPECT_LT(step, (*hi - *lo) / 30.0);
}

TEST(Workload, SpecialsHoldEveryClass) {
  const auto keys = make_keys(Distribution::Specials, 20000);
  auto has = [&](auto predicate) { return std::any_of(keys.begin(), keys.end(), predicate); };
  EXPECT_TRUE(has([](float k) { return k == 0.0f && std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return k == 0.0f && !std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::isinf(k) && k > 0; }));
  EXPECT_TRUE(has([](float k) { return std::isinf(k) && k < 0; }));
  EXPECT_TRUE(has([](float k) { return std::isnan(k) && std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::isnan(k) && !std::signbit(k); }));
  EXPECT_TRUE(has([](float k) { return std::fpclassify(k) == FP_SUBNORMAL; }));
}

// The scene-like distributions of issue 11 have the shapes they are named for.
TEST(Workload, OutliersAreANarrowClusterWithAFewFarKeys) {
  const auto keys = make_keys(Distribution::Outliers, 1 << 20);
  const auto far = std::count_if(keys.begin(), keys.end(), [](float k) { return !(k < 11.0f); });
  EXPECT_GT(far, 0);
  EXPECT_LT(far, 64);
  for (float k : keys) {
    if (k < 11.0f) {
      ASSERT_NEAR(k, 10.0f, 0.0101f);
    }
  }
}

TEST(Workload, TwoClustersAreFarApartAndNarrow) {
  const auto keys = make_keys(Distribution::TwoClusters, 1 << 16);
  const auto near = std::count_if(keys.begin(), keys.end(), [](float k) { return std::abs(k - 1.0f) <= 1e-3f; });
  const auto far = std::count_if(keys.begin(), keys.end(), [](float k) { return std::abs(k - 1.0e6f) <= 1.0f; });
  EXPECT_EQ(static_cast<std::size_t>(near + far), keys.size());
  EXPECT_GT(near, 1 << 14);
  EXPECT_GT(far, 1 << 14);
}

TEST(Workload, GroundPlaneRunsToTheHorizonWithMostKeysNear) {
  auto keys = make_keys(Distribution::GroundPlane, 1 << 16);
  std::sort(keys.begin(), keys.end());
  EXPECT_GE(keys.front(), 1.7f);
  EXPECT_GT(keys.back(), 5.0e4f);
  EXPECT_LT(keys[keys.size() / 2], 1.0e3f);  // the median is nearer than 1% of the far end
}

TEST(Workload, HalfEqualHasHalfItsKeysEqual) {
  const auto keys = make_keys(Distribution::HalfEqual, 1 << 16);
  const auto equal = std::count(keys.begin(), keys.end(), 0.5f);
  EXPECT_NEAR(static_cast<double>(equal) / keys.size(), 0.5, 0.02);
}

TEST(Workload, NanPayloadsAreManyDistinctNansOfBothSigns) {
  const auto keys = make_keys(Distribution::NanPayloads, 1 << 16);
  std::vector<std::uint32_t> nan_bits;
  for (float k : keys)
    if (std::isnan(k)) nan_bits.push_back(std::bit_cast<std::uint32_t>(k));
  EXPECT_NEAR(static_cast<double>(nan_bits.size()) / keys.size(), 0.25, 0.02);
  EXPECT_TRUE(std::any_of(nan_bits.begin(), nan_bits.end(), [](std::uint32_t b) { return b >> 31; }));
  EXPECT_TRUE(std::any_of(nan_bits.begin(), nan_bits.end(), [](std::uint32_t b) { return !(b >> 31); }));
  std::sort(nan_bits.begin(), nan_bits.end());
  EXPECT_GT(std::unique(nan_bits.begin(), nan_bits.end()) - nan_bits.begin(), 10000);
}

TEST(Workload, ValuesEncodeTheirPosition) {
  const auto values = make_values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(index_for_value(values[i]), i);
  EXPECT_NE(values[0], 0u);  // a sorter writing positions instead of values must fail
}

}  // namespace
}  // namespace depthsort
