#include "depthsort/sort/sorter.hpp"

#include <new>
#include <stdexcept>
#include <string>

#include "depthsort/sort/errors.hpp"

namespace depthsort {

Sorter::Sorter(std::string name, Backend backend)
    : name_(std::move(name)),
      backend_(backend),
      timer_(backend == Backend::Gpu ? TimerClock::CudaEvents : TimerClock::Host) {}

void Sorter::reserve(std::size_t max_n) {
  if (max_n <= capacity_) return;
  if (max_n > kMaxPairs)
    throw CapacityError(name_ + ": cannot reserve for " + std::to_string(max_n) + " pairs: at most " +
                        std::to_string(kMaxPairs) + " (32-bit positions inside the sorters)");
  // Whatever stops a reservation (a failed cudaMalloc, a library refusing the size, host memory)
  // reaches the caller as one kind of error that names the sorter and the size.
  const std::string asked = name_ + ": cannot reserve for " + std::to_string(max_n) + " pairs: ";
  try {
    do_reserve(max_n);
  } catch (const CapacityError&) {
    throw;
  } catch (const CudaError& error) {
    throw CapacityError(asked + error.what());
  } catch (const std::bad_alloc&) {
    throw CapacityError(asked + "out of host memory");
  } catch (const std::length_error&) {
    throw CapacityError(asked + "too large for host memory");
  }
  capacity_ = max_n;
}

void Sorter::sort(const SortBuffers& buffers, cudaStream_t stream) {
  if (buffers.n > capacity_)
    throw CapacityError(name_ + ": asked to sort " + std::to_string(buffers.n) + " pairs but reserved for " +
                        std::to_string(capacity_) + "; call reserve() first");
  NvtxRange range(name_.c_str());
  timer_.begin_frame(stream);
  do_sort(buffers, stream, timer_);
  timer_.end_frame();
}

int option_value(const OptionValues& values, std::string_view name) {
  const auto found = values.find(name);
  if (found == values.end()) throw OptionError("option '" + std::string(name) + "' is not set");
  return found->second;
}

}  // namespace depthsort
