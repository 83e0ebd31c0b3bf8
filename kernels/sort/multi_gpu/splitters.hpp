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
#pragma once

#include <algorithm>
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
// Words of one histogram buffer: the bins (level 0's, or kMaxSplitters sub-histograms), then the
// counts of keys between consecutive sub-range boundaries ("intervals") at a fixed offset.
inline constexpr int kBinWords = kLevel0Bins > kMaxSplitters * kSubBins ? kLevel0Bins : kMaxSplitters * kSubBins;
inline constexpr int kIntervalWords = kMaxBoundaries + 1;
inline constexpr int kHistogramWords = kBinWords + kIntervalWords;
// Keys each GPU's sample gives the boundaries, in all (split over the GPUs by their share of n).
inline constexpr std::uint32_t kSampleTotal = 1u << 16;
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
// equals one of the slots' prefixes; level 0 counts every key), where their bin lies, and whether
// it also counts each key's interval between the sub-range boundaries.
struct LevelParams {
  std::uint32_t prefixes[kMaxSplitters] = {};
  int slots = 0;          // 0 at level 0: one histogram of every key
  int prefix_shift = 32;  // key >> prefix_shift is the prefix (level 1: 20, level 2: 10)
  int bin_shift = 20;     // bin = (key >> bin_shift) & bin_mask
  std::uint32_t bin_mask = kLevel0Bins - 1;
  int intervals = 0;      // boundaries whose intervals this pass counts (0: none)
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

// Bin words of a level's histogram (slots x bins); the interval counts follow at kBinWords.
DEPTHSORT_MG_HD int bin_words(const LevelParams& p) { return (p.slots == 0 ? 1 : p.slots) * static_cast<int>(p.bin_mask + 1); }

// What the host decides before a sort and hands each GPU (a kernel argument).
struct SplitSetup {
  std::uint64_t n_total = 0;  // pairs on every GPU
  std::uint64_t n_local = 0;  // pairs on this GPU
  std::uint64_t target[kMaxSplitters] = {};          // splitter j's global rank t_j
  std::uint32_t sample_index[kMaxBoundaries] = {};   // boundary i = sorted sample[sample_index[i]]
  int rank = 0, gpus = 1, chunks = 1, levels = kLevels;
  int splitters = 0;   // exact GPU cuts: gpus - 1
  int boundaries = 0;  // sub-range boundaries: gpus * (chunks - 1)
  int levels_run = 0;  // histogram passes: `levels` with splitters, 1 for boundaries alone, else 0
};

// What the host reads back from each GPU: the one round trip of a sort.
struct RangeCounts {
  std::uint64_t count[kMaxRanges] = {};  // this GPU's pairs per range (j * chunks + k)
  std::uint64_t size[kMaxRanges] = {};   // every GPU's pairs per range
  std::uint32_t error = kErrorNone;
  std::uint32_t ties = 0;
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
  Splitters splitters;
  // Keys below each splitter's cut, before the tie shares (added once the tie bases are known).
  std::uint64_t cut_below_global[kMaxSplitters] = {}, cut_below_local[kMaxSplitters] = {};
  std::uint64_t equal_local[kMaxSplitters] = {};  // per tie group: this GPU's keys equal to its key
  TieBases bases;
  std::uint64_t offset[kMaxRanges] = {};  // where the scatter writes each range's first pair
  RangeCounts out;
};

// The parameters of histogram pass `level`: every key at level 0, then the distinct prefixes of
// the splitters' bins (non-decreasing, as the targets are). The last pass also counts intervals.
DEPTHSORT_MG_HD LevelParams make_level_params(const SplitState& st, int level) {
  LevelParams p;
  p.bin_shift = level_shift(level);
  p.bin_mask = (std::uint32_t{1} << level_bits(level)) - 1;
  p.prefix_shift = level == 0 ? 32 : level_shift(level - 1);
  p.intervals = level == st.setup.levels_run - 1 ? st.setup.boundaries : 0;
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

// The interval counts (global and this GPU's): keys below boundary i are those of intervals 0..i.
DEPTHSORT_MG_HD void count_boundaries(SplitState& st, const std::uint64_t* intervals_global,
                                      const std::uint64_t* intervals_local) {
  std::uint64_t global = 0, local = 0;
  for (int i = 0; i < st.setup.boundaries; ++i) {
    global += intervals_global[i];
    local += intervals_local[i];
    st.boundary_below_global[i] = global;
    st.boundary_below_local[i] = local;
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

// Sub-ranges per GPU when none is asked for: pieces of about this many pairs (large enough that a
// sort of one runs at the full sort's rate per pair, small enough that the first piece's transfer,
// which nothing hides, is a small part of the exchange), at most kMaxChunks.
inline constexpr std::uint64_t kAutoChunkPairs = std::uint64_t{32} << 20;
inline int auto_chunks(std::uint64_t n, int gpus) {
  if (gpus < 1) return 1;
  return static_cast<int>(std::clamp<std::uint64_t>(n / static_cast<std::uint64_t>(gpus) / kAutoChunkPairs, 1, kMaxChunks));
}

// The setup of GPU `rank` for a sort of n_total pairs (n_local of them on this GPU).
inline SplitSetup make_setup(int rank, int gpus, int chunks, int levels, std::uint64_t n_total, std::uint64_t n_local,
                             std::span<const std::uint64_t> targets, std::span<const std::uint32_t> sample_index) {
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
  u.levels_run = u.splitters > 0 ? levels : u.boundaries > 0 ? 1 : 0;
  return u;
}

}  // namespace depthsort::multi_gpu
