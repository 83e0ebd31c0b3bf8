// Headless OpenGL 4.5 core through EGL's device platform (eglQueryDevicesEXT +
// eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT)): NVIDIA's driver on a GPU machine without a display, Mesa's
// llvmpipe where no GPU exists. GLFW's own headless mode does not work on the H100/H200 machines without a display.
// The context is surfaceless where EGL_KHR_surfaceless_context exists, else on a 16x16 pbuffer;
// drawing goes to an offscreen framebuffer (render/renderer.hpp).
#pragma once

#include <string>

namespace depthsort::app {

class EglHeadless {
 public:
  // Tries each EGL device in order and keeps the first that gives a GL 4.5 core context: devices
  // CUDA can share first (EGL_NV_device_cuda), or, with `prefer_software` (the CPU path), Mesa's
  // software device first. Throws with every device's reason.
  explicit EglHeadless(bool prefer_software);
  ~EglHeadless();
  EglHeadless(const EglHeadless&) = delete;
  EglHeadless& operator=(const EglHeadless&) = delete;

  const std::string& device_description() const noexcept { return description_; }

 private:
  // Initialises `display` (an EGLDisplay) and makes a GL 4.5 core context current on it; on failure
  // appends the reason to `reasons` and leaves nothing behind.
  bool try_display(void* display, const std::string& name, const std::string& tag, std::string& reasons);

  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  void* surface_ = nullptr;  // EGLSurface (pbuffer) or null when surfaceless
  std::string description_;
};

}  // namespace depthsort::app
