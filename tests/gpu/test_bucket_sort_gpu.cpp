// Dehne & Zaboli (2010), Section 4: the guarantee of GPU Bucket Sort and its options.
//  - For every distribution of workload.hpp, at n = 1M+3 and 16M, in the default and the paper's
//    configuration: the output passes the reference check and the largest bucket of step 8 holds
//    at most 2 * ceil(n/L) * L / s pairs (2n/s when L divides n; the last sublist's virtual pads
//    are the rounding), read through the sorter's bucket-size accessor.
//  - The bucket-size check itself fails on planted violations (one bucket over the bound, sizes
//    that do not add up to n).
//  - The option edges the registry suite (defaults, one flag flipped) never builds pass the
//    reference check: smallest and largest s, sublists and chunks, the deep global-memory path.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "depthsort/sort/errors.hpp"
#include "sort/bucket_sort/bucket_sort_sorter.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

using bucket_sort::BucketSorter;

::testing::AssertionResult buckets_within_bound(const std::vector<std::uint32_t>& sizes, std::uint64_t bound,
                                                std::size_t n) {
  const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
  if (total != n) return ::testing::AssertionFailure() << "bucket sizes add up to " << total << ", not n = " << n;
  const auto largest = std::max_element(sizes.begin(), sizes.end());
  if (largest != sizes.end() && *largest > bound)
    return ::testing::AssertionFailure() << "bucket " << (largest - sizes.begin()) << " holds " << *largest
                                         << " pairs, above the bound " << bound;
  return ::testing::AssertionSuccess();
}

const SorterInfo& bucket_info() {
  const SorterInfo* info = find_sorter("bucket-sort");
  EXPECT_NE(info, nullptr);
  return *info;
}

TEST(BucketSortGuarantee, CheckCatchesPlantedViolations) {
  const std::vector<std::uint32_t> fine{10, 20, 30, 40};
  EXPECT_TRUE(buckets_within_bound(fine, 40, 100));
  const std::vector<std::uint32_t> too_big{10, 20, 29, 41};
  EXPECT_FALSE(buckets_within_bound(too_big, 40, 100));
  const std::vector<std::uint32_t> lost{10, 20, 30, 39};
  EXPECT_FALSE(buckets_within_bound(lost, 40, 100));
}

class BucketSortGuarantee : public ::testing::TestWithParam<Distribution> {};

TEST_P(BucketSortGuarantee, LargestBucketAtMostTwoNOverS) {
  std::string why_not;
  if (!cuda_device_usable(&why_not)) GTEST_SKIP() << why_not;
  for (const char* options : {"", "faithful=1"}) {
    const OptionValues values = parse_options(bucket_info(), options);
    BucketSorter sorter(values);
    sorter.reserve(std::size_t{1} << 24);
    for (const std::size_t n : {(std::size_t{1} << 20) + 3, std::size_t{1} << 24}) {
      SCOPED_TRACE(std::string("options '") + options + "', " + std::string(distribution_name(GetParam())) +
                   ", n = " + std::to_string(n));
      const CheckResult result = sort_and_check(sorter, GetParam(), n);
      EXPECT_TRUE(result.ok) << result.message;
      const bucket_sort::Config c = sorter.last_config();
      const std::uint64_t bound = BucketSorter::bucket_bound(n, c);
      const std::vector<std::uint32_t> sizes = sorter.last_bucket_sizes();
      ASSERT_EQ(sizes.size(), c.s);
      EXPECT_TRUE(buckets_within_bound(sizes, bound, n)) << "s = " << c.s << ", L = " << c.sublist;
      if (n % c.sublist == 0) {
        EXPECT_LE(bound, 2 * n / c.s);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, BucketSortGuarantee, ::testing::ValuesIn(all_distributions()),
                         [](const auto& info) { return test_name(distribution_name(info.param)); });

struct OptionCase {
  const char* options;
};

constexpr OptionCase kCases[] = {
    {"faithful=1"},
    {"faithful=1,cub_sample_sort=1,inline_sampling=0"},
    {"s=2"},
    {"s=4096"},
    {"s=16,sublist=64,chunk=64"},  // many sublists, the deepest global-memory path
    {"s=1024,sublist=16384,chunk=16384"},
    {"s=128,chunk=128"},  // the samples through the global path too
    {"sublist=1024,chunk=4096"},
    {"cub_sample_sort=0,radix_block_sort=0"},  // bitonic throughout at the default sizes
    {"s=16"},                                  // radix-sorted chunks joined by the key-only global-memory path
    {"s=64,chunk=4096"},                       // radix local sort, bitonic chunks
    {"sublist=4096"},                          // bitonic local sort, radix chunks
    {"onchip=0"},                              // the radix chunks and the global-memory path at the default sizes
    {"s=128"},                                 // onchip: bound above 16K at 1M+3, relocation, tiles and global path
    {"s=4096,sublist=16384"},                  // onchip gathering from bitonic-sorted 16K sublists
    {"sample_key_sort=0,inline_sampling=0"},
    {"radix_bits=4"},                             // the 4-bit tiles, onchip
    {"bucket_key_bits=0,s=128"},                  // all 32 bits; buckets around 8K (one and two tiles) at 1M+3
    {"radix_bits=4,onchip=0,sample_key_sort=0"},  // the previous default exactly
};

constexpr std::size_t kSizes[] = {1, 2, 1000, 4097, 65537, (std::size_t{1} << 20) + 3};
constexpr Distribution kDistributions[] = {Distribution::Uniform, Distribution::Specials, Distribution::AllEqual,
                                           Distribution::Zipf};

void PrintTo(const OptionCase& c, std::ostream* out) { *out << c.options; }

class BucketSortOptionEdges : public ::testing::TestWithParam<OptionCase> {};

TEST_P(BucketSortOptionEdges, MatchCpuReference) {
  std::string why_not;
  if (!cuda_device_usable(&why_not)) GTEST_SKIP() << why_not;
  const OptionValues options = parse_options(bucket_info(), GetParam().options);
  for (const Distribution dist : kDistributions) {
    BucketSorter sorter(options);
    SCOPED_TRACE(std::string("bucket-sort ") + GetParam().options);
    check_sorter(sorter, dist, kSizes);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, BucketSortOptionEdges, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return test_name(info.param.options); });

// The default is the on-chip configuration the speed goal rests on: at 16M pairs every bucket
// (bound 2n/s) fits two radix tiles, so the relocation is fused into the bucket sort.
TEST(BucketSortOptions, DefaultSortsEveryBucketOnChipAt16M) {
  const BucketSorter sorter{parse_options(bucket_info(), "")};
  const std::size_t n = std::size_t{1} << 24;
  const bucket_sort::Config c = sorter.config_for(n);
  EXPECT_TRUE(c.onchip);
  EXPECT_TRUE(c.gather);
  EXPECT_EQ(c.s, 2048u);
  EXPECT_LE(BucketSorter::bucket_bound(n, c), 16384u);
  const bucket_sort::Config paper = BucketSorter{parse_options(bucket_info(), "faithful=1")}.config_for(n);
  EXPECT_FALSE(paper.onchip);
  EXPECT_EQ(paper.s, 64u);
}

TEST(BucketSortOptions, RejectsNonPowersOfTwo) {
  EXPECT_THROW(BucketSorter{parse_options(bucket_info(), "s=48")}, OptionError);
  EXPECT_THROW(BucketSorter{parse_options(bucket_info(), "sublist=3000")}, OptionError);
  EXPECT_THROW(BucketSorter{parse_options(bucket_info(), "chunk=32")}, OptionError);
}

}  // namespace
}  // namespace depthsort::testing
