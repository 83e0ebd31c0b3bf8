// The multi-GPU split of Sintorn & Assarsson's Section 6.1 (kernels/sort/multi_gpu/splitters.hpp),
// checked on the CPU: the histogram levels, the splitter plan and the per-key range rule that the
// GPU kernels run, simulated over G "GPUs" holding chunks of the input. Every range must hold only
// keys <= the next range's keys, and with exact splitters (3 levels) exactly t_{j+1} - t_j pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "depthsort/harness/workload.hpp"
#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {
namespace {

struct Split {
  std::vector<int> range;  // of every key
  std::vector<std::uint64_t> counts;
};

// What the GPUs do, on the CPU: histogram per level (summed over the holders), plan, tie bases
// from each holder's level-2 counts, then each holder's keys get a tie rank in input order.
// `ignore_ties` plants the error of splitting equal keys by key alone.
Split simulate(const std::vector<std::uint32_t>& keys, int gpus, int holders, int levels, bool ignore_ties = false,
               double first_share = 0) {
  const std::size_t n = keys.size();
  auto chunk = [&](int h) { return n * h / holders; };
  SplitterPlan plan(n, gpus, levels, first_share);
  std::vector<std::vector<std::uint64_t>> local(holders);
  for (int level = 0; level < levels && plan.needed(); ++level) {
    const LevelParams p = plan.params(level);
    const std::size_t words = SplitterPlan::histogram_words(p);
    std::vector<std::uint64_t> global(words, 0);
    for (int h = 0; h < holders; ++h) {
      local[h].assign(words, 0);
      for (std::size_t i = chunk(h); i < chunk(h + 1); ++i) {
        const int slot = level_slot(p, keys[i]);
        if (slot >= 0) ++local[h][static_cast<std::size_t>(slot) * (p.bin_mask + 1) + level_bin(p, keys[i])];
      }
      for (std::size_t w = 0; w < words; ++w) global[w] += local[h][w];
    }
    plan.refine(level, global);
  }
  const Splitters s = plan.splitters();
  Split out{std::vector<int>(n), std::vector<std::uint64_t>(gpus, 0)};
  std::vector<std::uint64_t> base(kMaxSplitters, 0);
  for (int h = 0; h < holders; ++h) {
    std::vector<std::uint64_t> next(kMaxSplitters, 0);
    for (std::size_t i = chunk(h); i < chunk(h + 1); ++i) {
      const int group = ignore_ties ? -1 : tie_group(s, keys[i]);
      const std::uint64_t rank = group >= 0 ? base[group] + next[group]++ : 0;
      out.range[i] = range_of(s, keys[i], rank);
      ++out.counts.at(out.range[i]);
    }
    for (int d = 0; d < s.ties; ++d) base[d] += local[h][plan.tie_word(s.tie_key[d])];
  }
  return out;
}

// Empty string when the split is good: ranges ordered by key, all pairs placed, and with
// `exact` the sizes t_{j+1} - t_j.
std::string check_split(const std::vector<std::uint32_t>& keys, int gpus, const Split& split, bool exact) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> lo(gpus, 0xFFFFFFFFu), hi(gpus, 0);
  std::vector<bool> used(gpus, false);
  std::uint64_t placed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int r = split.range[i];
    if (r < 0 || r >= gpus) return "key " + std::to_string(i) + " sent to range " + std::to_string(r);
    used[r] = true;
    lo[r] = std::min(lo[r], keys[i]);
    hi[r] = std::max(hi[r], keys[i]);
    ++placed;
  }
  if (placed != n) return "pairs lost";
  std::uint32_t highest = 0;
  bool any = false;
  for (int r = 0; r < gpus; ++r) {
    if (!used[r]) continue;
    if (any && lo[r] < highest) return "range " + std::to_string(r) + " holds a key below an earlier range's";
    highest = hi[r];
    any = true;
  }
  if (exact)
    for (int j = 0; j < gpus; ++j) {
      const std::uint64_t expected = n * (j + 1) / gpus - n * j / gpus;
      if (split.counts[j] != expected)
        return "range " + std::to_string(j) + " holds " + std::to_string(split.counts[j]) + ", expected " +
               std::to_string(expected);
    }
  return {};
}

std::vector<std::uint32_t> ordered(const std::vector<float>& keys) {
  std::vector<std::uint32_t> out(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = ordered_key(keys[i]);
  return out;
}

TEST(MultiGpuSplitters, ExactAndOrderedOnEveryDistribution) {
  for (const Distribution dist : all_distributions())
    for (const std::size_t n : {0, 1, 2, 3, 7, 9, 1000, 65537}) {
      const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 17));
      for (const int gpus : {1, 2, 3, 4, 8})
        for (const int holders : {1, gpus})
          for (const int levels : {1, 2, 3}) {
            SCOPED_TRACE(std::string(distribution_name(dist)) + " n=" + std::to_string(n) + " gpus=" +
                         std::to_string(gpus) + " holders=" + std::to_string(holders) + " levels=" + std::to_string(levels));
            EXPECT_EQ(check_split(keys, gpus, simulate(keys, gpus, holders, levels), levels == kLevels), "");
          }
    }
}

TEST(MultiGpuSplitters, EqualKeysAcrossSplitPointsAndExtremes) {
  // Every key equal (at both ends of the ordered range, and -0 / +0), two values, one outlier.
  const std::vector<std::vector<std::uint32_t>> inputs{
      std::vector<std::uint32_t>(1001, 0u),          std::vector<std::uint32_t>(1001, 0xFFFFFFFFu),
      std::vector<std::uint32_t>(999, ordered_key(-0.0f)),
      [] {
        std::vector<std::uint32_t> k(5000);
        for (std::size_t i = 0; i < k.size(); ++i) k[i] = ordered_key(i % 3 ? 0.0f : -0.0f);
        return k;
      }(),
      [] {
        std::vector<std::uint32_t> k(4097, ordered_key(1.0f));
        k[17] = 0xFFFFFFFFu;
        return k;
      }(),
  };
  for (const auto& keys : inputs)
    for (const int gpus : {2, 3, 5, 8})
      for (const int holders : {1, gpus}) {
        SCOPED_TRACE("n=" + std::to_string(keys.size()) + " gpus=" + std::to_string(gpus) + " holders=" +
                     std::to_string(holders));
        EXPECT_EQ(check_split(keys, gpus, simulate(keys, gpus, holders, kLevels), true), "");
        EXPECT_EQ(check_split(keys, gpus, simulate(keys, gpus, holders, 1), false), "");
      }
}

TEST(MultiGpuSplitters, WeightedFirstRangeIsExact) {
  // The weighted paper's case: range 0 gets floor(share n) pairs, the others split the rest.
  for (const Distribution dist : {Distribution::Uniform, Distribution::AllEqual, Distribution::TwoValues,
                                  Distribution::Outliers, Distribution::HalfEqual})
    for (const std::size_t n : {1, 2, 5, 1000, 65537})
      for (const int gpus : {2, 3, 8})
        for (const double share : {0.55, 0.7, 0.75}) {
          SCOPED_TRACE(std::string(distribution_name(dist)) + " n=" + std::to_string(n) + " gpus=" +
                       std::to_string(gpus) + " share=" + std::to_string(share));
          const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 5));
          const Split split = simulate(keys, gpus, 1, kLevels, false, share);
          EXPECT_EQ(check_split(keys, gpus, split, false), "");
          const SplitterPlan plan(n, gpus, kLevels, share);
          std::vector<std::uint64_t> edges{0};
          edges.insert(edges.end(), plan.targets().begin(), plan.targets().end());
          edges.push_back(n);
          for (int j = 0; j < gpus; ++j) EXPECT_EQ(split.counts[j], edges[j + 1] - edges[j]) << "range " << j;
          EXPECT_EQ(split.counts[0], std::min<std::uint64_t>(static_cast<std::uint64_t>(share * n), n - 1));
        }
}

TEST(MultiGpuSplitters, PlantedErrorsAreCaught) {
  // Equal keys split by key alone: one GPU gets everything; the balance check must say so.
  const std::vector<std::uint32_t> equal(1000, ordered_key(0.5f));
  EXPECT_NE(check_split(equal, 2, simulate(equal, 2, 2, kLevels, /*ignore_ties=*/true), true), "");
  // A pair sent one range too high breaks the order the check requires.
  const std::vector<std::uint32_t> keys = ordered(make_keys(Distribution::Uniform, 1000, 3));
  Split split = simulate(keys, 4, 1, kLevels);
  const auto lowest = std::min_element(keys.begin(), keys.end()) - keys.begin();
  split.range[lowest] = 1;
  EXPECT_NE(check_split(keys, 4, split, false), "");
}

TEST(MultiGpuSplitters, RangeRuleAtTheSplitter) {
  Splitters s;
  s.count = 3;
  s.key[0] = 10, s.take[0] = 0;          // keys >= 10 pass
  s.key[1] = 20, s.take[1] = 2;          // keys > 20, and keys == 20 with tie rank >= 2
  s.key[2] = 30, s.take[2] = kTakeNone;  // keys > 30 only
  s.tie_key[0] = 20, s.ties = 1;
  EXPECT_EQ(range_of(s, 9, 0), 0);
  EXPECT_EQ(range_of(s, 10, 0), 1);
  EXPECT_EQ(range_of(s, 20, 1), 1);
  EXPECT_EQ(range_of(s, 20, 2), 2);
  EXPECT_EQ(range_of(s, 30, 0), 2);
  EXPECT_EQ(range_of(s, 31, 0), 3);
  EXPECT_EQ(tie_group(s, 20), 0);
  EXPECT_EQ(tie_group(s, 30), -1);
}

}  // namespace
}  // namespace depthsort::multi_gpu
