// The Sorter interface: every algorithm of the project, paper reproduction or library baseline.
//
// A sorter sorts n pairs (float key, uint32 value) ascending in the key order of keys.hpp,
// stream-ordered. The input is read and left untouched; the sorted pairs are written to separate
// output buffers. Ties may come out in any order unless the sorter's registry entry says stable.
// Workspace is reserved once for a maximum n (two-phase storage, as CUB does) and reused: sort()
// allocates nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <map>
#include <memory>
#include <span>
#include <string_view>

#include "depthsort/sort/step_timer.hpp"

namespace depthsort {

// Where a sorter's buffers live.
enum class Backend { Gpu, Cpu };

// The structure of the last sort, for the demo's views of a sorter's structure: the sorted output split into
// the buckets (or sublists) the algorithm sorted independently. `starts` is a device array of
// `count` ascending output positions, the first 0; segment i covers [starts[i], starts[i+1]) and
// the last one ends at n. Valid on the sort's stream after sort() until the next sort(). Sorters
// without such a structure (radix, the library sorts) return count 0.
struct Segments {
  const std::uint32_t* starts = nullptr;
  std::uint32_t count = 0;
  const char* kind = "";  // what a segment is called: "bucket", "sublist", ...
};

struct SortBuffers {
  const float* keys_in = nullptr;
  const std::uint32_t* values_in = nullptr;
  float* keys_out = nullptr;
  std::uint32_t* values_out = nullptr;
  std::size_t n = 0;
};

class Sorter {
 public:
  // The sorters index pairs with 32-bit integers (and CUB gets int offsets), so n < 2^31.
  static constexpr std::size_t kMaxPairs = (std::size_t{1} << 31) - 1;

  Sorter(std::string name, Backend backend);
  virtual ~Sorter() = default;
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  const std::string& name() const noexcept { return name_; }
  Backend backend() const noexcept { return backend_; }

  // Sizes the workspace for up to max_n pairs (at most kMaxPairs). Throws CapacityError (sorter,
  // bytes asked, bytes free) if the device cannot hold it. Call outside any frame loop.
  void reserve(std::size_t max_n);
  std::size_t capacity() const noexcept { return capacity_; }
  // Bytes of workspace held now.
  virtual std::size_t workspace_bytes() const = 0;

  // Sorts buffers.n pairs on `stream` (ignored by CPU sorters). n above capacity() throws
  // CapacityError. Each named step is timed (see timer()) and shown in Nsight as an NVTX range.
  void sort(const SortBuffers& buffers, cudaStream_t stream = nullptr);

  StepTimer& timer() noexcept { return timer_; }

  // The buckets of the last sort (see Segments); none by default.
  virtual Segments segments() const { return {}; }

 protected:
  virtual void do_reserve(std::size_t max_n) = 0;
  virtual void do_sort(const SortBuffers& buffers, cudaStream_t stream, StepTimer& timer) = 0;

 private:
  std::string name_;
  Backend backend_;
  std::size_t capacity_ = 0;
  StepTimer timer_;
};

// What the registry (registry.hpp) knows of a sorter: its name, where it comes from, its options
// and how to make one. Each sorter declares these beside its factory.
// One tunable of a sorter: an integer in [min_value, max_value]; a flag has range [0, 1].
struct OptionSpec {
  std::string_view name;
  std::string_view help;
  int default_value;
  int min_value;
  int max_value;
  bool is_flag() const noexcept { return min_value == 0 && max_value == 1; }
};

using OptionValues = std::map<std::string, int, std::less<>>;

struct SorterInfo {
  std::string_view name;         // the --sorter NAME
  std::string_view origin;       // paper or library
  std::string_view description;  // one line
  Backend backend;
  bool stable;
  std::span<const OptionSpec> options;
  // True where the sorter can run here; otherwise fills *why_not.
  bool (*is_available)(std::string* why_not);
  std::unique_ptr<Sorter> (*create)(const OptionValues& options);
};

// The value of a declared option (throws OptionError if the name is not declared).
int option_value(const OptionValues& values, std::string_view name);
// True if a CUDA device is present and runs this build's kernels; otherwise says why.
bool cuda_device_usable(std::string* why_not);
bool always_available(std::string* why_not);

}  // namespace depthsort
