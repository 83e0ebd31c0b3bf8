// The CPU path's sorter: host memory, the same key order, for machines without a CUDA device.
// An LSD radix sort over the ordered bits (keys.hpp) in 11-bit digits: three stable passes.
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "depthsort/sort/keys.hpp"
#include "sort/baselines.hpp"

namespace depthsort {
namespace {

class CpuSorter final : public Sorter {
 public:
  CpuSorter() : Sorter("cpu", Backend::Cpu) {}

  std::size_t workspace_bytes() const override {
    return (ordered_[0].capacity() + ordered_[1].capacity() + values_.capacity()) * sizeof(std::uint32_t);
  }

 protected:
  void do_reserve(std::size_t max_n) override {
    for (auto& buffer : ordered_) buffer.resize(max_n);
    values_.resize(max_n);
  }

  void do_sort(const SortBuffers& b, cudaStream_t, StepTimer& timer) override {
    if (b.n == 0) return;
    {
      StepScope step(timer, "ordered bits");
      for (std::size_t i = 0; i < b.n; ++i) ordered_[0][i] = ordered_key(b.keys_in[i]);
      std::memcpy(b.values_out, b.values_in, b.n * sizeof(std::uint32_t));
    }
    StepScope step(timer, "radix passes");
    // Keys ping-pong between the two ordered_ buffers and values between values_out and values_;
    // after three passes they are in ordered_[1] and values_.
    std::uint32_t* value_buffers[2] = {b.values_out, values_.data()};
    for (int pass = 0; pass < 3; ++pass) {
      const int shift = pass * 11;
      std::array<std::size_t, 2048> offsets{};
      const std::uint32_t* keys = ordered_[pass % 2].data();
      for (std::size_t i = 0; i < b.n; ++i) ++offsets[(keys[i] >> shift) & 2047];
      std::size_t sum = 0;
      for (auto& offset : offsets) sum += std::exchange(offset, sum);
      std::uint32_t* keys_to = ordered_[(pass + 1) % 2].data();
      const std::uint32_t* values_from = value_buffers[pass % 2];
      std::uint32_t* values_to = value_buffers[(pass + 1) % 2];
      for (std::size_t i = 0; i < b.n; ++i) {
        const std::size_t at = offsets[(keys[i] >> shift) & 2047]++;
        keys_to[at] = keys[i];
        values_to[at] = values_from[i];
      }
    }
    for (std::size_t i = 0; i < b.n; ++i) b.keys_out[i] = key_from_ordered(ordered_[1][i]);
    std::memcpy(b.values_out, values_.data(), b.n * sizeof(std::uint32_t));
  }

 private:
  std::array<std::vector<std::uint32_t>, 2> ordered_;
  std::vector<std::uint32_t> values_;
};

}  // namespace

std::unique_ptr<Sorter> make_cpu_sorter(const OptionValues&) { return std::make_unique<CpuSorter>(); }

}  // namespace depthsort
