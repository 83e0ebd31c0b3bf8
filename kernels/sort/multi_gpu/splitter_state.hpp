// The split's state (Sintorn & Assarsson, JPDC 2008, Section 6.1 on N GPUs): limits, structs, range lookup.
#pragma once

#include <cstdint>

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
inline constexpr int kHistogramWords = kLevel0Bins > kMaxSplitters* kSubBins ? kLevel0Bins : kMaxSplitters* kSubBins;
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
    if (boundary[mid] <= key)
      lo = mid + 1;
    else
      hi = mid;
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

// range_index(key, 0) is a non-decreasing step function of the key, since the splitters and each
// GPU's boundaries are (and tie rank 0 is a tie key's lowest), and it is the range of every key but
// the tie keys: its R - 1 steps, found once, turn range_index into a search of at most R - 1 words
// (the partition finds a range a pair). range_step(..., r): the smallest key whose range is r or
// more (1 <= r < R), or kNoStep where no key's is.
inline constexpr std::uint64_t kNoStep = std::uint64_t{1} << 32;
DEPTHSORT_MG_HD std::uint64_t range_step(const Splitters& s, const std::uint32_t* boundary, int boundaries, int chunks,
                                         int r) {
  std::uint64_t lo = 0, hi = kNoStep;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (range_index(s, boundary, boundaries, chunks, static_cast<std::uint32_t>(mid), 0) >= r)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// The range of `key` from its steps: step[0, steps) the steps below kNoStep (non-decreasing), the
// words after them up to step[2 * top - 2] 0xFFFFFFFF, top the largest power of two <= steps (0
// for none). The number of steps <= key, by halving widths (no branch on the data).
DEPTHSORT_MG_HD int range_from_steps(const std::uint32_t* step, int steps, int top, std::uint32_t key) {
  int r = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int width = kMaxRanges / 2; width > 0; width /= 2)
    if (width <= top && step[r + width - 1] <= key) r += width;
  return r < steps ? r : steps;
}

// The largest power of two <= x, 0 for x <= 0.
DEPTHSORT_MG_HD int power_of_two_floor(int x) {
  int p = 0;
  for (int w = 1; w <= x; w *= 2) p = w;
  return p;
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
DEPTHSORT_MG_HD int bin_words(const LevelParams& p) {
  return (p.slots == 0 ? 1 : p.slots) * static_cast<int>(p.bin_mask + 1);
}

// What the host decides before a sort and hands each GPU (a kernel argument).
struct SplitSetup {
  std::uint64_t n_total = 0;                        // pairs on every GPU
  std::uint64_t n_local = 0;                        // pairs on this GPU
  std::uint64_t target[kMaxSplitters] = {};         // splitter j's global rank t_j
  std::uint32_t sample_index[kMaxBoundaries] = {};  // boundary i = sorted sample[sample_index[i]]
  // Splitter j's bracket: its ends at these places of the sorted sample (kSampleBottom, kSampleTop:
  // beyond it). Only with `brackets`.
  std::int32_t bracket_at[kMaxSplitters][2] = {};
  // The cut pass: its blocks, and the candidate slots each block owns (block b writes its
  // candidates to [b * segment, (b + 1) * segment) of the candidate buffer).
  std::uint32_t cut_blocks = 0;
  std::uint64_t segment = 0;
  int rank = 0, gpus = 1, chunks = 1, levels = kLevels;
  int splitters = 0;      // exact GPU cuts: gpus - 1
  int boundaries = 0;     // sub-range boundaries: gpus * (chunks - 1)
  int levels_run = 0;     // histogram passes: `levels` with splitters, else 0
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
  LevelParams params;                        // of the next histogram pass
  std::uint32_t prefix[kMaxSplitters] = {};  // splitter j's bin prefix after the levels done
  int slot[kMaxSplitters] = {};              // its slot at the current level
  std::uint32_t bin[kMaxSplitters] = {};     // its bin at the current level
  std::uint64_t below_global[kMaxSplitters] = {}, below_local[kMaxSplitters] = {};  // keys of smaller prefix
  std::uint64_t bin_global[kMaxSplitters] = {}, bin_local[kMaxSplitters] = {};      // keys in its bin
  std::uint32_t boundary[kMaxBoundaries] = {};                                      // ordered keys, non-decreasing
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
  int from_candidates = 0;                           // the levels read the candidates, not every key
  Splitters splitters;
  // Keys below each splitter's cut, before the tie shares (added once the tie bases are known).
  std::uint64_t cut_below_global[kMaxSplitters] = {}, cut_below_local[kMaxSplitters] = {};
  std::uint64_t equal_local[kMaxSplitters] = {};  // per tie group: this GPU's keys equal to its key
  TieBases bases;
  std::uint64_t offset[kMaxRanges] = {};  // where the scatter writes each range's first pair
  RangeCounts out;
};

}  // namespace depthsort::multi_gpu
