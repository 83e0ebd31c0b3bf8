#include "platform/glfw_window.hpp"

#include <glad/gl.h>
#include <GLFW/glfw3.h>

#include <stdexcept>

#include "platform/stop_signal.hpp"

#if DEPTHSORT_HAVE_X11
#include <X11/Xlib.h>
// GLFW's X11 accessors (libglfw exports them), declared here: glfw3native.h would also need the
// XRandR headers, which nothing else here uses.
extern "C" Display* glfwGetX11Display(void);
extern "C" Window glfwGetX11Window(GLFWwindow* window);
#endif

namespace depthsort::app {

namespace {
#if DEPTHSORT_HAVE_X11
// A window destroyed from outside (a window manager's kill, `xdotool windowclose`) makes the
// next call on it an X protocol error, which Xlib's default handler answers with exit(1) and a
// dump. This one ends the run as a closed window does. GLFW resets the handler to Xlib's after
// the calls that grab it (window creation, the monitor switch): installed again after those.
// Any error: BadWindow, BadDrawable or GLX's own codes, whichever call meets the gone window first.
int on_x_error(Display*, XErrorEvent*) {
  request_stop(kWindowGone);
  return 0;
}
void keep_x_errors_quiet() { XSetErrorHandler(on_x_error); }
#else
void keep_x_errors_quiet() {}
#endif

std::string last_glfw_error() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  return code == GLFW_NO_ERROR ? std::string("no GLFW error") : std::string(description ? description : "?");
}
}  // namespace

GlfwWindow::GlfwWindow(int width, int height, const std::string& title, bool vsync) {
  if (!glfwInit())
    throw std::runtime_error("no display: GLFW could not initialise (" + last_glfw_error() +
                             "); run with --headless (add --screenshot out.png to see a frame)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string why = last_glfw_error();
    glfwTerminate();
    throw std::runtime_error("cannot open a window with an OpenGL 4.5 core context (" + why +
                             "); run with --headless instead");
  }
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw std::runtime_error("loading OpenGL 4.5 core functions through GLFW failed");
  }
  set_vsync(vsync);
  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, &GlfwWindow::on_key);
  keep_x_errors_quiet();
}

void GlfwWindow::on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
  if (!self || action != GLFW_PRESS || self->key_count_ == kKeyQueue) return;
  self->keys_[self->key_count_++] = PressedKey{key, mods};
}

std::size_t GlfwWindow::take_keys(std::array<PressedKey, kKeyQueue>& out) {
  const std::size_t n = key_count_;
  for (std::size_t i = 0; i < n; ++i) out[i] = keys_[i];
  key_count_ = 0;
  return n;
}

void GlfwWindow::request_close() const { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

bool GlfwWindow::set_fullscreen(bool on) {
  GLFWmonitor* current = glfwGetWindowMonitor(window_);
  if (on == (current != nullptr)) return true;
  if (on) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) return false;  // no monitor to fill: stay windowed
    glfwGetWindowPos(window_, &windowed_x_, &windowed_y_);
    glfwGetWindowSize(window_, &windowed_w_, &windowed_h_);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else {
    glfwSetWindowMonitor(window_, nullptr, windowed_x_, windowed_y_, windowed_w_, windowed_h_, GLFW_DONT_CARE);
  }
  keep_x_errors_quiet();
  return true;
}

GlfwWindow::~GlfwWindow() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool GlfwWindow::should_close() const { return glfwWindowShouldClose(window_) != 0; }
void GlfwWindow::poll_events() const { glfwPollEvents(); }
void GlfwWindow::wait_events(double timeout_s) const { glfwWaitEventsTimeout(timeout_s); }
void GlfwWindow::swap() const { glfwSwapBuffers(window_); }
void GlfwWindow::set_vsync(bool on) const { glfwSwapInterval(on ? 1 : 0); }
void GlfwWindow::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

bool GlfwWindow::lost() const {
#if DEPTHSORT_HAVE_X11
  if (Display* display = glfwGetX11Display()) {
    XWindowAttributes attributes{};
    XGetWindowAttributes(display, glfwGetX11Window(window_), &attributes);  // BadWindow once destroyed
    XSync(display, False);
  }
#endif
  return stop_signal() == kWindowGone;
}

}  // namespace depthsort::app
