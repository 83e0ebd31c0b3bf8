// hybrid-coherent on specials keys: the bin index of the pivot search (Section 5.1,
// kernels/sort/hybrid/binning_index.hpp) for keys outside the range the bins were built from.
// hybrid-coherent builds the bins from the splitters kept by the LAST sort; in the generic suite
// that sort had n = 1, 2, 3... keys, so the range is a few ordered keys wide (shift 0) while this
// sort's keys span the whole ordered space (+-inf, NaN). The old bin, min(int((k - lo) >> shift),
// bins - 1), turned an offset of 2^31 or more into a negative bin, an index before the pivot table:
// the cudaErrorIllegalAddress seen on the GPU. These tests replay the suite's sequence of sizes on
// the CPU with the kernels' own index math (host copies of the kept sample and pivot table).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "depthsort/harness/workload.hpp"
#include "sort/hybrid/binning_index.hpp"

namespace depthsort::hybrid {
namespace {

// The bin as it was before the fix (the device min() on ints), for the comparison.
long long old_bin(const Binning& b, std::uint32_t k) {
  if (k <= b.lo) return 0;
  const int raw = static_cast<int>((k - b.lo) >> b.shift);
  return std::min(raw, b.bins - 1);
}

// keep_splitters_kernel's sample: s keys of the sorted output at ranks (2i + 1) n / 2s.
std::vector<std::uint32_t> kept_sample(const std::vector<float>& keys, std::uint32_t s) {
  std::vector<std::uint32_t> sorted(keys.size());
  std::transform(keys.begin(), keys.end(), sorted.begin(), [](float k) { return ordered_key(k); });
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> kept(s);
  for (std::uint32_t i = 0; i < s; ++i) kept[i] = sorted[(2ull * i + 1ull) * sorted.size() / (2ull * s)];
  return kept;
}

constexpr int kBins = 1024;  // hybrid's default histogram_bins
constexpr int kL = 64;       // the smallest L: every sample at these sizes is every key
constexpr std::array<std::size_t, 17> kSmallSizes{1,  2,   3,   4,   5,    7,    8,    31,  32,
                                                  33, 255, 256, 257, 1023, 1024, 1025, 4095};

// The suite's order: each sort bins its keys with the range of the previous (smaller) sort's kept
// sample. Counts the keys whose old bin was negative (out of the table) and checks the new one.
TEST(HybridBinning, SpecialsAfterASmallerSortStayInTheTable) {
  std::size_t old_out_of_table = 0;
  for (std::size_t i = 1; i < kSmallSizes.size(); ++i) {
    const std::size_t prev_n = kSmallSizes[i - 1], n = kSmallSizes[i];
    const auto prev_keys = make_keys(Distribution::Specials, prev_n, prev_n + 17);
    const auto s = static_cast<std::uint32_t>(std::min<std::size_t>(prev_n, std::size_t{kL} * 64));
    const auto kept = kept_sample(prev_keys, s);
    // pivots_from_sample_kernel: omin_c = ~sorted[0], omax = sorted[s - 1]; make_binning undoes the ~.
    const Binning binning = make_binning_of_range(kept.front(), kept.back(), kBins);
    ASSERT_GE(binning.bins, 1);
    ASSERT_LE(binning.bins, kBins);
    for (const float key : make_keys(Distribution::Specials, n, n + 17)) {
      const std::uint32_t k = ordered_key(key);
      const int b = binning.bin(k);
      // PivotSearch reads table[b] and table[b + 1]; the table holds bins + 1 words.
      EXPECT_GE(b, 0) << "n " << n << " key bits " << std::hex << ordered_key(key);
      EXPECT_LT(b, binning.bins) << "n " << n;
      if (old_bin(binning, k) < 0) ++old_out_of_table;
    }
    // build_pivot_table bins the sentinel pivot 0xFFFFFFFF: the last bin, not a negative one.
    EXPECT_EQ(binning.bin(0xFFFFFFFFu), binning.bins - 1);
  }
  // The replay does reach the failure the GPU saw (before the fix these keys indexed before table).
  EXPECT_GT(old_out_of_table, 0u);
}

// For every key the old bin got right (0 <= bin < bins) the new one is the same: plain hybrid's
// buckets are unchanged wherever it never indexed out of its table; the new one is monotone.
TEST(HybridBinning, SameAsBeforeInsideTheTableAndMonotone) {
  std::mt19937 random(13);
  const std::array<std::uint32_t, 8> edges{0u,          1u,          0x7FFFFFFFu, 0x80000000u,
                                           0x80000001u, 0x407FFFFFu, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (int trial = 0; trial < 20000; ++trial) {
    std::uint32_t lo = trial % 3 == 0 ? edges[random() % edges.size()] : static_cast<std::uint32_t>(random());
    std::uint32_t hi =
        trial % 2 == 0 ? lo + static_cast<std::uint32_t>(random() % 4096) : static_cast<std::uint32_t>(random());
    if (hi < lo) std::swap(lo, hi);
    const int max_bins = trial % 5 == 0 ? 16 : kBins;
    const Binning binning = make_binning_of_range(lo, hi, max_bins);
    std::array<std::uint32_t, 12> keys{};
    for (std::size_t j = 0; j < keys.size(); ++j)
      keys[j] = j < edges.size() ? edges[j] : static_cast<std::uint32_t>(random());
    std::sort(keys.begin(), keys.end());
    int previous = 0;
    for (const std::uint32_t k : keys) {
      const int b = binning.bin(k);
      ASSERT_GE(b, 0);
      ASSERT_LT(b, binning.bins);
      ASSERT_GE(b, previous) << "bins must grow with the key";
      previous = b;
      const long long before = old_bin(binning, k);
      if (before >= 0) {
        ASSERT_EQ(b, before);
      }
    }
  }
}

}  // namespace
}  // namespace depthsort::hybrid
