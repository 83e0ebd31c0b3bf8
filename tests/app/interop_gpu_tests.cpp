// CUDA-GL interop on a CUDA device: map/unmap shares a GL buffer both ways
// (GL's contents reach CUDA, CUDA's writes reach GL, a later GL write reaches CUDA again), and the
// per-frame cost of map + unmap is printed with GL work before it and without (the cost that
// docs/interop.md is about). In-process on a headless EGL context; each test reports itself
// skipped where no CUDA device (or no GL on it) exists.
#include <gtest/gtest.h>

#include "render/gl.hpp"  // glad before any CUDA-GL header

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"  // cuda_device_usable
#include "interop/gl_interop.hpp"
#include "platform/egl_headless.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

// A GL 4.5 context on the CUDA device, or the reason there is none.
std::unique_ptr<EglHeadless> gl_on_cuda_device(std::string& why) {
  if (!cuda_device_usable(&why)) return nullptr;
  std::unique_ptr<EglHeadless> egl;
  try {
    egl = std::make_unique<EglHeadless>(false);
  } catch (const std::exception& e) {
    why = std::string("no headless GL: ") + e.what();
    return nullptr;
  }
  unsigned int count = 0;
  int devices[4] = {};
  if (cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll) != cudaSuccess || count == 0) {
    cudaGetLastError();
    why = "the GL context (" + egl->device_description() + ") is not on a CUDA device";
    return nullptr;
  }
  DEPTHSORT_CUDA_CHECK(cudaSetDevice(devices[0]));
  return egl;
}

#define REQUIRE_GL_ON_CUDA(egl)                    \
  std::string why_skipped;                         \
  const auto egl = gl_on_cuda_device(why_skipped); \
  if (!egl) GTEST_SKIP() << why_skipped

GlBuffer make_gl_buffer(const std::vector<std::uint32_t>& data) {
  GLuint id = 0;
  DEPTHSORT_GL_CHECK(glCreateBuffers(1, &id));
  GlBuffer buffer(id);
  DEPTHSORT_GL_CHECK(glNamedBufferData(id, static_cast<GLsizeiptr>(data.size() * 4), data.data(), GL_DYNAMIC_DRAW));
  return buffer;
}

std::vector<std::uint32_t> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>(i) * 2654435761u + seed;
  return v;
}

std::size_t first_difference(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin());
}

// Frames of sharing one buffer: GL's contents seen by CUDA, CUDA's write seen by GL, GL's next
// write seen by CUDA. `flags` as the frame pipeline registers its buffers.
void round_trips(unsigned int flags) {
  constexpr std::size_t n = 3 * 1'000'003;  // not a multiple of any granularity
  const std::vector<std::uint32_t> initial = pattern(n, 1);
  const GlBuffer buffer = make_gl_buffer(initial);
  RegisteredBuffer shared(buffer.get(), flags, "test buffer");
  CudaStream stream;
  std::vector<std::uint32_t> seen(n);
  RegisteredBuffer* list[] = {&shared};
  {
    InteropMapping mapping(list, 1, stream.get());
    std::size_t bytes = 0;
    void* p = mapping.pointer(0, &bytes);
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(bytes, n * 4);
    if (flags != cudaGraphicsRegisterFlagsWriteDiscard) {
      DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(seen.data(), p, n * 4, cudaMemcpyDeviceToHost, stream.get()));
      DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      ASSERT_EQ(first_difference(seen, initial), n) << "CUDA does not see the GL buffer's contents";
    }
    if (flags == cudaGraphicsRegisterFlagsReadOnly) return;  // CUDA promised not to write it
    const std::vector<std::uint32_t> written = pattern(n, 7);
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(p, written.data(), n * 4, cudaMemcpyHostToDevice, stream.get()));
    DEPTHSORT_CUDA_CHECK(cudaMemsetAsync(static_cast<std::uint32_t*>(p) + n - 5, 0xab, 5 * 4, stream.get()));
    mapping.unmap();
    std::vector<std::uint32_t> expected = written;
    std::fill(expected.end() - 5, expected.end(), 0xababababu);
    DEPTHSORT_GL_CHECK(glGetNamedBufferSubData(buffer.get(), 0, static_cast<GLsizeiptr>(n * 4), seen.data()));
    ASSERT_EQ(first_difference(seen, expected), n) << "GL does not see CUDA's write";
  }
  // The next frame: GL writes part of it (as the CPU path or a draw could), CUDA must see it
  // (except where the flags let map/unmap discard the contents).
  if (flags == cudaGraphicsRegisterFlagsWriteDiscard) return;
  const std::vector<std::uint32_t> gl_part = pattern(1000, 99);
  DEPTHSORT_GL_CHECK(glNamedBufferSubData(buffer.get(), 4 * 12345, 4 * 1000, gl_part.data()));
  InteropMapping mapping(list, 1, stream.get());
  std::vector<std::uint32_t> part(1000);
  DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(part.data(), static_cast<std::uint32_t*>(mapping.pointer(0)) + 12345, 4000,
                                       cudaMemcpyDeviceToHost, stream.get()));
  mapping.unmap();
  DEPTHSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_EQ(part, gl_part) << "CUDA does not see GL's later write";
}

TEST(Interop, MapPathSharesABufferBothWays) {
  REQUIRE_GL_ON_CUDA(egl);
  round_trips(cudaGraphicsRegisterFlagsNone);
  round_trips(cudaGraphicsRegisterFlagsWriteDiscard);
  round_trips(cudaGraphicsRegisterFlagsReadOnly);
}

// A frame's map + unmap, as the frame pipeline does it (four buffers in one call), with GL having
// read every buffer just before (as a draw does; finished with glFinish, as the headless loop
// waits for the draw's timer query) and with GL idle (as --no-draw). Host time and the
// CUDA-event time the app's "map" and "unmap" steps report. Printed, not asserted: the numbers
// belong in docs/interop.md.
TEST(Interop, MapUnmapCostWithAndWithoutGlWork) {
  REQUIRE_GL_ON_CUDA(egl);
  constexpr std::size_t n = 1 << 20;
  const std::vector<std::uint32_t> data = pattern(n, 3);
  std::vector<GlBuffer> buffers;
  for (int i = 0; i < 4; ++i) buffers.push_back(make_gl_buffer(data));
  const GlBuffer scratch = make_gl_buffer(data);
  std::vector<RegisteredBuffer> shared;
  shared.emplace_back(buffers[0].get(), cudaGraphicsRegisterFlagsReadOnly, "vertices");
  shared.emplace_back(buffers[1].get(), cudaGraphicsRegisterFlagsWriteDiscard, "elements");
  shared.emplace_back(buffers[2].get(), cudaGraphicsRegisterFlagsNone, "particle vertices");
  shared.emplace_back(buffers[3].get(), cudaGraphicsRegisterFlagsWriteDiscard, "particle elements");
  RegisteredBuffer* list[] = {&shared[0], &shared[1], &shared[2], &shared[3]};
  CudaStream stream;
  CudaEvent before, after;
  for (const bool gl_work : {true, false}) {
    constexpr int kFrames = 200, kWarmUp = 10;
    std::vector<float> host_ms, event_ms;
    for (int frame = 0; frame < kFrames; ++frame) {
      if (gl_work) {
        for (const GlBuffer& b : buffers)  // GL reads every buffer, as the draw does
          DEPTHSORT_GL_CHECK(glCopyNamedBufferSubData(b.get(), scratch.get(), 0, 0, 4 * 1024));
        DEPTHSORT_GL_CHECK(glFinish());
      }
      const auto t0 = std::chrono::steady_clock::now();
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(before.get(), stream.get()));
      InteropMapping mapping(list, 4, stream.get());
      for (int i = 0; i < 4; ++i) ASSERT_NE(mapping.pointer(i), nullptr);
      mapping.unmap();
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(after.get(), stream.get()));
      const auto t1 = std::chrono::steady_clock::now();
      DEPTHSORT_CUDA_CHECK(cudaEventSynchronize(after.get()));
      float ms = 0;
      DEPTHSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, before.get(), after.get()));
      if (frame >= kWarmUp) {
        host_ms.push_back(std::chrono::duration<float, std::milli>(t1 - t0).count());
        event_ms.push_back(ms);
      }
    }
    std::sort(host_ms.begin(), host_ms.end());
    std::sort(event_ms.begin(), event_ms.end());
    const float host_median = host_ms[host_ms.size() / 2], event_median = event_ms[event_ms.size() / 2];
    const char* name = gl_work ? "gl_work" : "gl_idle";
    std::printf("map+unmap %-7s median over %zu frames: %.4f ms host, %.4f ms CUDA events\n", name, host_ms.size(),
                static_cast<double>(host_median), static_cast<double>(event_median));
    RecordProperty(std::string("map_unmap_host_ms_") + name, std::to_string(host_median));
    RecordProperty(std::string("map_unmap_event_ms_") + name, std::to_string(event_median));
  }
}

}  // namespace
}  // namespace depthsort::app::test
