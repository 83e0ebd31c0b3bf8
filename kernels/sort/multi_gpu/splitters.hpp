// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section 6.1
// "Parallelizing using dual graphics cards", on N GPUs: the N-1 pivots that cut the input into one
// key range per GPU, chosen from a histogram of the keys and recursively refined (Section 5.1:
// "the pivots can be recursively refined") until each splitter is an exact key and rank.
//
// Host logic and the per-element range rule, both __host__ __device__ or host-only, so the CPU
// tests check them without a GPU (tests/cpu/test_multi_gpu_splitters.cpp).
//
// Keys are the ordered uint32 of keys.hpp. The histogram levels read 12, then 10, then 10 bits of
// the ordered key (radix bins: every key has a bin, whatever its value; linear within one binary
// exponent, as the hybrid's histogram, docs/algorithms/hybrid.md deviation 3). After level 0 the
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

// 8 GPUs of one host (one NVLink domain); the kernels keep one counter per range in registers
// and shared memory. More GPUs need only a larger constant (and more shared memory per slot).
inline constexpr int kMaxGpus = 8;
inline constexpr int kMaxSplitters = kMaxGpus - 1;
inline constexpr int kLevels = 3;
// Bits of the ordered key each level bins, from the top: 12 + 10 + 10 = 32.
inline constexpr int kLevelBits[kLevels] = {12, 10, 10};
inline constexpr int kLevelShift[kLevels] = {20, 10, 0};  // bin = (key >> shift) & (bins - 1)
inline constexpr int kLevel0Bins = 1 << 12;
inline constexpr int kSubBins = 1 << 10;
// Words of one histogram buffer: level 0's bins, or kMaxSplitters sub-histograms.
inline constexpr int kHistogramWords = std::max(kLevel0Bins, kMaxSplitters * kSubBins);
// "No key equal to K passes": the take of a splitter that sends every key equal to K down.
inline constexpr std::uint64_t kTakeNone = ~std::uint64_t{0};

// What one level's histogram kernel needs: which keys it counts (those whose key >> prefix_shift
// equals one of the slots' prefixes; level 0 counts every key) and where their bin lies.
struct LevelParams {
  std::uint32_t prefixes[kMaxSplitters] = {};
  int slots = 0;         // 0 at level 0: one histogram of every key
  int prefix_shift = 32; // key >> prefix_shift is the prefix (level 1: 20, level 2: 10)
  int bin_shift = 20;    // bin = (key >> bin_shift) & bin_mask
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

DEPTHSORT_MG_HD bool needs_tie_rank(std::uint64_t take) { return take != 0 && take != kTakeNone; }

// Index of the tie group of `key`, or -1 where the key is no tie key.
DEPTHSORT_MG_HD int tie_group(const Splitters& s, std::uint32_t key) {
  for (int d = 0; d < s.ties; ++d)
    if (s.tie_key[d] == key) return d;
  return -1;
}

// The range (GPU) of a key; `tie_rank` is read only where tie_group(s, key) >= 0.
DEPTHSORT_MG_HD int range_of(const Splitters& s, std::uint32_t key, std::uint64_t tie_rank) {
  int range = 0;
  for (int j = 0; j < s.count; ++j) {
    const bool passes = key > s.key[j] || (key == s.key[j] && s.take[j] != kTakeNone && tie_rank >= s.take[j]);
    range += passes ? 1 : 0;
  }
  return range;
}

// Host only: it indexes the constant tables above.
inline LevelParams level_params(int level) {
  LevelParams p;
  p.bin_shift = kLevelShift[level];
  p.bin_mask = (std::uint32_t{1} << kLevelBits[level]) - 1;
  p.prefix_shift = level == 0 ? 32 : kLevelShift[level - 1];
  return p;
}

// The histogram slot a key counts in (0 at level 0), or -1 where the level does not count it.
DEPTHSORT_MG_HD int level_slot(const LevelParams& p, std::uint32_t key) {
  if (p.slots == 0) return 0;
  const std::uint32_t prefix = key >> p.prefix_shift;
  for (int s = 0; s < p.slots; ++s)
    if (p.prefixes[s] == prefix) return s;
  return -1;
}

DEPTHSORT_MG_HD int level_bin(const LevelParams& p, std::uint32_t key) {
  return static_cast<int>((key >> p.bin_shift) & p.bin_mask);
}

// The host side of the splitter search: targets, then one refine() per histogram level.
class SplitterPlan {
 public:
  // Splitter j (1 <= j < gpus) sits at global rank t_j = floor(j * n / gpus): range j gets the
  // pairs of ranks [t_j, t_{j+1}). `levels` is 3 for exact splitters; 1 or 2 stop at a bin
  // boundary (the paper's single histogram pass: exact sort, ranges only roughly balanced).
  // first_share > 0 gives range 0 that fraction of the pairs (t_1 = floor(first_share n)) and
  // splits the rest evenly: in the paper's case GPU 0 sorts its range while the others' ranges
  // travel, so it can take more.
  SplitterPlan(std::uint64_t n, int gpus, int levels, double first_share = 0) : n_(n), levels_(levels) {
    if (gpus < 1 || gpus > kMaxGpus) throw std::invalid_argument("multi_gpu: 1 to 8 GPUs");
    if (levels < 1 || levels > kLevels) throw std::invalid_argument("multi_gpu: 1 to 3 histogram levels");
    if (!(first_share >= 0 && first_share < 1)) throw std::invalid_argument("multi_gpu: GPU 0's share must be in [0, 1)");
    if (first_share > 0 && gpus > 1 && n > 0) {
      const std::uint64_t first = std::min<std::uint64_t>(static_cast<std::uint64_t>(first_share * static_cast<double>(n)), n - 1);
      for (int j = 1; j < gpus; ++j)
        targets_.push_back(first + static_cast<std::uint64_t>(j - 1) * (n - first) / static_cast<std::uint64_t>(gpus - 1));
    } else {
      for (int j = 1; j < gpus && n > 0; ++j) targets_.push_back(static_cast<std::uint64_t>(j) * n / gpus);
    }
    prefix_.assign(targets_.size(), 0);
    below_.assign(targets_.size(), 0);
    bin_count_.assign(targets_.size(), 0);
  }

  std::span<const std::uint64_t> targets() const { return targets_; }
  int levels() const { return levels_; }
  // False where nothing needs splitting (one GPU, or n = 0): no histogram pass runs.
  bool needed() const { return !targets_.empty(); }

  // The parameters of level `level`: the distinct prefixes found so far, in increasing order.
  LevelParams params(int level) const {
    LevelParams p = level_params(level);
    if (level == 0) return p;
    for (const std::uint32_t prefix : prefix_)
      if (p.slots == 0 || p.prefixes[p.slots - 1] != prefix) p.prefixes[p.slots++] = prefix;
    return p;
  }
  // Words of the histogram of `level` (slots x bins).
  static std::size_t histogram_words(const LevelParams& p) {
    return static_cast<std::size_t>(p.slots == 0 ? 1 : p.slots) * (p.bin_mask + 1);
  }

  // Takes the global histogram of `level` (as laid out by params(level)) and narrows every
  // splitter to one bin of it.
  void refine(int level, std::span<const std::uint64_t> histogram) {
    const LevelParams p = params(level);
    const std::uint32_t bins = p.bin_mask + 1;
    if (histogram.size() < histogram_words(p)) throw std::invalid_argument("multi_gpu: histogram too small");
    for (std::size_t j = 0; j < targets_.size(); ++j) {
      int slot = 0;
      if (level > 0)
        while (p.prefixes[slot] != prefix_[j]) ++slot;
      const std::uint64_t* h = histogram.data() + static_cast<std::size_t>(slot) * bins;
      std::uint64_t below = below_[j];
      std::uint32_t bin = 0;
      // The target's rank lies inside this prefix's keys, so some bin holds it.
      while (bin + 1 < bins && below + h[bin] <= targets_[j]) below += h[bin++];
      if (below + h[bin] <= targets_[j])
        throw std::logic_error("multi_gpu: histogram does not hold the splitter's rank (counts differ between levels)");
      below_[j] = below;
      bin_count_[j] = h[bin];
      prefix_[j] = level == 0 ? bin : (prefix_[j] << kLevelBits[level]) | bin;
    }
    done_ = level + 1;
    last_params_ = p;
  }

  // The splitters, once `levels()` levels are refined. At 3 levels each is exact (key, take);
  // with fewer, the whole bin goes to the side that holds more of it.
  Splitters splitters() const {
    if (done_ != levels_ && needed()) throw std::logic_error("multi_gpu: splitters asked before every level");
    Splitters s;
    s.count = static_cast<int>(targets_.size());
    for (std::size_t j = 0; j < targets_.size(); ++j) {
      const std::uint64_t inside = targets_[j] - below_[j];  // keys of the bin below the target
      if (levels_ == kLevels) {
        s.key[j] = prefix_[j];
        s.take[j] = inside;
        continue;
      }
      // Bin boundaries: keys with prefix >= boundary pass. A bin more than half below the target
      // goes down whole (boundary = next prefix), otherwise up whole.
      const int low_bits = 32 - total_bits(levels_);
      const std::uint64_t first_key = static_cast<std::uint64_t>(prefix_[j]) << low_bits;
      const std::uint64_t boundary = 2 * inside >= bin_count_[j] ? first_key + (std::uint64_t{1} << low_bits) : first_key;
      if (boundary > 0xFFFFFFFFull) {
        s.key[j] = 0xFFFFFFFFu;
        s.take[j] = kTakeNone;
      } else {
        s.key[j] = static_cast<std::uint32_t>(boundary);
        s.take[j] = 0;
      }
    }
    // Monotone takes for equal keys hold by construction (targets increase, same `below`).
    for (int j = 0; j < s.count; ++j)
      if (needs_tie_rank(s.take[j]) && tie_group(s, s.key[j]) < 0) s.tie_key[s.ties++] = s.key[j];
    return s;
  }

  // Level-2 histogram word of an exact splitter key: where each GPU's local count of the keys
  // equal to it sits (for the tie-rank bases).
  std::size_t tie_word(std::uint32_t key) const {
    const LevelParams& p = last_params_;  // prefix_ now holds whole keys
    for (int slot = 0; slot < p.slots; ++slot)
      if (p.prefixes[slot] == key >> p.prefix_shift)
        return static_cast<std::size_t>(slot) * kSubBins + (key & (kSubBins - 1));
    throw std::logic_error("multi_gpu: tie key not among the level-2 prefixes");
  }

 private:
  static int total_bits(int levels) {
    int bits = 0;
    for (int l = 0; l < levels; ++l) bits += kLevelBits[l];
    return bits;
  }

  std::uint64_t n_;
  int levels_;
  int done_ = 0;
  LevelParams last_params_;  // of the last level refined
  std::vector<std::uint64_t> targets_;
  std::vector<std::uint32_t> prefix_;     // the splitter's bin prefix after the levels done
  std::vector<std::uint64_t> below_;      // keys with a smaller prefix
  std::vector<std::uint64_t> bin_count_;  // keys in the splitter's bin
};

}  // namespace depthsort::multi_gpu
