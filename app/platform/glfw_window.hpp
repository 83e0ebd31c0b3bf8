// The windowed platform: a GLFW window with a GL 4.5 core context, loaded through GLAD.
#pragma once

#include <string>

struct GLFWwindow;

namespace depthsort::app {

class GlfwWindow {
 public:
  // Throws with a message suggesting --headless when there is no display.
  GlfwWindow(int width, int height, const std::string& title, bool vsync);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;

  GLFWwindow* handle() const noexcept { return window_; }
  bool should_close() const;
  void poll_events() const;
  // Blocks until an event arrives (used while minimised, so a zero-size window neither spins nor draws).
  void wait_events(double timeout_s) const;
  void swap() const;
  void set_vsync(bool on) const;
  void framebuffer_size(int& width, int& height) const;

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace depthsort::app
