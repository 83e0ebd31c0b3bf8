// The splitters found (Sintorn & Assarsson, JPDC 2008, Sections 5.1, 6.1): sample, brackets, cuts, levels.
#pragma once

#include <cstdint>

#include "sort/multi_gpu/splitter_state.hpp"

namespace depthsort::multi_gpu {

// The parameters of histogram pass `level`: every key at level 0, then the distinct prefixes of
// the splitters' bins (non-decreasing, as the targets are).
DEPTHSORT_MG_HD LevelParams make_level_params(const SplitState& st, int level) {
  LevelParams p;
  p.bin_shift = level_shift(level);
  p.bin_mask = (std::uint32_t{1} << level_bits(level)) - 1;
  p.prefix_shift = level == 0 ? 32 : level_shift(level - 1);
  if (level > 0)
    for (int j = 0; j < st.setup.splitters; ++j)
      if (p.slots == 0 || p.prefixes[p.slots - 1] != st.prefix[j]) p.prefixes[p.slots++] = st.prefix[j];
  return p;
}

// Resets the state for a sort with this setup.
DEPTHSORT_MG_HD void init_state(SplitState& st, const SplitSetup& setup) {
  st = SplitState{};
  st.setup = setup;
  st.params = make_level_params(st, 0);
}

// Inclusive cumulative counts `cum` of the current level's bins (slots concatenated): each splitter
// finds the bin that holds its target rank. Global counts.
DEPTHSORT_MG_HD void find_bins(SplitState& st, const std::uint32_t* cum) {
  const LevelParams& p = st.params;
  const int bins = static_cast<int>(p.bin_mask + 1);
  for (int j = 0; j < st.setup.splitters; ++j) {
    int slot = 0;
    if (p.slots > 0)
      while (slot + 1 < p.slots && p.prefixes[slot] != st.prefix[j]) ++slot;
    const int base = slot * bins;
    const std::uint64_t before = base > 0 ? cum[base - 1] : 0;
    const std::uint64_t below = st.below_global[j], target = st.setup.target[j];
    // The first bin b with below + (keys of this slot up to b) > target.
    int lo = 0, hi = bins;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (below + (cum[base + mid] - before) > target)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo == bins) {  // the target's rank lies outside this prefix's keys: the levels disagree
      st.out.error = kErrorRank;
      lo = bins - 1;
    }
    const std::uint64_t inside_before = lo > 0 ? cum[base + lo - 1] - before : 0;
    st.slot[j] = slot;
    st.bin[j] = static_cast<std::uint32_t>(lo);
    st.bin_global[j] = cum[base + lo] - before - inside_before;
    st.below_global[j] = below + inside_before;
  }
}

// The same bins in this GPU's own cumulative counts: its keys below each splitter's bin.
DEPTHSORT_MG_HD void local_belows(SplitState& st, const std::uint32_t* cum) {
  const int bins = static_cast<int>(st.params.bin_mask + 1);
  for (int j = 0; j < st.setup.splitters; ++j) {
    const int base = st.slot[j] * bins;
    const int b = static_cast<int>(st.bin[j]);
    const std::uint64_t before = base > 0 ? cum[base - 1] : 0;
    const std::uint64_t inside_before = b > 0 ? cum[base + b - 1] - before : 0;
    st.below_local[j] += inside_before;
    st.bin_local[j] = cum[base + b] - before - inside_before;
  }
}

// From the sorted sample of `valid` keys: the boundaries, the brackets (merged where they overlap)
// and the cuts the cut pass counts below.
DEPTHSORT_MG_HD void make_cuts(SplitState& st, const std::uint32_t* sorted, std::uint32_t valid) {
  const SplitSetup& u = st.setup;
  for (int i = 0; i < u.boundaries; ++i) st.boundary[i] = sorted[u.sample_index[i]];
  st.brackets = 0;
  if (u.brackets)
    for (int j = 0; j < u.splitters; ++j) {
      auto key_at = [&](std::int32_t at) -> std::uint32_t {
        if (at == kSampleBottom) return 0u;
        if (at == kSampleTop || at < 0 || static_cast<std::uint32_t>(at) >= valid) return 0xFFFFFFFFu;
        return sorted[at];
      };
      const std::uint32_t lo = key_at(u.bracket_at[j][0]), hi = key_at(u.bracket_at[j][1]);
      // Targets and sample places are non-decreasing in j: a bracket overlaps only the last one.
      if (st.brackets > 0 && lo <= st.bracket_hi[st.brackets - 1]) {
        if (hi > st.bracket_hi[st.brackets - 1]) st.bracket_hi[st.brackets - 1] = hi;
      } else {
        st.bracket_lo[st.brackets] = lo;
        st.bracket_hi[st.brackets] = hi;
        ++st.brackets;
      }
      st.bracket_of[j] = st.brackets - 1;
    }
  st.cuts = 0;
  for (int m = 0; m < st.brackets; ++m) {
    st.cut[st.cuts++] = st.bracket_lo[m];
    st.cut[st.cuts++] = std::uint64_t{st.bracket_hi[m]} + 1;
  }
  for (int i = 0; i < u.boundaries; ++i) st.cut[st.cuts++] = st.boundary[i];
}

// Whether the cut pass copies `key` aside: it lies inside a bracket.
DEPTHSORT_MG_HD bool in_bracket(const std::uint32_t* lo, const std::uint32_t* hi, int brackets, std::uint32_t key) {
  bool inside = false;
  for (int m = 0; m < brackets; ++m) inside |= key >= lo[m] && key <= hi[m];
  return inside;
}

// After the cut pass: every GPU's counts below each cut (`global`, with kOverflowWord > 0 where
// some GPU's candidates overflowed), this GPU's (`local`) and the smallest and largest key of all.
// Sets the boundaries' counts, and decides what the levels read: the candidates where every
// splitter's target lies inside its bracket (each splitter then starts from the keys below its
// bracket that are no candidates), every key otherwise.
DEPTHSORT_MG_HD void apply_cuts(SplitState& st, const std::uint64_t* global, const std::uint64_t* local,
                                std::uint32_t key_min, std::uint32_t key_max) {
  const SplitSetup& u = st.setup;
  const int first_boundary = 2 * st.brackets;
  for (int i = 0; i < u.boundaries; ++i) {
    st.boundary_below_global[i] = global[first_boundary + i];
    st.boundary_below_local[i] = local[first_boundary + i];
  }
  st.key_min = key_min;
  st.key_max = key_max;
  bool inside = u.brackets && st.brackets > 0 && global[kOverflowWord] == 0;
  for (int j = 0; inside && j < u.splitters; ++j) {
    const int m = st.bracket_of[j];
    inside = global[2 * m] <= u.target[j] && u.target[j] < global[2 * m + 1];
  }
  st.from_candidates = inside ? 1 : 0;
  st.out.from_candidates = static_cast<std::uint32_t>(st.from_candidates);
  if (!inside) return;  // the levels start from zero over every key
  // Keys below bracket m that are no candidates: all keys below it, less those of lower brackets.
  std::uint64_t outside_global[kMaxSplitters] = {}, outside_local[kMaxSplitters] = {};
  std::uint64_t inside_global = 0, inside_local = 0;
  for (int m = 0; m < st.brackets; ++m) {
    outside_global[m] = global[2 * m] - inside_global;
    outside_local[m] = local[2 * m] - inside_local;
    inside_global += global[2 * m + 1] - global[2 * m];
    inside_local += local[2 * m + 1] - local[2 * m];
  }
  for (int j = 0; j < u.splitters; ++j) {
    st.below_global[j] = outside_global[st.bracket_of[j]];
    st.below_local[j] = outside_local[st.bracket_of[j]];
  }
}

// After the last level: the splitters (exact keys and takes with 3 levels; bin edges with fewer,
// the bin going whole to the side that holds more of it), their tie groups and cuts.
DEPTHSORT_MG_HD void finish_splitters(SplitState& st) {
  Splitters& s = st.splitters;
  s = Splitters{};
  s.count = st.setup.splitters;
  const bool exact = st.setup.levels == kLevels;
  for (int j = 0; j < s.count; ++j) {
    const std::uint64_t inside = st.setup.target[j] - st.below_global[j];  // keys of the bin below the target
    if (exact) {
      s.key[j] = st.prefix[j];
      s.take[j] = inside;
      st.cut_below_global[j] = st.setup.target[j];
      st.cut_below_local[j] = st.below_local[j];  // plus this GPU's tie share, once the bases are known
      continue;
    }
    const int low_bits = 32 - total_level_bits(st.setup.levels);
    const std::uint64_t first_key = static_cast<std::uint64_t>(st.prefix[j]) << low_bits;
    const bool down = 2 * inside >= st.bin_global[j];
    const std::uint64_t boundary = down ? first_key + (std::uint64_t{1} << low_bits) : first_key;
    if (boundary > 0xFFFFFFFFull) {
      s.key[j] = 0xFFFFFFFFu;
      s.take[j] = kTakeNone;
      st.cut_below_global[j] = st.setup.n_total;
      st.cut_below_local[j] = st.setup.n_local;
    } else {
      s.key[j] = static_cast<std::uint32_t>(boundary);
      s.take[j] = 0;
      st.cut_below_global[j] = st.below_global[j] + (down ? st.bin_global[j] : 0);
      st.cut_below_local[j] = st.below_local[j] + (down ? st.bin_local[j] : 0);
    }
  }
  // With 3 levels a splitter's last bin is its key alone: bin_local counts this GPU's equal keys.
  for (int j = 0; j < s.count; ++j)
    if (needs_tie_rank(s.take[j]) && tie_group(s, s.key[j]) < 0) {
      st.equal_local[s.ties] = st.bin_local[j];
      s.tie_key[s.ties++] = s.key[j];
    }
  st.out.ties = static_cast<std::uint32_t>(s.ties);
}

// After a level's bins are found (and counted locally): the next level's prefixes and parameters,
// or the splitters after the last.
DEPTHSORT_MG_HD void advance_level(SplitState& st, int level) {
  for (int j = 0; j < st.setup.splitters; ++j)
    st.prefix[j] = level == 0 ? st.bin[j] : (st.prefix[j] << level_bits(level)) | st.bin[j];
  if (level + 1 < st.setup.levels_run)
    st.params = make_level_params(st, level + 1);
  else
    finish_splitters(st);
}

// A position of the sample: one key drawn from each of `samples` equal strata of [0, n), at a
// hashed place inside its stratum (a regular stride would see only one key of a sawtooth).
DEPTHSORT_MG_HD std::uint64_t sample_position(std::uint32_t i, std::uint32_t samples, std::uint64_t n) {
  const std::uint64_t lo = i * n / samples, hi = (i + 1ull) * n / samples;
  std::uint32_t h = i * 0x9E3779B1u + 0x7F4A7C15u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return lo + (hi > lo ? h % (hi - lo) : 0);
}

}  // namespace depthsort::multi_gpu
