#include "platform/egl_headless.hpp"

#include <glad/egl.h>
#include <glad/gl.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace depthsort::app {

namespace {

std::string egl_error_text(EGLint code) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "EGL error 0x%04X", static_cast<unsigned>(code));
  return buf;
}

std::string query_device(EGLDeviceEXT device, EGLint what) {
  if (!eglQueryDeviceStringEXT) return {};
  const char* s = eglQueryDeviceStringEXT(device, what);
  return s ? s : "";
}

GLADapiproc egl_proc(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

}  // namespace

namespace {

// GLVND and NVIDIA advertise EGL_EXT_device_base rather than its parts (device_enumeration,
// device_query), and GLAD loads entry points by advertised name, so the device-platform entry
// points are looked up directly where GLAD left them unset (also after every GLAD reload).
void load_device_entry_points() {
  if (!eglQueryDevicesEXT)
    glad_eglQueryDevicesEXT = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  if (!eglQueryDeviceStringEXT)
    glad_eglQueryDeviceStringEXT =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  if (!eglGetPlatformDisplayEXT)
    glad_eglGetPlatformDisplayEXT =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
}

}  // namespace

EglHeadless::EglHeadless(bool prefer_software) {
  // Client extensions first (no display yet).
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw std::runtime_error(
        "headless: cannot load libEGL.so.1 (install libegl1 and a vendor driver: "
        "Mesa's libegl-mesa0 or NVIDIA's)");
  load_device_entry_points();
  std::string reasons;
  std::array<EGLDeviceEXT, 16> devices{};
  EGLint count = 0;
  if (!eglQueryDevicesEXT || !eglGetPlatformDisplayEXT) {
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    reasons += std::string(
                   "\n  no EGL device platform (eglQueryDevicesEXT / eglGetPlatformDisplayEXT missing); "
                   "client extensions: ") +
               (client ? client : "none");
  } else if (!eglQueryDevicesEXT(static_cast<EGLint>(devices.size()), devices.data(), &count) || count <= 0) {
    reasons += "\n  eglQueryDevicesEXT found no EGL device (" + egl_error_text(eglGetError()) + ")";
    count = 0;
  }

  // The preferred kind first: for the GPU path a device CUDA can share (EGL_NV_device_cuda), then
  // other hardware, then software; for the CPU path Mesa's software device first.
  const auto rank = [&](int i) {
    const std::string ext = query_device(devices[static_cast<std::size_t>(i)], EGL_EXTENSIONS);
    const bool software = ext.find("EGL_MESA_device_software") != std::string::npos;
    const bool cuda = ext.find("EGL_NV_device_cuda") != std::string::npos;
    if (prefer_software) return software ? 0 : 1;
    return cuda ? 0 : software ? 2 : 1;
  };
  std::vector<int> order;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < count; ++i)
      if (rank(i) == r) order.push_back(i);
  for (const int index : order) {
    EGLDeviceEXT device = devices[static_cast<std::size_t>(index)];
    const std::string ext = query_device(device, EGL_EXTENSIONS);
    const std::string tag = "EGL device " + std::to_string(index) + (ext.empty() ? "" : " [" + ext + "]");
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    if (display == EGL_NO_DISPLAY) {
      reasons += "\n  " + tag + ": eglGetPlatformDisplayEXT: " + egl_error_text(eglGetError());
      continue;
    }
    if (try_display(display, "device " + std::to_string(index), tag, reasons)) return;
  }
  // Last resort: the default display (NVIDIA's driver gives a headless one on its default GPU).
  EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display != EGL_NO_DISPLAY && try_display(display, "default display", "EGL default display", reasons)) return;
  throw std::runtime_error("headless: no EGL display gave an OpenGL 4.5 core context:" + reasons);
}

bool EglHeadless::try_display(void* display_handle, const std::string& name, const std::string& tag,
                              std::string& reasons) {
  auto display = static_cast<EGLDisplay>(display_handle);
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) {
    reasons += "\n  " + tag + ": eglInitialize: " + egl_error_text(eglGetError());
    return false;
  }
  gladLoaderLoadEGL(display);  // display extensions (surfaceless, create_context)
  load_device_entry_points();
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                   EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_BIT,
                                   EGL_RED_SIZE,
                                   8,
                                   EGL_GREEN_SIZE,
                                   8,
                                   EGL_BLUE_SIZE,
                                   8,
                                   EGL_ALPHA_SIZE,
                                   8,
                                   EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs < 1 || !eglBindAPI(EGL_OPENGL_API)) {
    reasons += "\n  " + tag + ": no pbuffer RGBA8 OpenGL config (" + egl_error_text(eglGetError()) + ")";
    eglTerminate(display);
    return false;
  }
  const EGLint context_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION,           4,       EGL_CONTEXT_MINOR_VERSION, 5, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) {
    reasons += "\n  " + tag + ": no GL 4.5 core context (" + egl_error_text(eglGetError()) + ")";
    eglTerminate(display);
    return false;
  }
  EGLSurface surface = EGL_NO_SURFACE;
  if (!GLAD_EGL_KHR_surfaceless_context) {
    const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
  }
  const auto give_up = [&](const std::string& why) {
    reasons += "\n  " + tag + ": " + why;
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    eglDestroyContext(display, context);
    eglTerminate(display);
    return false;
  };
  if (!eglMakeCurrent(display, surface, surface, context))
    return give_up("eglMakeCurrent: " + egl_error_text(eglGetError()));
  if (!gladLoadGL(egl_proc)) return give_up("loading GL 4.5 functions failed");
  display_ = display;
  context_ = context;
  surface_ = surface;
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  description_ = "EGL " + std::to_string(major) + "." + std::to_string(minor) + " " + name + ", " +
                 (renderer ? renderer : "?") + ", GL " + (version ? version : "?") +
                 (surface == EGL_NO_SURFACE ? ", surfaceless" : ", pbuffer");
  return true;
}

EglHeadless::~EglHeadless() {
  auto display = static_cast<EGLDisplay>(display_);
  if (!display) return;
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(display, static_cast<EGLSurface>(surface_));
  eglDestroyContext(display, static_cast<EGLContext>(context_));
  eglTerminate(display);
  gladLoaderUnloadEGL();
}

}  // namespace depthsort::app
