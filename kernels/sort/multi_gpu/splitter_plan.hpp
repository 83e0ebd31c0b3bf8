// Host only: the plan of one sort (targets, sample shares, brackets, boundaries, sub-ranges, setups).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "sort/multi_gpu/splitter_state.hpp"

namespace depthsort::multi_gpu {

// Splitter j (1 <= j < gpus) sits at global rank t_j = floor(j * n / gpus): range j gets the pairs
// of ranks [t_j, t_{j+1}). first_share > 0 gives range 0 floor(first_share n) pairs and splits the
// rest evenly (the weighted paper's case).
inline std::vector<std::uint64_t> split_targets(std::uint64_t n, int gpus, double first_share = 0) {
  if (gpus < 1 || gpus > kMaxGpus) throw std::invalid_argument("multi_gpu: 1 to 8 GPUs");
  if (!(first_share >= 0 && first_share < 1)) throw std::invalid_argument("multi_gpu: GPU 0's share must be in [0, 1)");
  std::vector<std::uint64_t> targets;
  if (n == 0) return targets;
  if (first_share > 0 && gpus > 1) {
    const std::uint64_t first =
        std::min<std::uint64_t>(static_cast<std::uint64_t>(first_share * static_cast<double>(n)), n - 1);
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
inline std::vector<std::array<std::int32_t, 2>> bracket_sample_index(std::uint64_t n,
                                                                     std::span<const std::uint64_t> targets,
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
  const std::uint64_t expected =
      static_cast<std::uint64_t>(gpus - 1) * (2 * bracket_margin(kSampleTotal) + 1) * per_sample_key;
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
