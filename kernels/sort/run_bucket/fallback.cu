// run-bucket (docs/algorithms/run-bucket.md; depthsort's own design): the fallback (fallback.hpp).
#include "sort/run_bucket/fallback.hpp"

#include "depthsort/sort/errors.hpp"
#include "sort/primitives/cub_radix_pairs.cuh"

namespace depthsort::run_bucket {

std::size_t fallback_temp_bytes(std::size_t max_n) {
  std::size_t bytes = 0;
  DEPTHSORT_CUDA_CHECK(
      primitives::cub_radix_sort_pairs<float>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, max_n, 32, nullptr));
  return bytes;
}

bool fall_back(const SortBuffers& b, cudaStream_t stream, StepTimer& timer, bool span_sort, std::uint32_t* ends,
               int& last_differing_bits, const FallbackTools& tools) {
  StepStart sort_start = StepStart::OwnEvent;  // after the key span: at its end
  if (span_sort) {
    primitives::KeyRange range;
    {
      StepScope step(timer, "key span");
      range = tools.range_reader.read(
          b.keys_in, b.n, stream, {primitives::RangeUse::Width::CubDifferingBits, primitives::kMostBitsThatSaveAPass});
    }
    const int bits = range.cub_differing_bits();
    last_differing_bits = bits;
    sort_start = StepStart::AtLastStepEnd;
    if (bits == 0) {
      StepScope step(timer, "copy (one key value)", sort_start);
      primitives::copy_pairs_in_order(b, stream);
      return false;
    }
    if (bits <= primitives::kMostBitsThatSaveAPass) {
      // No range below 32 bits holds both -0.0 and +0.0: CUB's order is the exact one.
      StepScope step(timer, "fallback-cub (span bits)", sort_start);
      std::size_t bytes = tools.temp.bytes();
      DEPTHSORT_CUDA_CHECK(primitives::cub_radix_sort_pairs(tools.temp.data(), bytes, b.keys_in, b.keys_out,
                                                            b.values_in, b.values_out, b.n, bits, stream));
      return false;
    }
  }
  // cub-radix's sort: CUB's, then the signed-zero fixup for the exact key order.
  StepScope step(timer, "fallback-cub", sort_start);
  std::size_t bytes = tools.temp.bytes();
  DEPTHSORT_CUDA_CHECK(primitives::cub_radix_sort_pairs(tools.temp.data(), bytes, b.keys_in, b.keys_out, b.values_in,
                                                        b.values_out, b.n, 32, stream));
  tools.zero_fixup.run(b.keys_out, b.values_out, b.n, stream, ends);
  return true;
}

}  // namespace depthsort::run_bucket
