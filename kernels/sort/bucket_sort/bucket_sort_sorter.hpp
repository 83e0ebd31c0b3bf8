// Dehne & Zaboli, "Deterministic Sample Sort for GPUs" (GPU Bucket Sort, 2010), Section 4,
// Algorithm 1 steps 1-9: the registry entry `bucket-sort`.
// See docs/algorithms/bucket-sort.md for the steps, the options and the deviations from the paper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"

namespace depthsort::bucket_sort {

inline constexpr OptionSpec kBucketSortOptions[] = {
    {"s", "samples per sublist = number of buckets, a power of two (0 = auto: 64 faithful, else by n)", 0, 0, 4096},
    {"sublist", "n/m, pairs per sublist of the local sort, a power of two (0 = auto: 2048 faithful, else 8192)", 0, 0,
     16384},
    {"chunk", "pairs one block sorts in shared memory in steps 4 and 9, a power of two (0 = auto)", 0, 0, 16384},
    {"faithful", "the paper's choices: s = 64, 2048-pair sublists, bitonic sorts everywhere (2048-pair chunks)", 0, 0,
     1},
    {"inline_sampling", "take the local samples while writing the sorted sublists (Section 4), not in a pass", 1, 0, 1},
    {"cub_sample_sort", "step 4 by CUB's radix sort of the 64-bit samples instead of bitonic sort", 1, 0, 1},
    {"radix_block_sort", "steps 2 and 9 by CUB's block radix sort of 8192-pair tiles instead of bitonic sort", 1, 0, 1},
    // The default is predicted, not measured (docs/algorithms/bucket-sort.md): 0 restores the old one.
    {"onchip",
     "every bucket sorted by one block on chip (auto s so that 2n/s <= 16K pairs, radix sort over the "
     "bits the bucket's keys do not share, relocation fused into it); needs radix_block_sort",
     1, 0, 1},
    // Predicted, not measured, like onchip: 4 is CUB's default and the previous one.
    {"radix_bits", "bits per pass of the block radix sorts of the local sort and onchip's bucket sort (4 or 5)", 5, 4,
     5},
    {"bucket_key_bits",
     "onchip's bucket sort over the key bits its bucket's keys do not share (0: all 32, the same "
     "work on every input)",
     1, 0, 1},
    {"sample_key_sort", "step 4's CUB sort over the 32 key bits alone (stable: the samples are in position order)", 1,
     0, 1},
};

// The options of `bucket-sort` (kBucketSortOptions), read once by the factory.
struct BucketSortOptions {
  int s = 0;        // 0: auto
  int sublist = 0;  // 0: auto
  int chunk = 0;    // 0: auto
  bool faithful = false;
  bool inline_sampling = false;
  bool cub_sample_sort = false;
  bool radix_block_sort = false;
  bool onchip = false;
  int radix_bits = 0;
  bool bucket_key_bits = false;
  bool sample_key_sort = false;

  static BucketSortOptions from(const OptionValues& values) {
    BucketSortOptions o;
    o.s = option_value(values, "s");
    o.sublist = option_value(values, "sublist");
    o.chunk = option_value(values, "chunk");
    o.faithful = option_value(values, "faithful") != 0;
    o.inline_sampling = option_value(values, "inline_sampling") != 0;
    o.cub_sample_sort = option_value(values, "cub_sample_sort") != 0;
    o.radix_block_sort = option_value(values, "radix_block_sort") != 0;
    o.onchip = option_value(values, "onchip") != 0;
    o.radix_bits = option_value(values, "radix_bits");
    o.bucket_key_bits = option_value(values, "bucket_key_bits") != 0;
    o.sample_key_sort = option_value(values, "sample_key_sort") != 0;
    return o;
  }
  bool operator==(const BucketSortOptions&) const = default;
};

// The configuration one sort ran with.
struct Config {
  std::uint32_t s = 64;       // samples per sublist, buckets
  std::uint32_t sublist = 0;  // L = n/m
  std::uint32_t chunk = 0;    // C
  std::uint32_t m = 0;        // sublists
  bool onchip = false;        // buckets sorted by one block each (radix tiles up to SharedMemoryLimits::onchip_tile)
  bool gather = false;        // onchip with the relocation fused into the bucket sort
};

// What the present GPU's shared memory per block allows the configuration (the H100's and H200's
// 227 KB allow every default; 64 KB (sm_75) and 99 KB (sm_86, sm_89) do not): the largest sublist
// of the bitonic local sort, chunk of the chunk sorts and merges, dynamic shared memory of the
// sample indexing (which bounds s), the on-chip bucket sort's tile (two radix tiles, or one where
// the two-tile kernel's 131 KB do not fit) and the sublists whose starts its gather keeps.
// Default: no limit below what the options can ask (the configuration before any reservation).
struct SharedMemoryLimits {
  std::uint32_t sublist = 16384;
  std::uint32_t chunk = 16384;
  std::size_t indexing_bytes = SIZE_MAX;
  std::uint32_t onchip_tile = 16384;
  std::uint32_t gather_sublists = 8192;
};

class BucketSorter final : public Sorter {
 public:
  explicit BucketSorter(const BucketSortOptions& options);
  // The registry's option values read as the factory reads them (the tests build sorters so).
  explicit BucketSorter(const OptionValues& options) : BucketSorter(BucketSortOptions::from(options)) {}
  ~BucketSorter() override;

  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  // The configuration for n pairs, within the shared memory of the GPU of the last reservation
  // (before any: the defaults', as on an H100).
  Config config_for(std::size_t n) const;
  // The guarantee of Section 4 for this configuration: |B_j| <= 2 * ceil(n/L) * L / s (the last
  // sublist's virtual pads count in it; 2n/s when L divides n).
  static std::uint64_t bucket_bound(std::size_t n, const Config& c);
  // Sizes of the s buckets of the last sort (waits for it). For tests.
  std::vector<std::uint32_t> last_bucket_sizes() const;
  const Config& last_config() const noexcept { return last_; }

 protected:
  void do_reserve(std::size_t max_n) override;
  void do_sort(const SortBuffers& buffers, cudaStream_t stream, StepTimer& timer) override;

 private:
  // Steps 4 (samples: whole words, to_pairs false) and 9 (buckets: by key, to the output).
  void sort_segments(std::uint64_t* data, const std::uint32_t* begin, std::uint32_t segments, std::uint64_t total,
                     std::uint64_t max_segment, std::uint32_t chunk, bool to_pairs, const SortBuffers& b,
                     cudaStream_t stream, std::uint32_t min_size = 0);
  bool radix_for(std::uint32_t tile) const;
  int sample_begin_bit() const { return sample_key_sort_ ? 32 : 0; }
  void sort_buckets_onchip(const Config& c, std::uint64_t bound, const SortBuffers& b, cudaStream_t stream);

  int s_option_ = 0;
  int sublist_option_ = 0;
  int chunk_option_ = 0;
  bool faithful_ = false;
  bool inline_sampling_ = true;
  bool cub_sample_sort_ = true;
  bool radix_block_sort_ = true;
  bool onchip_ = true;
  bool sample_key_sort_ = true;
  int radix_bits_ = 5;
  bool bucket_key_bits_ = true;
  Config last_{};
  SharedMemoryLimits limits_{};
  std::size_t last_n_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::size_t scan_bytes_ = 0;
  std::size_t radix_bytes_ = 0;
  std::size_t max_items_ = 0;

  DeviceBuffer<std::uint64_t> sorted_, buckets_, samples_, samples_alt_, splitters_;
  DeviceBuffer<std::uint32_t> bounds_, sizes_, offsets_, bucket_begin_, sample_begin_, item_count_;
  DeviceBuffer<std::uint64_t> items_;  // SegmentItem pairs
  DeviceBuffer<unsigned char> scan_temp_, radix_temp_;
};

std::unique_ptr<Sorter> make_bucket_sorter(const OptionValues& options);

}  // namespace depthsort::bucket_sort
