// The windowed platform: a GLFW window with a GL 4.5 core context, loaded through GLAD.
#pragma once

#include <array>
#include <cstddef>
#include <string>

struct GLFWwindow;

namespace depthsort::app {

// A key press as GLFW reported it (key code and modifier bits), queued by the key callback so
// that a press and release between two frames is not lost.
struct PressedKey {
  int key = 0, mods = 0;
};

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
  // Whether the window is gone (destroyed from outside): a round trip to the X server brings any
  // X error on it to the handler that notes it; without X, whether one was noted already.
  bool lost() const;
  // Asks the loop to end (the window's close button does the same).
  void request_close() const;
  // Full screen on the primary monitor, or back to the window's size and place before it; false
  // where there is no monitor to fill (some virtual displays).
  bool set_fullscreen(bool on);

  // The key presses since the last call (at most kKeyQueue a frame; more are dropped). The
  // callback is installed before ImGui's, which chains to it.
  static constexpr std::size_t kKeyQueue = 32;
  std::size_t take_keys(std::array<PressedKey, kKeyQueue>& out);

 private:
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  GLFWwindow* window_ = nullptr;
  std::array<PressedKey, kKeyQueue> keys_{};
  std::size_t key_count_ = 0;
  int windowed_x_ = 0, windowed_y_ = 0, windowed_w_ = 0, windowed_h_ = 0;  // before full screen
};

}  // namespace depthsort::app
