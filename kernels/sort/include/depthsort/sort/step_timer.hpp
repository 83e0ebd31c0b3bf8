// Per-step timings without stalls (the nvpro profiler's habit): CUDA events around each named
// step, kept in a ring of frames and read back a frame or more later, so the stream never waits;
// NVTX ranges with the same names in the `depthsort` domain, so Nsight Systems reads like the panel.
// In host mode (the CPU path) the same API measures with std::chrono.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

namespace depthsort {

struct StepTime {
  const char* name;  // a string literal: timings never allocate
  float ms;
};

enum class TimerClock { CudaEvents, Host };

// Where a step starts: at an event of its own, or at the last step's end event, for a step that
// follows it with nothing queued on the stream between them. Each timing event recorded between
// two kernels holds the next one back on an H100 (from one kernel's end to the next's start, each
// event between adds about as much as the gap with none: docs/profiling.md), so two steps that
// follow each other share one.
enum class StepStart { OwnEvent, AtLastStepEnd };

class StepTimer {
 public:
  static constexpr int kMaxSteps = 48;
  static constexpr int kFramesInFlight = 4;

  explicit StepTimer(TimerClock clock = TimerClock::CudaEvents);
  ~StepTimer();
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

  TimerClock clock() const noexcept { return clock_; }

  // Frames bracket one sort (or one frame of the demo); steps inside must not nest.
  void begin_frame(cudaStream_t stream);
  // AtLastStepEnd: the last step of this frame has just ended and nothing was queued since.
  void begin_step(const char* name, StepStart start = StepStart::OwnEvent);
  void end_step() noexcept;  // a failed event record is thrown by end_frame
  void end_frame();

  // Copies the newest completed frame not yet returned into `out` (whose capacity the caller
  // reserved) and returns true; returns false at once if none has completed. Never blocks.
  bool poll(std::vector<StepTime>& out);
  // Blocks until the last frame has completed, then returns its steps (valid until the next
  // begin_frame). For benchmarks and tests, not for the frame loop.
  std::span<const StepTime> wait_last();
  // Milliseconds from the first step's start to the last step's end of the last frame (blocks).
  float last_frame_ms();

 private:
  struct Frame {
    std::array<cudaEvent_t, 2 * kMaxSteps> events{};
    std::array<const char*, kMaxSteps> names{};
    std::array<int, kMaxSteps> start_event{};  // the index in `events` of each step's start
    std::array<float, kMaxSteps> host_ms{};
    std::array<StepTime, kMaxSteps> result{};
    int steps = 0;
    bool pending = false;  // recorded, not yet read back
    std::uint64_t serial = 0;
  };
  void read_frame(Frame& frame);

  TimerClock clock_;
  std::array<Frame, kFramesInFlight> frames_{};
  int current_ = -1;
  bool in_step_ = false;
  std::uint64_t next_serial_ = 0;
  std::uint64_t last_returned_serial_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaError_t deferred_error_ = cudaSuccess;
  std::chrono::steady_clock::time_point host_step_start_{};
};

// RAII step: begin_step in the constructor, end_step in the destructor.
class StepScope {
 public:
  StepScope(StepTimer& timer, const char* name, StepStart start = StepStart::OwnEvent) : timer_(timer) {
    timer_.begin_step(name, start);
  }
  ~StepScope() { timer_.end_step(); }
  StepScope(const StepScope&) = delete;
  StepScope& operator=(const StepScope&) = delete;

 private:
  StepTimer& timer_;
};

// NVTX range in the `depthsort` domain, for phases that are not timed steps.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace depthsort
