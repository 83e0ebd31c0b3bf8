// Karsin, Weichert, Casanova, Iacono, Sitchinava, "Analysis-driven Engineering of Comparison-based
// Sorting Algorithms on GPUs" (ICS 2018), Section 5: the host dispatcher of `gpu-mms` for the
// registry's (float key, uint32 value) pairs. Each pair travels as one 64-bit word, the ordered
// key of keys.hpp above the value: the key order is an unsigned compare, bit-exact for -0/+0 and
// NaN payloads, and total, so the padding sentinel ~0 can only tie with a bitwise-equal pair.
// Steps: base case, partition round k, merge round k (gpu_mms_kernels.cuh).
#include <cstdint>
#include <string>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/keys.hpp"
#include "sort/gpu_mms/gpu_mms_kernels.cuh"
#include "sort/gpu_mms/gpu_mms_sorter.hpp"
#include "sort/primitives/launch.hpp"

namespace depthsort::gpu_mms {
namespace {

struct PackedLess {
  using total_order = void;
  __host__ __device__ bool operator()(std::uint64_t a, std::uint64_t b) const { return a < b; }
};

static_assert(kTotal<PackedLess>, "packed pairs take the one-predicate networks");

struct PairIn {
  const float* keys;
  const std::uint32_t* values;
  __device__ std::uint64_t operator()(std::uint32_t i) const {
    return (std::uint64_t{ordered_key(keys[i])} << 32) | values[i];
  }
};

struct PairOut {
  float* keys;
  std::uint32_t* values;
  __device__ void operator()(std::uint32_t i, std::uint64_t e) const {
    keys[i] = key_from_ordered(static_cast<std::uint32_t>(e >> 32));
    values[i] = static_cast<std::uint32_t>(e);
  }
};

class GpuMmsSorter final : public Sorter {
 public:
  explicit GpuMmsSorter(const GpuMmsOptions& options) : Sorter("gpu-mms", Backend::Gpu) {
    config_.k = options.k;
    const int share = options.share;
    config_.independent = options.independent_merge;
    config_.narrow_last = options.narrow_last;
    if (config_.k != 2 && config_.k != 4 && config_.k != 8 && config_.k != 16 && config_.k != 32)
      throw OptionError("gpu-mms: option 'k' must be 2, 4, 8, 16 or 32, got " + std::to_string(config_.k));
    if (share != 0 && (share < 32 || (share & (share - 1)) != 0))
      throw OptionError("gpu-mms: option 'share' must be 0 (auto) or a power of two >= 32, got " +
                        std::to_string(share));
    config_.share = static_cast<std::uint32_t>(share);
  }

  std::size_t workspace_bytes() const override { return a_.bytes() + b_.bytes() + splits_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    if (max_n > kMaxPairs)
      throw CapacityError(name() + ": cannot reserve for " + std::to_string(max_n) + " pairs: at most " +
                          std::to_string(kMaxPairs));
    // A larger reservation must not need the old and the new workspace at once.
    a_ = {};
    b_ = {};
    splits_ = {};
    const std::size_t count = std::max<std::size_t>(max_n, 1);
    a_ = DeviceBuffer<std::uint64_t>(count, name());
    b_ = DeviceBuffer<std::uint64_t>(count, name());
    splits_ = DeviceBuffer<std::uint32_t>(split_words(count), name());
    config_.min_warps = static_cast<std::uint32_t>(16 * primitives::multiprocessor_count());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    gpu_mms::sort<std::uint64_t>(PairIn{b.keys_in, b.values_in}, PairOut{b.keys_out, b.values_out}, a_.data(),
                                 b_.data(), splits_.data(), static_cast<std::uint32_t>(b.n), config_, ~std::uint64_t{0},
                                 PackedLess{}, stream, &timer);
  }

 private:
  Config config_;
  DeviceBuffer<std::uint64_t> a_, b_;
  DeviceBuffer<std::uint32_t> splits_;
};

}  // namespace

std::unique_ptr<Sorter> make_gpu_mms_sorter(const OptionValues& options) {
  return std::make_unique<GpuMmsSorter>(GpuMmsOptions::from(options));
}

}  // namespace depthsort::gpu_mms
