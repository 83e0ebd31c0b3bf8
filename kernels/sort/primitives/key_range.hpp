// The key range of a depth stream, and the radix sort of only the bits that range spans.
//
// A frame's depths lie between a near and a far distance. Their ordered keys (keys.hpp) minus the
// smallest one keep the key order exactly and need only as many bits as the range spans: a radix
// sort of those bits alone skips the digit passes whose digits are equal in every key. Used by
// cub-radix's `range` option: the library sort told the range (docs/results/baselines.md has what
// it gains and what the reduction and the two key passes around it cost), and by run-bucket's
// fallback, which needs no key passes: CUB sorts the low bits its keys differ in.
#pragma once

#include <cuda_runtime_api.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/keys.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/primitives/pinned_mailbox.hpp"

namespace depthsort::primitives {

// The smallest and largest ordered key of a set, as one reduction leaves it on the device:
// `lo_complement` is ~lo, so that both ends are found by atomicMax from a zeroed struct.
struct KeyRange {
  std::uint32_t lo_complement = 0;
  std::uint32_t hi = 0;
  constexpr std::uint32_t lo() const noexcept { return ~lo_complement; }
  // Bits of (ordered key - lo) for every key of the range: 0 when all keys have the same bits.
  constexpr int span_bits() const noexcept { return static_cast<int>(std::bit_width(hi - lo())); }
  // How many low bits of CUB's radix key differ between keys of the range. Every key shares the
  // bits above them, so CUB's sort of bits [0, this) alone, stable, leaves the order its full sort
  // leaves. CUB's key is the ordered key with -0.0 read as +0.0: a range of negative keys topped by
  // -0.0 differs in the sign bit there. Below 32 no range holds both -0.0 and +0.0.
  constexpr int cub_differing_bits() const noexcept {
    if (hi == kOrderedMinusZero && lo() != hi) return 32;
    return static_cast<int>(std::bit_width(lo() ^ hi));
  }
};

// Onesweep's digits on sm_90 are 8 bits wide: 32-bit keys take 4 passes, up to 24 bits 3.
inline constexpr int kMostBitsThatSaveAPass = 24;

// Which width of the range a caller uses, and up to how many bits: past them it has no use for the
// exact range, so a thread of the reduction stops reading once its keys alone exceed them (a part
// of the keys is never wider than all of them), and the range reads as every ordered key.
struct RangeUse {
  enum class Width { SpanBits, CubDifferingBits };
  Width width = Width::SpanBits;
  int most_bits = 32;  // 32: the exact range always
};

// The reduction's running state on the device; its last block leaves it zeroed for the next.
struct KeyRangeState {
  std::uint32_t lo_complement = 0;
  std::uint32_t hi = 0;
  std::uint32_t blocks_done = 0;
  std::uint32_t beyond_use = 0;  // some thread's keys were wider than the caller uses
};

// Finds the key range of an input and hands it to the host: the reduction's last block posts it
// (pinned_mailbox.hpp).
class KeyRangeReader {
 public:
  KeyRangeReader() = default;
  explicit KeyRangeReader(const std::string& owner);
  std::size_t bytes() const noexcept { return state_.bytes() + device_range_.bytes(); }

  // Reduces keys[0, n) (n >= 1) on `stream` and waits for the range. Kernels queued after it on
  // the stream find the same range at device_range().
  KeyRange read(const float* keys, std::size_t n, cudaStream_t stream, RangeUse use = {});
  const KeyRange* device_range() const noexcept { return device_range_.data(); }

 private:
  DeviceBuffer<KeyRangeState> state_;
  DeviceBuffer<KeyRange> device_range_;
  PinnedMailbox<KeyRange> mailbox_;
};

// keys[i] -> ordered_key(keys[i]) - range.lo (reduced keys), and back.
void launch_reduce_keys(const float* keys, std::size_t n, const KeyRange* range, std::uint32_t* reduced,
                        cudaStream_t stream);
void launch_expand_keys(std::uint32_t* keys_in_place, std::size_t n, const KeyRange* range, cudaStream_t stream);

// Where every key has the same bits, the input order is the sorted order: b's pairs copied out.
void copy_pairs_in_order(const SortBuffers& b, cudaStream_t stream);

// CUB's radix sort of the reduced keys on bits [0, span_bits): exact in depthsort's key order
// (reduced keys are unsigned integers, so -0.0 and +0.0 stay apart without a fixup). Workspace is
// reserved once; sort() allocates nothing.
class RangeRadix {
 public:
  RangeRadix() = default;
  RangeRadix(std::size_t max_n, const std::string& owner);
  std::size_t bytes() const noexcept { return temp_.bytes() + reduced_.bytes(); }

  // `range` is the device copy of the keys' range, `host_range` the same values read back (CUB
  // takes the bit count from the host). Writes the sorted pairs to b.keys_out / b.values_out.
  // `first`: where its first step starts (at the end of the caller's last step, where that step
  // found the range and nothing was queued since).
  void sort(const SortBuffers& b, const KeyRange* range, const KeyRange& host_range, cudaStream_t stream,
            StepTimer& timer, StepStart first = StepStart::OwnEvent);

 private:
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<std::uint32_t> reduced_;
};

}  // namespace depthsort::primitives
