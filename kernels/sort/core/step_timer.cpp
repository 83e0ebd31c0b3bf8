#include "depthsort/sort/step_timer.hpp"

#include <nvtx3/nvToolsExt.h>

#include <utility>

#include "depthsort/sort/errors.hpp"

namespace depthsort {
namespace {

// NVTX keeps one handle per domain for the process; asking once is NVTX's own idiom.
nvtxDomainHandle_t nvtx_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("depthsort");
  return domain;
}

void nvtx_push(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(nvtx_domain(), &attributes);
}

void nvtx_pop() { nvtxDomainRangePop(nvtx_domain()); }

}  // namespace

NvtxRange::NvtxRange(const char* name) { nvtx_push(name); }
NvtxRange::~NvtxRange() { nvtx_pop(); }

StepTimer::StepTimer(TimerClock clock) : clock_(clock) {}

StepTimer::~StepTimer() {
  for (auto& frame : frames_)
    for (cudaEvent_t event : frame.events)
      if (event) cudaEventDestroy(event);
}

void StepTimer::begin_frame(cudaStream_t stream) {
  if (in_step_) throw Error("StepTimer: begin_frame inside a step");
  current_ = (current_ + 1) % kFramesInFlight;
  Frame& frame = frames_[current_];
  if (clock_ == TimerClock::CudaEvents && !frame.events[0]) {
    // Created once per ring slot on first use; the frame loop reuses them from then on.
    for (cudaEvent_t& event : frame.events) DEPTHSORT_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDefault));
  }
  frame.steps = 0;
  frame.pending = false;
  stream_ = stream;
}

void StepTimer::begin_step(const char* name, StepStart start) {
  if (current_ < 0) throw Error("StepTimer: begin_step outside a frame");
  if (in_step_) throw Error(std::string("StepTimer: step '") + name + "' nested in another step");
  Frame& frame = frames_[current_];
  if (frame.steps == kMaxSteps) throw Error("StepTimer: more than kMaxSteps steps in one frame");
  if (start == StepStart::AtLastStepEnd && frame.steps == 0)
    throw Error(std::string("StepTimer: step '") + name + "' starts at the last step's end, but none came before");
  frame.names[frame.steps] = name;
  const bool shared = start == StepStart::AtLastStepEnd;
  frame.start_event[frame.steps] = shared ? 2 * frame.steps - 1 : 2 * frame.steps;
  if (clock_ == TimerClock::CudaEvents) {
    if (!shared) DEPTHSORT_CUDA_CHECK(cudaEventRecord(frame.events[2 * frame.steps], stream_));
  } else
    host_step_start_ = std::chrono::steady_clock::now();
  nvtx_push(name);  // after the record, so a failed record leaves no range open
  in_step_ = true;
}

void StepTimer::end_step() noexcept {
  // Runs in StepScope's destructor, also while an exception unwinds: it must not throw, so a
  // failed record is kept and thrown by end_frame.
  if (!in_step_) return;
  Frame& frame = frames_[current_];
  in_step_ = false;
  nvtx_pop();
  if (clock_ == TimerClock::CudaEvents) {
    const cudaError_t status = cudaEventRecord(frame.events[2 * frame.steps + 1], stream_);
    if (status != cudaSuccess && deferred_error_ == cudaSuccess) deferred_error_ = status;
  } else {
    const auto elapsed = std::chrono::steady_clock::now() - host_step_start_;
    frame.host_ms[frame.steps] = std::chrono::duration<float, std::milli>(elapsed).count();
  }
  ++frame.steps;
}

void StepTimer::end_frame() {
  if (current_ < 0 || in_step_) throw Error("StepTimer: end_frame without a frame or inside a step");
  if (deferred_error_ != cudaSuccess)
    throw_cuda_error(std::exchange(deferred_error_, cudaSuccess), "cudaEventRecord (end of a step)", __FILE__,
                     __LINE__);
  Frame& frame = frames_[current_];
  frame.pending = true;
  frame.serial = ++next_serial_;
}

void StepTimer::read_frame(Frame& frame) {
  for (int i = 0; i < frame.steps; ++i) {
    float ms = frame.host_ms[i];
    if (clock_ == TimerClock::CudaEvents)
      DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, frame.events[frame.start_event[i]], frame.events[2 * i + 1]));
    frame.result[i] = StepTime{frame.names[i], ms};
  }
  frame.pending = false;
  last_returned_serial_ = frame.serial;
}

bool StepTimer::poll(std::vector<StepTime>& out) {
  Frame* newest = nullptr;
  for (Frame& frame : frames_) {
    if (!frame.pending || frame.steps == 0 || frame.serial <= last_returned_serial_) continue;
    if (clock_ == TimerClock::CudaEvents) {
      const cudaError_t status = cudaEventQuery(frame.events[2 * frame.steps - 1]);
      if (status == cudaErrorNotReady) continue;
      DEPTHSORT_CUDA_CHECK(status);
    }
    if (!newest || frame.serial > newest->serial) newest = &frame;
  }
  if (!newest) return false;
  read_frame(*newest);
  out.assign(newest->result.begin(), newest->result.begin() + newest->steps);
  return true;
}

std::span<const StepTime> StepTimer::wait_last() {
  if (current_ < 0) return {};
  Frame& frame = frames_[current_];
  if (frame.steps == 0) return {};
  if (clock_ == TimerClock::CudaEvents) DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(frame.events[2 * frame.steps - 1]));
  if (frame.pending) read_frame(frame);
  return {frame.result.data(), static_cast<std::size_t>(frame.steps)};
}

float StepTimer::last_frame_ms() {
  const auto steps = wait_last();
  if (steps.empty()) return 0.0f;
  if (clock_ == TimerClock::Host) {
    float total = 0.0f;
    for (const StepTime& step : steps) total += step.ms;
    return total;
  }
  const Frame& frame = frames_[current_];
  float ms = 0.0f;
  DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, frame.events[0], frame.events[2 * frame.steps - 1]));
  return ms;
}

}  // namespace depthsort
