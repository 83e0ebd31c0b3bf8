// run-bucket (docs/algorithms/run-bucket.md; depthsort's own design): the fallback, CUB's radix
// sort where the bucket path does not pay: cub-radix's sort with its signed-zero fixup, or, where
// the last keys differed in few low bits, this input's key range first and CUB on only the bits its
// keys differ in (one digit pass fewer), or a copy where they are one value.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/sorter.hpp"
#include "sort/core/signed_zero_fixup.hpp"
#include "sort/primitives/key_range.hpp"

namespace depthsort::run_bucket {

// Temporary storage CUB's sort of up to max_n float-keyed pairs needs.
std::size_t fallback_temp_bytes(std::size_t max_n);

// What the fallback sorts with, owned by the sorter.
struct FallbackTools {
  primitives::KeyRangeReader& range_reader;
  DeviceBuffer<unsigned char>& temp;
  SignedZeroFixup& zero_fixup;
};

// Sorts b on stream. span_sort: find the range and sort only the differing bits (written to
// last_differing_bits). Returns whether it took cub-radix's sort, which leaves the output's range
// at ends where ends is given.
bool fall_back(const SortBuffers& b, cudaStream_t stream, StepTimer& timer, bool span_sort, std::uint32_t* ends,
               int& last_differing_bits, const FallbackTools& tools);

}  // namespace depthsort::run_bucket
