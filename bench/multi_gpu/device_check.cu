// depthsort-multigpu --bench: the output checked on the GPUs (see device_check.hpp).
#include "device_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>

#include "depthsort/harness/workload.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/multi_gpu/nccl_comms.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::multi_gpu {
namespace {

enum Tally { kUnsorted, kOutOfRange, kWrongKey, kDuplicate, kUnionBits, kTallyWords };
constexpr int kThreads = 256;

// One range: in key order, each value an input index seen once on this GPU, beside its input key.
__global__ void check_range_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t count,
                                   const std::uint32_t* source_keys, std::size_t n, std::uint32_t value_mask,
                                   std::uint32_t* bitmap, unsigned long long* tally) {
  unsigned long long unsorted = 0, out_of_range = 0, wrong_key = 0, duplicate = 0;
  for (std::size_t p = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; p < count;
       p += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t bits = keys[p];
    if (p > 0 && ordered_bits_from_float_bits(keys[p - 1]) > ordered_bits_from_float_bits(bits)) ++unsorted;
    const std::size_t index = values[p] ^ value_mask;
    if (index >= n) {
      ++out_of_range;
      continue;
    }
    if (source_keys[index] != bits) ++wrong_key;
    const std::uint32_t bit = 1u << (index % 32);
    if (atomicOr(&bitmap[index / 32], bit) & bit) ++duplicate;
  }
  if (unsorted) atomicAdd(&tally[kUnsorted], unsorted);
  if (out_of_range) atomicAdd(&tally[kOutOfRange], out_of_range);
  if (wrong_key) atomicAdd(&tally[kWrongKey], wrong_key);
  if (duplicate) atomicAdd(&tally[kDuplicate], duplicate);
}

// The values present on any GPU: the popcount of the union of every GPU's bitmap.
__global__ void union_kernel(const std::uint32_t* const* bitmaps, int count, std::size_t words,
                             unsigned long long* tally) {
  unsigned long long bits = 0;
  for (std::size_t w = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; w < words;
       w += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t word = 0;
    for (int b = 0; b < count; ++b) word |= bitmaps[b][w];
    bits += static_cast<unsigned>(__popc(word));
  }
  if (bits) atomicAdd(&tally[kUnionBits], bits);
}

}  // namespace

DeviceCheck::DeviceCheck(std::span<const int> devices, std::size_t n) : n_(n) {
  for (const int device : devices) {
    DeviceScope scope(device);
    Part part;
    part.device = device;
    part.bitmap = DeviceBuffer<std::uint32_t>(std::max<std::size_t>((n + 31) / 32, 1), "depthsort-multigpu check");
    part.tally = DeviceBuffer<unsigned long long>(kTallyWords, "depthsort-multigpu check");
    parts_.push_back(std::move(part));
  }
}

std::string DeviceCheck::check(std::span<const OutputRange> ranges, const float* source_keys, std::size_t n) {
  if (n > n_) throw Error("depthsort-multigpu check: " + std::to_string(n) + " pairs, made for " + std::to_string(n_));
  const std::size_t words = (n + 31) / 32;
  for (Part& part : parts_) {
    DeviceScope scope(part.device);
    DEPTHSORT_CUDA_CHECK(cudaMemset(part.bitmap.data(), 0, part.bitmap.bytes()));
    DEPTHSORT_CUDA_CHECK(cudaMemset(part.tally.data(), 0, part.tally.bytes()));
  }
  auto part_of = [&](int device) -> Part& {
    for (Part& part : parts_)
      if (part.device == device) return part;
    throw Error("depthsort-multigpu check: no bitmap on device " + std::to_string(device));
  };
  const std::uint32_t value_mask = value_for_index(0);
  std::size_t total = 0;
  for (const OutputRange& range : ranges) {
    total += range.count;
    if (range.count == 0) continue;
    Part& part = part_of(range.device);
    DeviceScope scope(range.device);
    check_range_kernel<<<primitives::grid_for(range.count, kThreads, 4096), kThreads>>>(
        reinterpret_cast<const std::uint32_t*>(range.keys), range.values, range.count,
        reinterpret_cast<const std::uint32_t*>(source_keys), n, value_mask, part.bitmap.data(), part.tally.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH(check_range_kernel);
  }
  // Every GPU's bitmap, read from the first device.
  Part& first = parts_.front();
  {
    DeviceScope scope(first.device);
    std::vector<const std::uint32_t*> pointers;
    for (const Part& part : parts_) pointers.push_back(part.bitmap.data());
    DeviceBuffer<const std::uint32_t*> device_pointers(pointers.size(), "depthsort-multigpu check");
    for (const Part& part : parts_) {
      DeviceScope other(part.device);
      DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
    }
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(device_pointers.data(), pointers.data(), pointers.size() * sizeof(pointers[0]),
                                    cudaMemcpyHostToDevice));
    union_kernel<<<primitives::grid_for(words, kThreads, 4096), kThreads>>>(
        device_pointers.data(), static_cast<int>(pointers.size()), words, first.tally.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH(union_kernel);
    DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  unsigned long long tally[kTallyWords] = {};
  for (Part& part : parts_) {
    DeviceScope scope(part.device);
    unsigned long long mine[kTallyWords] = {};
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(mine, part.tally.data(), sizeof(mine), cudaMemcpyDeviceToHost));
    for (int w = 0; w < kTallyWords; ++w) tally[w] += mine[w];
  }
  std::string why;
  auto add = [&](const std::string& what) { why += (why.empty() ? "" : "; ") + what; };
  if (total != n) add("the ranges hold " + std::to_string(total) + " pairs, not " + std::to_string(n));
  if (tally[kUnsorted]) add(std::to_string(tally[kUnsorted]) + " keys below the key before them");
  if (tally[kOutOfRange]) add(std::to_string(tally[kOutOfRange]) + " values that were never input values");
  if (tally[kWrongKey]) add(std::to_string(tally[kWrongKey]) + " values beside another key than their own");
  if (tally[kDuplicate]) add(std::to_string(tally[kDuplicate]) + " values twice on one GPU");
  if (tally[kUnionBits] != n && total == n && !tally[kOutOfRange] && !tally[kDuplicate])
    add(std::to_string(n - tally[kUnionBits]) + " values on two GPUs (and as many missing)");
  // The ranges in order: each one's last key at or below the next non-empty one's first.
  std::uint32_t last = 0;
  bool any = false;
  for (const OutputRange& range : ranges) {
    if (range.count == 0) continue;
    DeviceScope scope(range.device);
    float ends[2];
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(&ends[0], range.keys, sizeof(float), cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(&ends[1], range.keys + range.count - 1, sizeof(float), cudaMemcpyDeviceToHost));
    if (any && ordered_key(ends[0]) < last) add("a range starts below the end of the range before it");
    last = ordered_key(ends[1]);
    any = true;
  }
  return why;
}

}  // namespace depthsort::multi_gpu
