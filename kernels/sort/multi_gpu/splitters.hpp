// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section 6.1
// "Parallelizing using dual graphics cards", on N GPUs: the N-1 pivots that cut the input into one
// key range per GPU, chosen from a histogram of the keys and recursively refined (Section 5.1:
// "the pivots can be recursively refined") until each splitter is an exact key and rank. Beside
// them, depthsort's own sub-ranges: each GPU's range cut into `chunks` key ranges at quantiles of a
// sample, so that the exchange and the sorts can run as a pipeline of independent pieces whose
// sorted outputs simply follow each other (docs/algorithms/multi-gpu.md).
//
// Everything here is host or __host__ __device__ arithmetic on plain structs: the GPU's splitter
// kernels (one thread of one block) call the same functions on the same SplitState that the CPU
// tests drive (tests/cpu/test_multi_gpu_splitters.cpp), so the tests check the device's logic.
//
// Keys are the ordered uint32 of keys.hpp. The histogram levels read 12, then 10, then 10 bits of
// the ordered key (radix bins: every key has a bin, whatever its value). After level 0 the
// splitter's rank lies in one bin; level 1 histograms only the keys of that bin (per splitter), and
// level 2 the keys of its sub-bin, which gives the exact key K at the target rank t and the number
// of keys below it. Keys equal to K are split by a tie rank g (0 .. equal-1, unique over all GPUs),
// so the ranges hold exactly t_{j+1} - t_j pairs whatever the input (all keys equal included).
//
// The levels need not read every key. A sample brackets each splitter's key: [lo, hi] around its
// target's place in the sorted sample, wide enough that the key at rank t lies inside but for a
// sample far off. One pass over the keys (the cut pass) counts the keys below every bracket's ends
// and every sub-range boundary, and copies the keys inside a bracket (the candidates, about 1% of
// the keys a splitter) aside. Where every target lies inside its bracket, the levels histogram the
// candidates alone, with each splitter's count of non-candidate keys below its bracket as its
// start; the ranks they find are the same as over every key. Where one does not (a sample that
// missed, or more candidates than their buffer holds), the levels read every key, as without a
// bracket: the result is exact either way, only its cost differs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#if defined(__CUDACC__)
#define DEPTHSORT_MG_HD __host__ __device__ __forceinline__
#else
#define DEPTHSORT_MG_HD inline
#endif

namespace depthsort::multi_gpu {

// 8 GPUs of one host (one NVLink domain); the kernels keep one counter per range in shared memory.
inline constexpr int kMaxGpus = 8;
inline constexpr int kMaxSplitters = kMaxGpus - 1;
// Sub-ranges ("chunks") per GPU: the pipeline's pieces. N x chunks ranges in all, ids fit a byte.
inline constexpr int kMaxChunks = 8;
inline constexpr int kMaxRanges = kMaxGpus * kMaxChunks;
inline constexpr int kMaxBoundaries = kMaxGpus * (kMaxChunks - 1);
inline constexpr int kLevels = 3;
inline constexpr int kLevel0Bins = 1 << 12;
inline constexpr int kSubBins = 1 << 10;
// Words of one histogram buffer: level 0's bins, or kMaxSplitters sub-histograms.
inline constexpr int kHistogramWords = kLevel0Bins > kMaxSplitters * kSubBins ? kLevel0Bins : kMaxSplitters * kSubBins;
// Keys of the sample that gives the brackets and the boundaries, in all (split over the GPUs by
// their share of n). 2^18: the brackets hold about 1.2% of the keys each (bracket_margin), and
// the sample costs 2^18 scattered reads and one CUB sort of 1 MB.
inline constexpr std::uint32_t kSampleTotal = 1u << 18;
// The cut pass counts the keys below each cut: the two ends of each bracket (brackets that overlap
// merged), then the sub-range boundaries; one more word says whether a GPU's candidates overflowed.
inline constexpr int kMaxCuts = 2 * kMaxSplitters + kMaxBoundaries;
inline constexpr int kOverflowWord = kMaxCuts;
inline constexpr int kCutWords = kMaxCuts + 1;
// A bracket end beyond the sample: the lowest or the highest key of the key order.
inline constexpr std::int32_t kSampleBottom = -1;
inline constexpr std::int32_t kSampleTop = -2;
// "No key equal to K passes": the take of a splitter that sends every key equal to K down.
inline constexpr std::uint64_t kTakeNone = ~std::uint64_t{0};

// Device-side errors, read back with the counts (RangeCounts::error).
inline constexpr std::uint32_t kErrorNone = 0;
inline constexpr std::uint32_t kErrorRank = 1;  // a histogram level does not hold a splitter's rank

// Bits and shift of each level (functions, not tables: device code reads them too).
DEPTHSORT_MG_HD int level_bits(int level) { return level == 0 ? 12 : 10; }
DEPTHSORT_MG_HD int level_shift(int level) { return level == 0 ? 20 : level == 1 ? 10 : 0; }
DEPTHSORT_MG_HD int total_level_bits(int levels) { return levels <= 0 ? 0 : 12 + 10 * (levels - 1); }

// What one level's histogram kernel needs: which keys it counts (those whose key >> prefix_shift
// equals one of the slots' prefixes; level 0 counts every key) and where their bin lies.
struct LevelParams {
  std::uint32_t prefixes[kMaxSplitters] = {};
  int slots = 0;          // 0 at level 0: one histogram of every key
  int prefix_shift = 32;  // key >> prefix_shift is the prefix (level 1: 20, level 2: 10)
  int bin_shift = 20;     // bin = (key >> bin_shift) & bin_mask
  std::uint32_t bin_mask = kLevel0Bins - 1;
};

// Splitter j: a key passes it (belongs to range j+1 or above) if key > key[j], or if key == key[j]
// and its tie rank g >= take[j]. take 0: every key equal to key[j] passes; kTakeNone: none does.
// Keys and takes are non-decreasing in j, so the number of splitters a key passes is its range.
struct Splitters {
  std::uint32_t key[kMaxSplitters] = {};
  std::uint64_t take[kMaxSplitters] = {};
  int count = 0;
  // Distinct keys whose equal elements are split by tie rank (0 < take < number equal): each has a
  // counter on every GPU, and the number of equal keys held by lower-ranked GPUs as its base.
  std::uint32_t tie_key[kMaxSplitters] = {};
  int ties = 0;
};

// Number of equal keys of each tie group held by lower-ranked GPUs: this GPU's tie ranks start there.
struct TieBases {
  std::uint64_t base[kMaxSplitters] = {};
};

DEPTHSORT_MG_HD bool needs_tie_rank(std::uint64_t take) { return take != 0 && take != kTakeNone; }

// Index of the tie group of `key`, or -1 where the key is no tie key.
DEPTHSORT_MG_HD int tie_group(const Splitters& s, std::uint32_t key) {
  for (int d = 0; d < s.ties; ++d)
    if (s.tie_key[d] == key) return d;
  return -1;
}

// The GPU range of a key; `tie_rank` is read only where tie_group(s, key) >= 0.
DEPTHSORT_MG_HD int range_of(const Splitters& s, std::uint32_t key, std::uint64_t tie_rank) {
  int range = 0;
  for (int j = 0; j < s.count; ++j) {
    const bool passes = key > s.key[j] || (key == s.key[j] && s.take[j] != kTakeNone && tie_rank >= s.take[j]);
    range += passes ? 1 : 0;
  }
  return range;
}

// Number of boundaries <= key (boundaries non-decreasing): the key's interval.
DEPTHSORT_MG_HD int interval_of(const std::uint32_t* boundary, int count, std::uint32_t key) {
  int lo = 0, hi = count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (boundary[mid] <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The range (GPU j, sub-range k) of a key, as j * chunks + k: the GPU by the exact splitters, the
// sub-range by GPU j's own boundaries boundary[j(chunks-1) .. (j+1)(chunks-1)) (keys >= a boundary
// go above it). A sub-range whose boundaries fall outside GPU j's range is simply empty.
DEPTHSORT_MG_HD int range_index(const Splitters& s, const std::uint32_t* boundary, int boundaries, int chunks,
                                std::uint32_t key, std::uint64_t tie_rank) {
  const int j = range_of(s, key, tie_rank);
  if (chunks <= 1) return j;
  const int passed = interval_of(boundary, boundaries, key) - j * (chunks - 1);
  const int k = passed < 0 ? 0 : passed > chunks - 1 ? chunks - 1 : passed;
  return j * chunks + k;
}

// The histogram slot a key counts in (0 at level 0), or -1 where the level does not count it.
DEPTHSORT_MG_HD int level_slot(const LevelParams& p, std::uint32_t key) {
  if (p.slots == 0) return 0;
  const std::uint32_t prefix = key >> p.prefix_shift;
  // A fixed trip count, so the device keeps the prefixes in registers.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int s = 0; s < kMaxSplitters; ++s)
    if (s < p.slots && p.prefixes[s] == prefix) return s;
  return -1;
}

DEPTHSORT_MG_HD int level_bin(const LevelParams& p, std::uint32_t key) {
  return static_cast<int>((key >> p.bin_shift) & p.bin_mask);
}

// Words of a level's histogram: slots x bins.
DEPTHSORT_MG_HD int bin_words(const LevelParams& p) { return (p.slots == 0 ? 1 : p.slots) * static_cast<int>(p.bin_mask + 1); }

// What the host decides before a sort and hands each GPU (a kernel argument).
struct SplitSetup {
  std::uint64_t n_total = 0;  // pairs on every GPU
  std::uint64_t n_local = 0;  // pairs on this GPU
  std::uint64_t target[kMaxSplitters] = {};          // splitter j's global rank t_j
  std::uint32_t sample_index[kMaxBoundaries] = {};   // boundary i = sorted sample[sample_index[i]]
  // Splitter j's bracket: its ends at these places of the sorted sample (kSampleBottom, kSampleTop:
  // beyond it). Only with `brackets`.
  std::int32_t bracket_at[kMaxSplitters][2] = {};
  // The cut pass: its blocks, and the candidate slots each block owns (block b writes its
  // candidates to [b * segment, (b + 1) * segment) of the candidate buffer).
  std::uint32_t cut_blocks = 0;
  std::uint64_t segment = 0;
  int rank = 0, gpus = 1, chunks = 1, levels = kLevels;
  int splitters = 0;   // exact GPU cuts: gpus - 1
  int boundaries = 0;  // sub-range boundaries: gpus * (chunks - 1)
  int levels_run = 0;  // histogram passes: `levels` with splitters, else 0
  bool brackets = false;  // the levels may read the candidates (exact splitters only)
};

// What the host reads back from each GPU: the one round trip of a sort.
struct RangeCounts {
  std::uint64_t count[kMaxRanges] = {};  // this GPU's pairs per range (j * chunks + k)
  std::uint64_t size[kMaxRanges] = {};   // every GPU's pairs per range
  // Every key of range (j, k) lies in [lo, hi] (ordered keys; lo > hi: the range is empty), from
  // the splitters, the boundaries and the smallest and largest key: the local sort may sort only
  // the bits those keys differ in.
  std::uint32_t lo[kMaxRanges] = {}, hi[kMaxRanges] = {};
  std::uint32_t error = kErrorNone;
  std::uint32_t ties = 0;
  std::uint32_t from_candidates = 0;  // 1: the levels read the candidates; 0: every key
  std::uint32_t candidates = 0;       // this GPU's candidates (the keys inside a bracket)
};

// One GPU's splitter state, in device memory; the splitter kernels advance it level by level.
struct SplitState {
  SplitSetup setup;
  LevelParams params;  // of the next histogram pass
  std::uint32_t prefix[kMaxSplitters] = {};  // splitter j's bin prefix after the levels done
  int slot[kMaxSplitters] = {};              // its slot at the current level
  std::uint32_t bin[kMaxSplitters] = {};     // its bin at the current level
  std::uint64_t below_global[kMaxSplitters] = {}, below_local[kMaxSplitters] = {};  // keys of smaller prefix
  std::uint64_t bin_global[kMaxSplitters] = {}, bin_local[kMaxSplitters] = {};      // keys in its bin
  std::uint32_t boundary[kMaxBoundaries] = {};  // ordered keys, non-decreasing
  std::uint64_t boundary_below_global[kMaxBoundaries] = {}, boundary_below_local[kMaxBoundaries] = {};
  // The cut pass: the brackets (merged where they overlap: [bracket_lo[m], bracket_hi[m]], in key
  // order) and splitter j's bracket; cut[c] (keys below it are counted): 2m, 2m+1 the ends of
  // bracket m (hi + 1, so that 64 bits), then the boundaries.
  std::uint32_t bracket_lo[kMaxSplitters] = {}, bracket_hi[kMaxSplitters] = {};
  int bracket_of[kMaxSplitters] = {};
  int brackets = 0;
  std::uint64_t cut[kMaxCuts] = {};
  int cuts = 0;
  std::uint32_t key_min = 0xFFFFFFFFu, key_max = 0;  // over every GPU's keys
  int from_candidates = 0;  // the levels read the candidates, not every key
  Splitters splitters;
  // Keys below each splitter's cut, before the tie shares (added once the tie bases are known).
  std::uint64_t cut_below_global[kMaxSplitters] = {}, cut_below_local[kMaxSplitters] = {};
  std::uint64_t equal_local[kMaxSplitters] = {};  // per tie group: this GPU's keys equal to its key
  TieBases bases;
  std::uint64_t offset[kMaxRanges] = {};  // where the scatter writes each range's first pair
  RangeCounts out;
};

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
      if (below + (cum[base + mid] - before) > target) hi = mid;
      else lo = mid + 1;
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
  if (level + 1 < st.setup.levels_run) st.params = make_level_params(st, level + 1);
  else finish_splitters(st);
}

// Where the scatter writes each range of GPU `rank`: the ranges of other GPUs one after another in
// the send buffer, in range order; its own ranges straight into its stage buffer, each at the
// place the whole range (all GPUs' pairs) takes there, its own pairs first.
DEPTHSORT_MG_HD void scatter_offsets(const std::uint64_t* count, const std::uint64_t* size, int rank, int gpus,
                                     int chunks, std::uint64_t* offset) {
  std::uint64_t send = 0, stage = 0;
  for (int range = 0; range < gpus * chunks; ++range) {
    if (range / chunks == rank) {
      offset[range] = stage;
      stage += size[range];
    } else {
      offset[range] = send;
      send += count[range];
    }
  }
}

// Where sub-range k of GPU j starts in that GPU's stage (and output) buffer: after its earlier
// sub-ranges (sizes: every GPU's pairs per range).
DEPTHSORT_MG_HD std::uint64_t subrange_offset(const std::uint64_t* size, int chunks, int j, int k) {
  std::uint64_t at = 0;
  for (int q = 0; q < k; ++q) at += size[j * chunks + q];
  return at;
}

// Where GPU `from`'s pairs of sub-range k of GPU j land in GPU j's stage buffer: the sub-range's
// place, GPU j's own pairs first (the scatter puts them there), then the other GPUs' in rank order.
// counts: gpus x (gpus * chunks), row = source GPU.
DEPTHSORT_MG_HD std::uint64_t receive_offset(const std::uint64_t* count, const std::uint64_t* size, int gpus,
                                             int chunks, int j, int k, int from) {
  const int ranges = gpus * chunks, range = j * chunks + k;
  std::uint64_t at = subrange_offset(size, chunks, j, k) + count[static_cast<std::size_t>(j) * ranges + range];
  for (int q = 0; q < from; ++q)
    if (q != j) at += count[static_cast<std::size_t>(q) * ranges + range];
  return at;
}

// Once the splitters are known and every GPU's equal keys gathered (equal_all: gpus x
// kMaxSplitters, row = GPU; nullptr where this GPU holds every pair): the tie bases, then this
// GPU's pairs per range (count) and every GPU's (size), from the cuts' counts alone: keys below
// a cut form nested sets, so the keys of range (j, k) number min(hi cuts) - max(lo cuts).
DEPTHSORT_MG_HD void finish_counts(SplitState& st, const std::uint64_t* equal_all) {
  const SplitSetup& u = st.setup;
  Splitters& s = st.splitters;
  for (int d = 0; d < s.ties; ++d) {
    std::uint64_t base = 0;
    if (equal_all != nullptr)
      for (int q = 0; q < u.rank; ++q) base += equal_all[q * kMaxSplitters + d];
    st.bases.base[d] = base;
  }
  std::uint64_t cut_local[kMaxGpus + 1] = {}, cut_global[kMaxGpus + 1] = {};
  cut_local[u.gpus] = u.n_local;
  cut_global[u.gpus] = u.n_total;
  for (int j = 1; j < u.gpus; ++j) {
    const int sp = j - 1;
    std::uint64_t local = st.cut_below_local[sp];
    if (u.levels == kLevels && needs_tie_rank(s.take[sp])) {
      // This GPU's equal keys take tie ranks base .. base + equal - 1; those below take go down.
      const int d = tie_group(s, s.key[sp]);
      const std::uint64_t base = st.bases.base[d], equal = st.equal_local[d];
      local += s.take[sp] > base ? (s.take[sp] - base < equal ? s.take[sp] - base : equal) : 0;
    }
    cut_local[j] = local;
    cut_global[j] = st.cut_below_global[sp];
  }
  const int K = u.chunks;
  for (int j = 0; j < u.gpus; ++j)
    for (int k = 0; k < K; ++k) {
      const int range = j * K + k;
      std::uint64_t lo_l = cut_local[j], hi_l = cut_local[j + 1];
      std::uint64_t lo_g = cut_global[j], hi_g = cut_global[j + 1];
      if (k > 0) {
        const int b = j * (K - 1) + k - 1;
        lo_l = lo_l > st.boundary_below_local[b] ? lo_l : st.boundary_below_local[b];
        lo_g = lo_g > st.boundary_below_global[b] ? lo_g : st.boundary_below_global[b];
      }
      if (k < K - 1) {
        const int b = j * (K - 1) + k;
        hi_l = hi_l < st.boundary_below_local[b] ? hi_l : st.boundary_below_local[b];
        hi_g = hi_g < st.boundary_below_global[b] ? hi_g : st.boundary_below_global[b];
      }
      st.out.count[range] = hi_l > lo_l ? hi_l - lo_l : 0;
      st.out.size[range] = hi_g > lo_g ? hi_g - lo_g : 0;
      // Its keys: at or above splitter j-1's key (equal keys may pass it) and at or below splitter
      // j's, at or above its lower boundary and below its upper one, within the keys' extremes.
      std::uint32_t lo = j > 0 ? s.key[j - 1] : st.key_min, hi = j + 1 < u.gpus ? s.key[j] : st.key_max;
      if (k > 0 && st.boundary[j * (K - 1) + k - 1] > lo) lo = st.boundary[j * (K - 1) + k - 1];
      if (k < K - 1 && st.boundary[j * (K - 1) + k] < hi) hi = st.boundary[j * (K - 1) + k];
      st.out.lo[range] = lo > st.key_min ? lo : st.key_min;
      st.out.hi[range] = hi < st.key_max ? hi : st.key_max;
    }
  scatter_offsets(st.out.count, st.out.size, u.rank, u.gpus, K, st.offset);
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

// ---------------------------------------------------------------------------------------------
// Host only: the plan of one sort.

// Splitter j (1 <= j < gpus) sits at global rank t_j = floor(j * n / gpus): range j gets the pairs
// of ranks [t_j, t_{j+1}). first_share > 0 gives range 0 floor(first_share n) pairs and splits the
// rest evenly (the weighted paper's case).
inline std::vector<std::uint64_t> split_targets(std::uint64_t n, int gpus, double first_share = 0) {
  if (gpus < 1 || gpus > kMaxGpus) throw std::invalid_argument("multi_gpu: 1 to 8 GPUs");
  if (!(first_share >= 0 && first_share < 1)) throw std::invalid_argument("multi_gpu: GPU 0's share must be in [0, 1)");
  std::vector<std::uint64_t> targets;
  if (n == 0) return targets;
  if (first_share > 0 && gpus > 1) {
    const std::uint64_t first = std::min<std::uint64_t>(static_cast<std::uint64_t>(first_share * static_cast<double>(n)), n - 1);
    for (int j = 1; j < gpus; ++j)
      targets.push_back(first + static_cast<std::uint64_t>(j - 1) * (n - first) / static_cast<std::uint64_t>(gpus - 1));
  } else {
    for (int j = 1; j < gpus; ++j) targets.push_back(static_cast<std::uint64_t>(j) * n / gpus);
  }
  return targets;
}

// Sample keys GPU r draws: its share of kSampleTotal (at least 1 where it holds pairs).
inline std::uint32_t sample_count(std::uint64_t n_local, std::uint64_t n_total) {
  if (n_local == 0) return 0;
  const std::uint64_t share = (static_cast<std::uint64_t>(kSampleTotal) * n_local + n_total / 2) / n_total;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(share, 1, n_local));
}

// Half the width of a bracket, in sample keys. The sample's count of keys below the key of rank t
// strays from t * valid / n by about sqrt(valid p (1 - p)) <= sqrt(valid) / 2 keys (less for a
// stratified sample); 3 sqrt(valid) is six of those, and 16 more cover the rounding of the GPUs'
// sample shares. At 2^18 sample keys: 1552, so a bracket holds about 1.2% of the keys.
inline std::uint32_t bracket_margin(std::uint32_t valid) {
  std::uint32_t root = 0;
  while ((root + 1ull) * (root + 1ull) <= valid) ++root;
  return 3 * (root + 1) + 16;
}

// Where splitter j's bracket ends sit in the sorted sample of `valid` keys: bracket_margin keys
// either side of its target's place (kSampleBottom / kSampleTop where that falls outside).
inline std::vector<std::array<std::int32_t, 2>> bracket_sample_index(std::uint64_t n, std::span<const std::uint64_t> targets,
                                                                     std::uint32_t valid) {
  std::vector<std::array<std::int32_t, 2>> at;
  if (n == 0 || valid == 0) return at;
  const std::int64_t margin = bracket_margin(valid);
  for (const std::uint64_t t : targets) {
    const auto place = static_cast<std::int64_t>(t * valid / n);  // t < n <= 2^31, valid <= 2^21
    const std::int64_t lo = place - margin, hi = place + margin;
    at.push_back({lo < 0 ? kSampleBottom : static_cast<std::int32_t>(lo),
                  hi >= static_cast<std::int64_t>(valid) ? kSampleTop : static_cast<std::int32_t>(hi)});
  }
  return at;
}

// Candidate slots a GPU that may hold `input` pairs needs when its brackets hold what they should:
// twice the expected count (every splitter's bracket, 2 margin + 1 sample keys of 2^18, each
// standing for input / 2^18 keys), plus room for the blocks' uneven shares. A sort whose
// candidates do not fit still sorts exactly (its levels read every key).
inline std::uint64_t candidate_capacity(std::uint64_t input, int gpus) {
  if (gpus <= 1 || input == 0) return 0;
  const std::uint64_t per_sample_key = (input + kSampleTotal - 1) / kSampleTotal;
  const std::uint64_t expected = static_cast<std::uint64_t>(gpus - 1) * (2 * bracket_margin(kSampleTotal) + 1) * per_sample_key;
  return std::min<std::uint64_t>(input, 2 * expected) + (std::uint64_t{1} << 16);
}

// Where boundary (j, k) (k = 1 .. chunks-1 of GPU j) sits in the sorted sample of `valid` keys:
// at the sample rank of global rank t_j + k (t_{j+1} - t_j) / chunks.
inline std::vector<std::uint32_t> boundary_sample_index(std::uint64_t n, std::span<const std::uint64_t> targets,
                                                        int gpus, int chunks, std::uint32_t valid) {
  std::vector<std::uint32_t> index;
  if (chunks <= 1 || n == 0 || valid == 0) return index;
  for (int j = 0; j < gpus; ++j) {
    const std::uint64_t lo = j == 0 ? 0 : targets[j - 1], hi = j + 1 == gpus ? n : targets[j];
    for (int k = 1; k < chunks; ++k) {
      const std::uint64_t rank = lo + (hi - lo) * static_cast<std::uint64_t>(k) / static_cast<std::uint64_t>(chunks);
      index.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(valid - 1, rank * valid / n)));
    }
  }
  return index;
}

// Sub-ranges per GPU when none is asked for. Every sub-range costs its sort's fixed part, one more
// boundary the cut pass counts at every key and one more run the partition writes to; more of
// them leave less of the transfer in the open (only the first piece's arrival). The distributed
// case: pieces of 32M pairs, at most 4 (the first piece's transfer then a quarter of the exchange,
// about 1.5 ms of 1G pairs on 2 GPUs). The paper's case: pieces of 64M pairs, up to kMaxChunks:
// its hybrid sorts 64M pieces at 0.055 ms per million pairs against 0.081 in one sort of 1G
// (docs/results/hybrid.md), and GPU 0's whole outbound transfer is several times longer.
inline constexpr std::uint64_t kDistributedPiecePairs = std::uint64_t{32} << 20;
inline constexpr int kDistributedMaxPieces = 4;
inline constexpr std::uint64_t kGatheredPiecePairs = std::uint64_t{64} << 20;
inline int auto_chunks(std::uint64_t n, int gpus, bool gathered) {
  if (gpus < 1) return 1;
  const std::uint64_t per_gpu = n / static_cast<std::uint64_t>(gpus);
  if (gathered) return static_cast<int>(std::clamp<std::uint64_t>(per_gpu / kGatheredPiecePairs, 1, kMaxChunks));
  return static_cast<int>(std::clamp<std::uint64_t>(per_gpu / kDistributedPiecePairs, 1, kDistributedMaxPieces));
}

// The setup of GPU `rank` for a sort of n_total pairs (n_local of them on this GPU).
// `bracket_at`: bracket_sample_index's places (empty: no brackets; used with exact splitters only);
// `cut_blocks` and `segment`: the cut pass's blocks and each one's candidate slots.
inline SplitSetup make_setup(int rank, int gpus, int chunks, int levels, std::uint64_t n_total, std::uint64_t n_local,
                             std::span<const std::uint64_t> targets, std::span<const std::uint32_t> sample_index,
                             std::span<const std::array<std::int32_t, 2>> bracket_at = {}, std::uint32_t cut_blocks = 0,
                             std::uint64_t segment = 0) {
  if (gpus < 1 || gpus > kMaxGpus) throw std::invalid_argument("multi_gpu: 1 to 8 GPUs");
  if (chunks < 1 || chunks > kMaxChunks) throw std::invalid_argument("multi_gpu: 1 to 8 chunks per GPU");
  if (levels < 1 || levels > kLevels) throw std::invalid_argument("multi_gpu: 1 to 3 histogram levels");
  SplitSetup u;
  u.n_total = n_total;
  u.n_local = n_local;
  u.rank = rank;
  u.gpus = gpus;
  u.chunks = chunks;
  u.levels = levels;
  u.splitters = static_cast<int>(targets.size());
  if (u.splitters != (n_total > 0 ? gpus - 1 : 0)) throw std::invalid_argument("multi_gpu: one target per splitter");
  std::copy(targets.begin(), targets.end(), u.target);
  u.boundaries = static_cast<int>(sample_index.size());
  if (u.boundaries != 0 && u.boundaries != gpus * (chunks - 1))
    throw std::invalid_argument("multi_gpu: chunks - 1 boundaries per GPU");
  std::copy(sample_index.begin(), sample_index.end(), u.sample_index);
  u.levels_run = u.splitters > 0 ? levels : 0;
  u.brackets = levels == kLevels && u.splitters > 0 && !bracket_at.empty();
  if (u.brackets && static_cast<int>(bracket_at.size()) != u.splitters)
    throw std::invalid_argument("multi_gpu: one bracket per splitter");
  for (int j = 0; u.brackets && j < u.splitters; ++j) {
    u.bracket_at[j][0] = bracket_at[j][0];
    u.bracket_at[j][1] = bracket_at[j][1];
  }
  u.cut_blocks = cut_blocks;
  u.segment = segment;
  return u;
}

}  // namespace depthsort::multi_gpu
