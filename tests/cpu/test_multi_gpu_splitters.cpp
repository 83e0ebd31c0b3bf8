// The multi-GPU split of Sintorn & Assarsson's Section 6.1 (kernels/sort/multi_gpu/splitters.hpp),
// checked on the CPU: the GPUs' splitter steps (sample, histogram levels, bin choice, counts),
// simulated over G "GPUs" holding parts of the input with the very functions the device runs on its
// SplitState, then the per-key range rule of the scatter. Every range must hold only keys <= the
// next range's keys; each GPU's counts must be what the rule puts in each range (the exchange is
// posted with them); with exact splitters (3 levels) GPU j's sub-ranges hold t_{j+1} - t_j pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "depthsort/harness/workload.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {
namespace {

// Errors planted into the simulation; the checks must report each. BracketMissed is no error: a
// bracket that misses its target must make the levels read every key, and the split stay exact.
enum class Plant { None, IgnoreTies, CountOffByOne, BoundaryMoved, KeyOneRangeUp, CandidateLost, BracketMissed };

// Candidate slots per GPU in the simulation unless a test asks for fewer.
constexpr std::uint64_t kRoomy = ~std::uint64_t{0};

struct Simulation {
  int gpus = 1, chunks = 1, levels = kLevels;
  std::vector<std::uint64_t> targets;
  std::vector<std::vector<std::uint32_t>> keys;    // per GPU
  std::vector<int> ranks;                          // GPUs that ran the splitter steps
  std::vector<SplitState> states;                  // per GPU (valid for `ranks`)
  std::vector<std::vector<int>> range;             // per GPU, per key: the rule's range
  std::vector<std::vector<std::uint64_t>> actual;  // per GPU, per range: pairs the rule put there
  bool from_candidates = false;                    // the levels read the brackets' candidates
};

std::uint64_t sum(const std::uint64_t* a, int n) { return std::accumulate(a, a + n, std::uint64_t{0}); }

// What the GPUs do, on the CPU. GPU r < holders holds the r-th of `holders` equal parts of the keys.
Simulation simulate(const std::vector<std::uint32_t>& all, int gpus, int holders, int levels, int chunks,
                    double first_share = 0, Plant plant = Plant::None, std::uint64_t capacity = kRoomy) {
  Simulation sim;
  sim.gpus = gpus, sim.chunks = chunks, sim.levels = levels;
  const std::size_t n = all.size();
  sim.keys.resize(gpus);
  for (int h = 0; h < holders; ++h)
    sim.keys[h].assign(all.begin() + static_cast<std::ptrdiff_t>(n * h / holders),
                       all.begin() + static_cast<std::ptrdiff_t>(n * (h + 1) / holders));
  std::vector<int> holding;
  for (int r = 0; r < gpus; ++r)
    if (!sim.keys[r].empty()) holding.push_back(r);
  const bool reduce = holding.size() > 1;
  if (reduce) {
    sim.ranks.resize(gpus);
    std::iota(sim.ranks.begin(), sim.ranks.end(), 0);
  } else {
    sim.ranks = holding;
  }
  sim.states.resize(gpus);
  sim.range.resize(gpus);
  sim.actual.assign(gpus, std::vector<std::uint64_t>(kMaxRanges, 0));
  if (n == 0) return sim;
  sim.targets = split_targets(n, gpus, first_share);

  // The sample, the boundaries and the brackets.
  std::vector<std::uint32_t> samples(gpus, 0);
  std::uint32_t stride = 0, valid = 0;
  for (const int r : holding) {
    samples[r] = sample_count(sim.keys[r].size(), n);
    stride = std::max(stride, samples[r]);
    valid += samples[r];
  }
  const std::vector<std::uint32_t> index = boundary_sample_index(n, sim.targets, gpus, chunks, valid);
  std::vector<std::array<std::int32_t, 2>> brackets =
      levels == kLevels ? bracket_sample_index(n, sim.targets, valid) : std::vector<std::array<std::int32_t, 2>>{};
  if (plant == Plant::BracketMissed)
    for (auto& b : brackets) {  // one sample key well above the target's place
      const std::int32_t above = std::min<std::int32_t>(static_cast<std::int32_t>(valid) - 1, b[1] + 5);
      b = {above, above};
    }
  for (const int r : sim.ranks)
    init_state(sim.states[r],
               make_setup(r, gpus, chunks, levels, n, sim.keys[r].size(), sim.targets, index, brackets, 1, capacity));
  if (!index.empty() || !brackets.empty()) {
    std::vector<std::uint32_t> gathered;
    for (const int r : sim.ranks)
      for (std::uint32_t i = 0; i < stride; ++i)
        gathered.push_back(i < samples[r] ? sim.keys[r][sample_position(i, samples[r], sim.keys[r].size())]
                                          : 0xFFFFFFFFu);
    std::sort(gathered.begin(), gathered.end());
    for (const int r : sim.ranks) make_cuts(sim.states[r], gathered.data(), valid);
  }

  // The cut pass: every GPU counts its keys below each cut and copies its keys inside a bracket
  // aside (overflowing past `capacity`); the counts are summed, the extremes taken over all GPUs.
  std::vector<std::vector<std::uint64_t>> cut_local(gpus, std::vector<std::uint64_t>(kCutWords, 0));
  std::vector<std::uint64_t> cut_global(kCutWords, 0);
  std::vector<std::vector<std::uint32_t>> candidates(gpus);
  std::uint32_t key_min = 0xFFFFFFFFu, key_max = 0;
  for (const int r : sim.ranks) {
    const SplitState& st = sim.states[r];
    for (const std::uint32_t key : sim.keys[r]) {
      for (int c = 0; c < st.cuts; ++c) cut_local[r][c] += key < st.cut[c] ? 1 : 0;
      if (in_bracket(st.bracket_lo, st.bracket_hi, st.brackets, key)) candidates[r].push_back(key);
      key_min = std::min(key_min, key);
      key_max = std::max(key_max, key);
    }
    if (candidates[r].size() > st.setup.segment) cut_local[r][kOverflowWord] = 1;
    if (plant == Plant::CandidateLost && r == sim.ranks.front() && !candidates[r].empty())
      candidates[r].erase(std::min_element(candidates[r].begin(), candidates[r].end()));
    for (int w = 0; w < kCutWords; ++w) cut_global[w] += cut_local[r][w];
  }
  for (const int r : sim.ranks) apply_cuts(sim.states[r], cut_global.data(), cut_local[r].data(), key_min, key_max);
  sim.from_candidates = sim.states[sim.ranks.front()].from_candidates != 0;
  for (const int r : sim.ranks)
    EXPECT_EQ(sim.states[r].from_candidates != 0, sim.from_candidates) << "every GPU reads the same source";

  // The histogram levels, over the candidates or every key.
  const int levels_run = sim.states[sim.ranks.front()].setup.levels_run;
  for (int level = 0; level < levels_run; ++level) {
    const LevelParams p = sim.states[sim.ranks.front()].params;
    std::vector<std::vector<std::uint64_t>> local(gpus, std::vector<std::uint64_t>(kHistogramWords, 0));
    std::vector<std::uint64_t> global(kHistogramWords, 0);
    for (const int r : sim.ranks) {
      const SplitState& st = sim.states[r];
      EXPECT_EQ(st.params.slots, p.slots) << "every GPU runs the same pass";
      for (const std::uint32_t key : sim.from_candidates ? candidates[r] : sim.keys[r]) {
        const int slot = level_slot(st.params, key);
        if (slot >= 0)
          ++local[r][static_cast<std::size_t>(slot) * (st.params.bin_mask + 1) + level_bin(st.params, key)];
      }
      for (int w = 0; w < kHistogramWords; ++w) global[w] += local[r][w];
    }
    const int words = bin_words(p);
    auto cumulative = [&](const std::vector<std::uint64_t>& h) {
      std::vector<std::uint32_t> cum(words);
      std::uint64_t running = 0;
      for (int w = 0; w < words; ++w) cum[w] = static_cast<std::uint32_t>(running += h[w]);
      return cum;
    };
    const std::vector<std::uint32_t> cum_global = cumulative(global);
    for (const int r : sim.ranks) {
      SplitState& st = sim.states[r];
      find_bins(st, cum_global.data());
      local_belows(st, cumulative(local[r]).data());
      advance_level(st, level);
    }
  }
  std::vector<std::uint64_t> equal_all(static_cast<std::size_t>(kMaxGpus) * kMaxSplitters, 0);
  for (const int r : sim.ranks)
    for (int d = 0; d < kMaxSplitters; ++d)
      equal_all[static_cast<std::size_t>(r) * kMaxSplitters + d] = sim.states[r].equal_local[d];
  const bool gather_equal = reduce && levels == kLevels;
  for (const int r : sim.ranks) finish_counts(sim.states[r], gather_equal ? equal_all.data() : nullptr);
  if (plant == Plant::BoundaryMoved) {
    // The scatter of one GPU cuts its first sub-range at another key than the one counted.
    SplitState& st = sim.states[sim.ranks.front()];
    if (st.setup.boundaries >= 2) st.boundary[0] = st.boundary[1];
  }
  if (plant == Plant::CountOffByOne) {
    SplitState& st = sim.states[sim.ranks.front()];
    for (int range = 0; range + 1 < gpus * chunks; ++range)
      if (st.out.count[range] > 0) {
        --st.out.count[range], ++st.out.count[range + 1];
        break;
      }
  }

  // The scatter's rule, key by key: tie ranks from each GPU's base upwards.
  for (const int r : sim.ranks) {
    const SplitState& st = sim.states[r];
    std::vector<std::uint64_t> next(kMaxSplitters, 0);
    for (const std::uint32_t key : sim.keys[r]) {
      const int group = plant == Plant::IgnoreTies ? -1 : tie_group(st.splitters, key);
      const std::uint64_t rank = group >= 0 ? st.bases.base[group] + next[group]++ : 0;
      int range = range_index(st.splitters, st.boundary, st.setup.boundaries, chunks, key, rank);
      sim.range[r].push_back(range);
      ++sim.actual[r][range];
    }
  }
  if (plant == Plant::KeyOneRangeUp) {
    // The smallest key of the first GPU sent one range up.
    const int r = sim.ranks.front();
    if (!sim.keys[r].empty() && gpus * chunks > 1) {
      const auto lowest = std::min_element(sim.keys[r].begin(), sim.keys[r].end()) - sim.keys[r].begin();
      int& range = sim.range[r][static_cast<std::size_t>(lowest)];
      if (range + 1 < gpus * chunks) {
        --sim.actual[r][range];
        ++range;
        ++sim.actual[r][range];
      }
    }
  }
  return sim;
}

// Empty string when the split is good.
std::string check(const Simulation& sim, bool exact) {
  const int R = sim.gpus * sim.chunks;
  std::uint64_t n = 0;
  for (const auto& k : sim.keys) n += k.size();
  if (n == 0) return {};
  const SplitState& first = sim.states[sim.ranks.front()];
  for (const int r : sim.ranks) {
    const SplitState& st = sim.states[r];
    if (st.out.error != kErrorNone)
      return "GPU " + std::to_string(r) + " reports error " + std::to_string(st.out.error);
    for (int range = 0; range < R; ++range) {
      if (st.out.count[range] != sim.actual[r][range])
        return "GPU " + std::to_string(r) + " counts " + std::to_string(st.out.count[range]) + " pairs in range " +
               std::to_string(range) + ", its keys put " + std::to_string(sim.actual[r][range]) + " there";
      if (st.out.size[range] != first.out.size[range])
        return "the GPUs disagree on range " + std::to_string(range) + "'s size";
    }
  }
  std::vector<std::uint64_t> total(R, 0);
  for (int r = 0; r < sim.gpus; ++r) {
    if (std::find(sim.ranks.begin(), sim.ranks.end(), r) == sim.ranks.end() && !sim.keys[r].empty())
      return "GPU " + std::to_string(r) + " holds pairs but ran no split";
    for (int range = 0; range < R; ++range) total[range] += sim.actual[r][range];
  }
  for (int range = 0; range < R; ++range)
    if (total[range] != first.out.size[range])
      return "range " + std::to_string(range) + " holds " + std::to_string(total[range]) + " pairs, sized " +
             std::to_string(first.out.size[range]);
  // Ranges in key order: every key of a range <= every key of any later range.
  std::vector<std::uint32_t> lo(R, 0xFFFFFFFFu), hi(R, 0);
  std::vector<bool> used(R, false);
  for (int r = 0; r < sim.gpus; ++r)
    for (std::size_t i = 0; i < sim.keys[r].size(); ++i) {
      const int range = sim.range[r][i];
      if (range < 0 || range >= R) return "a key sent to range " + std::to_string(range);
      used[range] = true;
      lo[range] = std::min(lo[range], sim.keys[r][i]);
      hi[range] = std::max(hi[range], sim.keys[r][i]);
    }
  std::uint32_t highest = 0;
  bool any = false;
  for (int range = 0; range < R; ++range) {
    if (!used[range]) continue;
    if (any && lo[range] < highest) return "range " + std::to_string(range) + " holds a key below an earlier range's";
    highest = hi[range];
    any = true;
    // The bounds the local sort may take its bits from hold every key of the range.
    if (lo[range] < first.out.lo[range] || hi[range] > first.out.hi[range])
      return "range " + std::to_string(range) + " holds keys outside its bounds";
  }
  // Each GPU's layout: its runs for other GPUs one after another in the send buffer, its own at
  // their ranges' places in the stage buffer, none overlapping.
  for (const int r : sim.ranks) {
    const SplitState& st = sim.states[r];
    std::uint64_t send = 0, stage = 0;
    for (int range = 0; range < R; ++range) {
      if (range / sim.chunks == r) {
        if (st.offset[range] != stage)
          return "own range " + std::to_string(range) + " placed at " + std::to_string(st.offset[range]);
        stage += st.out.size[range];
      } else {
        if (st.offset[range] != send)
          return "run " + std::to_string(range) + " placed at " + std::to_string(st.offset[range]);
        send += st.out.count[range];
      }
    }
  }
  if (exact) {
    std::vector<std::uint64_t> edges{0};
    edges.insert(edges.end(), sim.targets.begin(), sim.targets.end());
    edges.push_back(n);
    for (int j = 0; j < sim.gpus; ++j) {
      const std::uint64_t held = sum(first.out.size + j * sim.chunks, sim.chunks);
      if (held != edges[j + 1] - edges[j])
        return "GPU range " + std::to_string(j) + " holds " + std::to_string(held) + ", expected " +
               std::to_string(edges[j + 1] - edges[j]);
    }
  }
  return {};
}

// The data path, on the CPU with the host's and the scatter's offsets: each GPU's pairs scattered
// into its send buffer and its own stage, round k moving every GPU's run of sub-range k to the
// place receive_offset gives, every sub-range sorted where it lies, the stages read in GPU order.
// Empty string when every stage slot is written exactly once and the result is the sorted input.
// `forget_own` plants receive offsets that leave out the receiving GPU's own pairs.
std::string move_and_sort(const Simulation& sim, bool forget_own = false) {
  const int N = sim.gpus, K = sim.chunks, R = N * K;
  std::vector<std::uint64_t> C(static_cast<std::size_t>(N) * R, 0), G(R, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all;  // (key, global index)
  std::uint32_t index = 0;
  for (int r = 0; r < N; ++r)
    for (const std::uint32_t key : sim.keys[r]) all.emplace_back(key, index++);
  if (all.empty()) return {};
  for (const int r : sim.ranks)
    for (int range = 0; range < R; ++range) {
      C[static_cast<std::size_t>(r) * R + range] = sim.states[r].out.count[range];
      G[range] = sim.states[r].out.size[range];
    }
  constexpr std::uint32_t kHole = 0xFFFFFFFFu;
  using Pair = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<std::vector<Pair>> send(N), stage(N);
  for (int j = 0; j < N; ++j) stage[j].assign(subrange_offset(G.data(), K, j, K), Pair{0, kHole});
  // The scatter.
  index = 0;
  for (int r = 0; r < N; ++r) {
    send[r].assign(sim.keys[r].size(), Pair{0, kHole});
    if (sim.keys[r].empty()) continue;
    const SplitState& st = sim.states[r];
    std::vector<std::uint64_t> cursor(R, 0);
    for (std::size_t i = 0; i < sim.keys[r].size(); ++i, ++index) {
      const int range = sim.range[r][i];
      auto& to = range / K == r ? stage[r] : send[r];
      const std::uint64_t at = st.offset[range] + cursor[range]++;
      if (at >= to.size() || to[at].second != kHole) return "the scatter writes a taken or missing place";
      to[at] = Pair{sim.keys[r][i], index};
    }
  }
  // The rounds, with the host's offsets.
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j)
      for (int r = 0; r < N; ++r) {
        const std::uint64_t c = C[static_cast<std::size_t>(r) * R + j * K + k];
        if (r == j || c == 0) continue;
        std::vector<std::uint64_t> send_at(R);
        scatter_offsets(&C[static_cast<std::size_t>(r) * R], G.data(), r, N, K, send_at.data());
        const std::uint64_t from = send_at[j * K + k],
                            to = receive_offset(C.data(), G.data(), N, K, j, k, r) -
                                 (forget_own ? C[static_cast<std::size_t>(j) * R + j * K + k] : 0);
        for (std::uint64_t i = 0; i < c; ++i) {
          if (from + i >= send[r].size() || send[r][from + i].second == kHole) return "a send reads an empty place";
          if (to + i >= subrange_offset(G.data(), K, j, k + 1) || stage[j][to + i].second != kHole)
            return "a receive lands on a taken place or outside its sub-range";
          stage[j][to + i] = send[r][from + i];
        }
      }
  std::vector<Pair> out;
  for (int j = 0; j < N; ++j) {
    for (int k = 0; k < K; ++k)
      std::sort(stage[j].begin() + static_cast<std::ptrdiff_t>(subrange_offset(G.data(), K, j, k)),
                stage[j].begin() + static_cast<std::ptrdiff_t>(subrange_offset(G.data(), K, j, k + 1)));
    for (const Pair& p : stage[j]) {
      if (p.second == kHole) return "a stage place was never written";
      out.push_back(p);
    }
  }
  std::sort(all.begin(), all.end());
  if (out.size() != all.size())
    return "the stages hold " + std::to_string(out.size()) + " pairs, not " + std::to_string(all.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].first != all[i].first) return "key " + std::to_string(i) + " out of order";
  }
  std::sort(out.begin(), out.end());
  if (out != all) return "pairs lost or duplicated";
  return {};
}

std::vector<std::uint32_t> ordered(const std::vector<float>& keys) {
  std::vector<std::uint32_t> out(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = ordered_key(keys[i]);
  return out;
}

std::string label(const std::string& what, std::size_t n, int gpus, int holders, int levels, int chunks) {
  return what + " n=" + std::to_string(n) + " gpus=" + std::to_string(gpus) + " holders=" + std::to_string(holders) +
         " levels=" + std::to_string(levels) + " chunks=" + std::to_string(chunks);
}

TEST(MultiGpuSplitters, ExactAndOrderedOnEveryDistribution) {
  for (const Distribution dist : all_distributions())
    for (const std::size_t n : {0, 1, 2, 3, 7, 9, 1000, 65537}) {
      const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 17));
      for (const int gpus : {1, 2, 3, 4, 8})
        for (const int chunks : {1, 3, 8})
          for (const int holders : {1, gpus})
            for (const int levels : {1, 3}) {
              SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, levels, chunks));
              EXPECT_EQ(check(simulate(keys, gpus, holders, levels, chunks), levels == kLevels), "");
            }
    }
}

// The partition's range lookup by steps (range_step, range_from_steps) against range_index on
// every key but the tie keys (whose ranges take their tie ranks) of every GPU that ran the split,
// on 0, 0xFFFFFFFF and on each step and the key below it. `moved`: step 0 one key higher, a planted
// error. Empty string when they agree.
std::string steps_disagree(const Simulation& sim, bool moved = false) {
  for (const int r : sim.ranks) {
    const SplitState& st = sim.states[r];
    const int R = sim.gpus * sim.chunks;
    const auto rule = [&](std::uint32_t key) {
      return range_index(st.splitters, st.boundary, st.setup.boundaries, sim.chunks, key, 0);
    };
    std::uint32_t step[kMaxRanges];
    std::fill(step, step + kMaxRanges, 0xFFFFFFFFu);
    int steps = 0;
    for (int t = 1; t < R; ++t) {
      const std::uint64_t at = range_step(st.splitters, st.boundary, st.setup.boundaries, sim.chunks, t);
      if (at < kNoStep) step[steps++] = static_cast<std::uint32_t>(at);
    }
    if (moved && steps > 0 && step[0] < 0xFFFFFFFFu) ++step[0];
    std::vector<std::uint32_t> probes = sim.keys[r];
    probes.push_back(0);
    probes.push_back(0xFFFFFFFFu);
    for (int t = 0; t < steps; ++t) {
      probes.push_back(step[t]);
      if (step[t] > 0) probes.push_back(step[t] - 1);
    }
    const int top = power_of_two_floor(steps);
    for (const std::uint32_t key : probes)
      if (tie_group(st.splitters, key) < 0 && range_from_steps(step, steps, top, key) != rule(key))
        return "GPU " + std::to_string(r) + ": key " + std::to_string(key) + " in range " +
               std::to_string(range_from_steps(step, steps, top, key)) + " by its steps, " + std::to_string(rule(key)) +
               " by the rule";
  }
  return {};
}

TEST(MultiGpuSplitters, StepsGiveEveryKeyTheRulesRange) {
  int with_ties = 0, without = 0;
  for (const Distribution dist : all_distributions())
    for (const std::size_t n : {1, 2, 7, 1000, 20000})
      for (const int gpus : {1, 2, 3, 4, 8})
        for (const int chunks : {1, 3, 8})
          for (const int holders : {1, gpus}) {
            SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, kLevels, chunks));
            const Simulation sim = simulate(ordered(make_keys(dist, n, n + 5)), gpus, holders, kLevels, chunks);
            EXPECT_EQ(steps_disagree(sim), "");
            (sim.states[sim.ranks.front()].splitters.ties > 0 ? with_ties : without) += 1;
          }
  EXPECT_GT(with_ties, 100);
  EXPECT_GT(without, 100);
  // The check catches a step one key off.
  const Simulation uniform = simulate(ordered(make_keys(Distribution::Uniform, 5000, 3)), 4, 4, kLevels, 2);
  ASSERT_EQ(steps_disagree(uniform), "");
  EXPECT_NE(steps_disagree(uniform, /*moved=*/true), "");
}

TEST(MultiGpuSplitters, DataLandsWhereTheExchangeSendsIt) {
  for (const Distribution dist : {Distribution::Uniform, Distribution::AllEqual, Distribution::TwoValues,
                                  Distribution::Zipf, Distribution::Sorted, Distribution::Reverse,
                                  Distribution::HalfEqual, Distribution::Specials, Distribution::Outliers})
    for (const std::size_t n : {1, 2, 5, 999, 20000})
      for (const int gpus : {1, 2, 3, 4, 8})
        for (const int chunks : {1, 2, 5, 8})
          for (const int holders : {1, gpus}) {
            const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 9));
            SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, 3, chunks));
            const Simulation sim = simulate(keys, gpus, holders, kLevels, chunks, holders == 1 && gpus > 1 ? 0.6 : 0);
            ASSERT_EQ(check(sim, true), "");
            EXPECT_EQ(move_and_sort(sim), "");
          }
}

TEST(MultiGpuSplitters, TwoLevelsAndUnevenHolders) {
  for (const Distribution dist : {Distribution::Uniform, Distribution::Zipf, Distribution::TwoClusters,
                                  Distribution::HalfEqual, Distribution::Specials})
    for (const std::size_t n : {5, 1000, 40000})
      for (const int gpus : {2, 4, 5})
        for (const int holders : {2, 3}) {
          if (holders > gpus) continue;
          const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 3));
          SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, 2, 4));
          EXPECT_EQ(check(simulate(keys, gpus, holders, 2, 4), false), "");
          EXPECT_EQ(check(simulate(keys, gpus, holders, kLevels, 4), true), "");
        }
}

TEST(MultiGpuSplitters, EqualKeysAcrossSplitPointsAndExtremes) {
  // Every key equal (at both ends of the ordered range, and -0 / +0), two values, one outlier.
  const std::vector<std::vector<std::uint32_t>> inputs{
      std::vector<std::uint32_t>(1001, 0u),
      std::vector<std::uint32_t>(1001, 0xFFFFFFFFu),
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
      for (const int chunks : {1, 2, 7})
        for (const int holders : {1, gpus}) {
          SCOPED_TRACE(label("edge", keys.size(), gpus, holders, 3, chunks));
          EXPECT_EQ(check(simulate(keys, gpus, holders, kLevels, chunks), true), "");
          EXPECT_EQ(check(simulate(keys, gpus, holders, 1, chunks), false), "");
        }
}

TEST(MultiGpuSplitters, WeightedFirstRangeIsExact) {
  // The weighted paper's case: range 0 gets floor(share n) pairs, the others split the rest.
  for (const Distribution dist : {Distribution::Uniform, Distribution::AllEqual, Distribution::TwoValues,
                                  Distribution::Outliers, Distribution::HalfEqual})
    for (const std::size_t n : {1, 2, 5, 1000, 65537})
      for (const int gpus : {2, 3, 8})
        for (const int chunks : {1, 4})
          for (const double share : {0.55, 0.7, 0.75}) {
            SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, 1, 3, chunks) +
                         " share=" + std::to_string(share));
            const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 5));
            const Simulation sim = simulate(keys, gpus, 1, kLevels, chunks, share);
            EXPECT_EQ(check(sim, true), "");
            EXPECT_EQ(sum(sim.states[0].out.size, chunks),
                      std::min<std::uint64_t>(static_cast<std::uint64_t>(share * n), n - 1));
          }
}

TEST(MultiGpuSplitters, SubRangesFollowTheSample) {
  // Uniform keys, every key sampled (n <= kSampleTotal): the sub-ranges hold close to n / (gpus
  // chunks) pairs each, so that the pipeline's pieces are even.
  const std::size_t n = 60000;
  const std::vector<std::uint32_t> keys = ordered(make_keys(Distribution::Uniform, n, 11));
  for (const int gpus : {1, 2, 4})
    for (const int chunks : {2, 8}) {
      const Simulation sim = simulate(keys, gpus, gpus, kLevels, chunks);
      ASSERT_EQ(check(sim, true), "");
      const double even = static_cast<double>(n) / (gpus * chunks);
      for (int range = 0; range < gpus * chunks; ++range)
        EXPECT_NEAR(static_cast<double>(sim.states[0].out.size[range]), even, 0.02 * even) << "range " << range;
    }
}

TEST(MultiGpuSplitters, BracketsHoldTheSplitters) {
  // Uniform, Gaussian and sorted keys: every target lies inside its bracket, so the levels read the
  // candidates alone (about 1.2% of the keys a splitter once the sample is smaller than the input).
  for (const Distribution dist :
       {Distribution::Uniform, Distribution::Gaussian, Distribution::Sorted, Distribution::Zipf})
    for (const std::size_t n : {1000, 65537, 400000})
      for (const int gpus : {2, 4, 8})
        for (const int holders : {1, gpus}) {
          SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, 3, 2));
          const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 21));
          const Simulation sim = simulate(keys, gpus, holders, kLevels, 2);
          EXPECT_EQ(check(sim, true), "");
          EXPECT_TRUE(sim.from_candidates);
          if (n > kSampleTotal) {
            std::uint64_t candidates = 0;
            for (const int r : sim.ranks) {
              const SplitState& st = sim.states[r];
              for (int m = 0; m < st.brackets; ++m)
                for (const std::uint32_t key : sim.keys[r])
                  candidates += key >= st.bracket_lo[m] && key <= st.bracket_hi[m];
            }
            EXPECT_LT(candidates, static_cast<std::uint64_t>(0.02 * (gpus - 1) * n)) << "brackets too wide";
          }
        }
}

TEST(MultiGpuSplitters, EveryKeyWhereABracketFails) {
  // A bracket that misses its target, and candidates that overflow their slots: the levels read
  // every key, and the split stays exact.
  for (const Distribution dist :
       {Distribution::Uniform, Distribution::AllEqual, Distribution::TwoValues, Distribution::HalfEqual})
    for (const std::size_t n : {2, 1000, 65537})
      for (const int gpus : {2, 3, 4})
        for (const int holders : {1, gpus}) {
          SCOPED_TRACE(label(std::string(distribution_name(dist)), n, gpus, holders, 3, 3));
          const std::vector<std::uint32_t> keys = ordered(make_keys(dist, n, n + 2));
          const Simulation missed = simulate(keys, gpus, holders, kLevels, 3, 0, Plant::BracketMissed);
          EXPECT_EQ(check(missed, true), "");
          if (n >= 1000 && dist == Distribution::Uniform) {
            EXPECT_FALSE(missed.from_candidates);
          }
          const Simulation overflow = simulate(keys, gpus, holders, kLevels, 3, 0, Plant::None, 0);
          EXPECT_EQ(check(overflow, true), "");
          EXPECT_FALSE(overflow.from_candidates);
          EXPECT_EQ(move_and_sort(overflow), "");
        }
  // All keys equal: one bracket holds every key, more than the slots a real sort reserves.
  const std::vector<std::uint32_t> equal(300000, ordered_key(0.5f));
  const Simulation all_equal = simulate(equal, 2, 2, kLevels, 1, 0, Plant::None, candidate_capacity(150000, 2) / 8);
  EXPECT_EQ(check(all_equal, true), "");
  EXPECT_FALSE(all_equal.from_candidates);
}

TEST(MultiGpuSplitters, PlantedErrorsAreCaught) {
  const std::vector<std::uint32_t> equal(1000, ordered_key(0.5f));
  const std::vector<std::uint32_t> uniform = ordered(make_keys(Distribution::Uniform, 5000, 3));
  // Equal keys split by key alone: one GPU gets everything; the balance check must say so.
  EXPECT_NE(check(simulate(equal, 2, 2, kLevels, 1, 0, Plant::IgnoreTies), true), "");
  // A count the exchange would be posted with, one pair off.
  EXPECT_NE(check(simulate(uniform, 4, 4, kLevels, 3, 0, Plant::CountOffByOne), true), "");
  // The scatter's boundary not the one the counts were taken at.
  EXPECT_NE(check(simulate(uniform, 2, 2, kLevels, 4, 0, Plant::BoundaryMoved), true), "");
  // A pair sent one range too high breaks the order the check requires.
  EXPECT_NE(check(simulate(uniform, 4, 1, kLevels, 2, 0, Plant::KeyOneRangeUp), true), "");
  // A candidate lost between the cut pass and the levels: a splitter lands one rank off.
  const Simulation lost = simulate(uniform, 4, 4, kLevels, 1, 0, Plant::CandidateLost);
  ASSERT_TRUE(lost.from_candidates);
  EXPECT_NE(check(lost, true), "");
  // Received runs placed over the receiving GPU's own pairs.
  const Simulation spread = simulate(uniform, 4, 4, kLevels, 3);
  ASSERT_EQ(move_and_sort(spread), "");
  EXPECT_NE(move_and_sort(spread, /*forget_own=*/true), "");
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
  // Sub-ranges: 4 GPUs x 3 chunks, boundaries (2 per GPU) 5 7 | 12 15 | 25 25 | 40 50.
  const std::uint32_t b[] = {5, 7, 12, 15, 25, 25, 40, 50};
  EXPECT_EQ(interval_of(b, 8, 4), 0);
  EXPECT_EQ(interval_of(b, 8, 5), 1);
  EXPECT_EQ(interval_of(b, 8, 25), 6);
  EXPECT_EQ(interval_of(b, 8, 99), 8);
  EXPECT_EQ(range_index(s, b, 8, 3, 4, 0), 0);   // GPU 0, below 5
  EXPECT_EQ(range_index(s, b, 8, 3, 6, 0), 1);   // GPU 0, [5, 7)
  EXPECT_EQ(range_index(s, b, 8, 3, 9, 0), 2);   // GPU 0, >= 7
  EXPECT_EQ(range_index(s, b, 8, 3, 10, 0), 3);  // GPU 1, below its first boundary 12
  EXPECT_EQ(range_index(s, b, 8, 3, 20, 0), 5);  // GPU 1 (tie rank 0 < 2), >= 15
  EXPECT_EQ(range_index(s, b, 8, 3, 20, 2), 6);  // GPU 2, below 25
  EXPECT_EQ(range_index(s, b, 8, 3, 25, 0), 8);  // GPU 2, >= both its boundaries
  EXPECT_EQ(range_index(s, b, 8, 3, 31, 0), 9);  // GPU 3, below 40
  EXPECT_EQ(range_index(s, b, 8, 3, 45, 0), 10);
  EXPECT_EQ(range_index(s, b, 8, 3, 0xFFFFFFFFu, 0), 11);
}

TEST(MultiGpuSplitters, PlanArithmetic) {
  // Brackets: margin keys either side of the target's place, clamped to the sample's ends.
  EXPECT_EQ(bracket_margin(kSampleTotal), 3u * 513u + 16u);
  EXPECT_EQ(bracket_margin(1), 3u * 2u + 16u);
  {
    const std::uint64_t n = std::uint64_t{1} << 30;
    const std::vector<std::uint64_t> targets = split_targets(n, 4);
    const auto at = bracket_sample_index(n, targets, kSampleTotal);
    ASSERT_EQ(at.size(), 3u);
    const auto m = static_cast<std::int32_t>(bracket_margin(kSampleTotal));
    EXPECT_EQ(at[1][0], static_cast<std::int32_t>(kSampleTotal / 2) - m);
    EXPECT_EQ(at[1][1], static_cast<std::int32_t>(kSampleTotal / 2) + m);
    const auto edge = bracket_sample_index(1000, split_targets(1000, 2, 0.999), 1000);
    EXPECT_EQ(edge[0][1], kSampleTop);
    EXPECT_EQ(bracket_sample_index(100, split_targets(100, 8), 100)[0][0], kSampleBottom);
  }
  // Candidate slots: twice what 1G pairs on 2 GPUs put in their brackets, about 2.4% of them.
  EXPECT_GE(candidate_capacity(std::uint64_t{512} << 20, 2), (std::uint64_t{512} << 20) / 50);
  EXPECT_LE(candidate_capacity(std::uint64_t{512} << 20, 2), (std::uint64_t{512} << 20) / 30);
  EXPECT_EQ(candidate_capacity(1000, 4), 1000u + 65536u);
  EXPECT_EQ(candidate_capacity(1000, 1), 0u);
  for (const bool gathered : {false, true}) EXPECT_EQ(auto_chunks(0, 2, gathered), 1);
  // The distributed case: pieces of 32M pairs, at most 4.
  EXPECT_EQ(auto_chunks(std::uint64_t{64} << 20, 2, false), 1);
  EXPECT_EQ(auto_chunks(std::uint64_t{256} << 20, 2, false), 4);
  EXPECT_EQ(auto_chunks(std::uint64_t{256} << 20, 4, false), 2);
  EXPECT_EQ(auto_chunks(std::uint64_t{1} << 30, 2, false), 4);
  EXPECT_EQ(auto_chunks(std::uint64_t{1} << 30, 4, false), 4);
  // The paper's case: pieces of 64M pairs, up to 8.
  EXPECT_EQ(auto_chunks(std::uint64_t{64} << 20, 2, true), 1);
  EXPECT_EQ(auto_chunks(std::uint64_t{256} << 20, 2, true), 2);
  EXPECT_EQ(auto_chunks(std::uint64_t{1} << 30, 2, true), 8);
  EXPECT_EQ(auto_chunks(std::uint64_t{1} << 30, 4, true), 4);
  // Samples: shares of kSampleTotal, at least one key where a GPU holds any, never more than it holds.
  EXPECT_EQ(sample_count(0, 100), 0u);
  EXPECT_EQ(sample_count(3, 100), 3u);
  EXPECT_EQ(sample_count(std::uint64_t{1} << 29, std::uint64_t{1} << 30), kSampleTotal / 2);
  EXPECT_EQ(sample_count(1, std::uint64_t{1} << 30), 1u);
  // Stratified positions: one in each stratum, inside [0, n).
  for (const std::uint64_t n : {1ull, 7ull, 1000ull, 1ull << 31})
    for (const std::uint32_t samples : {1u, 7u, 1000u}) {
      if (samples > n) continue;
      for (std::uint32_t i = 0; i < samples; ++i) {
        const std::uint64_t at = sample_position(i, samples, n);
        EXPECT_GE(at, i * n / samples);
        EXPECT_LT(at, (i + 1ull) * n / samples);
      }
    }
  // Boundary positions: non-decreasing, inside the sample.
  const std::uint64_t n = 1000003;
  for (const double share : {0.0, 0.6})
    for (const int gpus : {1, 2, 4, 8}) {
      const std::vector<std::uint64_t> targets = split_targets(n, gpus, gpus > 1 ? share : 0);
      const std::vector<std::uint32_t> index = boundary_sample_index(n, targets, gpus, 8, 65536);
      ASSERT_EQ(index.size(), static_cast<std::size_t>(gpus * 7));
      EXPECT_TRUE(std::is_sorted(index.begin(), index.end()));
      EXPECT_LT(index.back(), 65536u);
    }
  // The layout: other GPUs' runs packed in range order, own ranges at their places.
  const std::uint64_t count[] = {3, 0, 5, 2, 4, 1};  // 3 GPUs x 2 chunks, seen from GPU 1
  const std::uint64_t size[] = {9, 9, 7, 8, 9, 9};
  std::uint64_t offset[6];
  scatter_offsets(count, size, 1, 3, 2, offset);
  EXPECT_EQ(offset[0], 0u);
  EXPECT_EQ(offset[1], 3u);
  EXPECT_EQ(offset[2], 0u);  // own: sub-range 0 at the stage's start
  EXPECT_EQ(offset[3], 7u);  // own: after sub-range 0's whole size
  EXPECT_EQ(offset[4], 3u);
  EXPECT_EQ(offset[5], 7u);
}

}  // namespace
}  // namespace depthsort::multi_gpu
