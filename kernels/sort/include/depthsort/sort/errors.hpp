// Errors with place and meaning: every CUDA call is checked and a failure names the call,
// the file and line, and what the user can do about it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace depthsort {

// Base of every error this library throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA runtime call failed.
class CudaError : public Error {
 public:
  CudaError(int code, const std::string& what) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// A reservation the device (or host) cannot satisfy, or a request beyond a reservation.
class CapacityError : public Error {
 public:
  using Error::Error;
};

// An option name or value a sorter does not accept.
class OptionError : public Error {
 public:
  using Error::Error;
};

// Formats "<call> failed at <file>:<line>: <cuda message> (<hint>)" and throws CudaError.
[[noreturn]] void throw_cuda_error(int code, const char* call, const char* file, int line);

// Throws CapacityError naming the owner, the bytes asked for and the bytes free on the device.
[[noreturn]] void throw_out_of_device_memory(const std::string& owner, std::size_t bytes_asked);

}  // namespace depthsort

// Checks a cudaError_t-returning call; the message carries the call's text and place.
#define DEPTHSORT_CUDA_CHECK(call)                                                                   \
  do {                                                                                               \
    const auto depthsort_status_ = (call);                                                           \
    if (depthsort_status_ != 0)                                                                      \
      ::depthsort::throw_cuda_error(static_cast<int>(depthsort_status_), #call, __FILE__, __LINE__); \
  } while (0)

// Checks the last kernel launch (configuration errors surface here, not at the launch).
#define DEPTHSORT_CUDA_CHECK_LAUNCH(kernel_name) \
  DEPTHSORT_CUDA_CHECK((static_cast<void>(kernel_name), cudaGetLastError()))
