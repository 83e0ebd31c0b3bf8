// Baseline: thrust::sort_by_key on (float, uint32) pairs, as CUDA's smokeParticles sample sorts its
// particle depths. Thrust sorts in place, so the input is first copied to the output buffers; the
// copies are a timed step of their own. Its temporary storage comes from a caching allocator sized
// at reserve(), so sorting allocates nothing.
#include <cub/device/device_radix_sort.cuh>
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "sort/core/signed_zero_fixup.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/baselines.hpp"

namespace depthsort {
namespace {

// Hands Thrust one preallocated block for its temporaries (it asks for one block per sort).
class ReservedAllocator {
 public:
  using value_type = char;
  explicit ReservedAllocator(DeviceBuffer<char>& arena) : arena_(&arena) {}
  char* allocate(std::ptrdiff_t bytes) {
    if (static_cast<std::size_t>(bytes) > arena_->bytes() || in_use_)
      throw CapacityError("thrust: temporary storage of " + std::to_string(bytes) + " bytes exceeds the " +
                          std::to_string(arena_->bytes()) + " bytes reserved");
    in_use_ = true;
    return arena_->data();
  }
  void deallocate(char*, std::size_t) { in_use_ = false; }

 private:
  DeviceBuffer<char>* arena_;
  bool in_use_ = false;
};

class ThrustSorter final : public Sorter {
 public:
  ThrustSorter() : Sorter("thrust", Backend::Gpu) {}

  std::size_t workspace_bytes() const override { return arena_.bytes() + zero_fixup_.bytes(); }

 protected:
  void do_reserve(std::size_t max_n) override {
    // Thrust's radix path asks for one block: the alternate key and value buffers plus CUB's
    // temporary storage for a double-buffered sort (whose look-back tables grow with n), each
    // aligned; the slack covers that alignment.
    std::size_t cub_bytes = 0;
    cub::DoubleBuffer<float> keys(nullptr, nullptr);
    cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, keys, values, max_n));
    arena_ = DeviceBuffer<char>(max_n * (sizeof(float) + sizeof(std::uint32_t)) + cub_bytes + (std::size_t{1} << 20),
                                name());
    zero_fixup_ = SignedZeroFixup(max_n, name());
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    if (b.n == 0) return;
    {
      StepScope step(timer, "copy input");
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpyAsync(b.keys_out, b.keys_in, b.n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
      DEPTHSORT_CUDA_CHECK(
          cudaMemcpyAsync(b.values_out, b.values_in, b.n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    }
    {
      StepScope step(timer, "sort_by_key", StepStart::AtLastStepEnd);
      ReservedAllocator allocator(arena_);
      const auto keys = thrust::device_pointer_cast(b.keys_out);
      thrust::sort_by_key(thrust::cuda::par_nosync(allocator).on(stream), keys, keys + b.n,
                          thrust::device_pointer_cast(b.values_out));
      DEPTHSORT_CUDA_CHECK(cudaGetLastError());
    }
    StepScope step(timer, "signed-zero fixup", StepStart::AtLastStepEnd);
    zero_fixup_.run(b.keys_out, b.values_out, b.n, stream);
  }

 private:
  DeviceBuffer<char> arena_;
  SignedZeroFixup zero_fixup_;
};

}  // namespace

std::unique_ptr<Sorter> make_thrust_sorter(const OptionValues&) { return std::make_unique<ThrustSorter>(); }

}  // namespace depthsort
