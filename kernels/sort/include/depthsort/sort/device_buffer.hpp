// Owning, move-only buffers of device memory (a failed allocation throws CapacityError naming
// the owner, the bytes asked for and the bytes free, never a crash later) and of page-locked host
// memory, which small device-to-host reads need to be asynchronous.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace depthsort {

// cudaMalloc that throws CapacityError (owner, bytes asked, bytes free) on failure.
void* device_allocate(std::size_t bytes, const std::string& owner);
// cudaFree that never throws (used by destructors).
void device_free(void* pointer) noexcept;
// cudaHostAlloc of zeroed page-locked memory (a failure throws CudaError); its cudaFreeHost.
void* pinned_allocate(std::size_t bytes);
void pinned_free(void* pointer) noexcept;
// The address a kernel writes page-locked memory through (cudaHostGetDevicePointer).
void* pinned_device_address(void* pointer);

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, const std::string& owner)
      : data_(count ? static_cast<T*>(device_allocate(count * sizeof(T), owner)) : nullptr), size_(count) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { device_free(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count)
      : data_(count ? static_cast<T*>(pinned_allocate(count * sizeof(T))) : nullptr) {}
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), device_data_(std::exchange(other.device_data_, nullptr)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      pinned_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      device_data_ = std::exchange(other.device_data_, nullptr);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { pinned_free(data_); }

  T* data() noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  // The same memory as a kernel addresses it: what the device writes there, the host reads.
  // Asked of the driver once, on first use.
  T* device_data() {
    if (!device_data_ && data_) device_data_ = static_cast<T*>(pinned_device_address(data_));
    return device_data_;
  }

 private:
  T* data_ = nullptr;
  T* device_data_ = nullptr;
};

}  // namespace depthsort
