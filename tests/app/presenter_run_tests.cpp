// The demo in front of an audience, run as a program: the window under Xvfb driven with real X
// input events (xdotool), output through a pipe and a stop by SIGTERM, the CPU path's notes, and
// the headless panel's framing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace depthsort::app::test {
namespace {

// Runs `script` (sh) with DEPTHSORT set to the program; returns sh's exit status.
int run_script(const std::string& name, const std::string& script) {
  const std::string path = out_path(name + ".sh");
  {
    std::ofstream out(path);
    out << "set -u\nDEPTHSORT='" << depthsort_bin() << "'\nOUT='" << out_path("") << "'\n" << script;
  }
  const int raw = std::system(("sh '" + path + "'").c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// The windowed demo under Xvfb (800x600), started in the background; `actions` (sh, with $WID
// the window and $PID the program) drive it with xdotool. The program's output goes to
// NAME.txt, its exit status to NAME.status; it is given 90 s before it is stopped.
std::string windowed_script(const std::string& name, const std::string& args, const std::string& actions) {
  return "xvfb-run -a -s '-screen 0 1024x768x24' sh -c '\n"
         "  timeout 90 \"$0\" " +
         args + " > \"$1/" + name +
         ".txt\" 2>&1 &\n"
         "  PID=$!\n"
         "  WID=$(xdotool search --sync --onlyvisible --name \"^depthsort$\" | head -n 1)\n"
         "  sleep 1.5\n"
         "  xdotool mousemove --window $WID 600 300\n"
         "  xdotool windowfocus --sync $WID || true\n" +
         actions +
         "  wait $PID\n"
         "  echo $? > \"$1/" +
         name +
         ".status\"\n"
         "' \"$DEPTHSORT\" \"$OUT\"\n";
}

int status_of(const std::string& name) {
  const std::string text = read_text(out_path(name + ".status"));
  return text.empty() ? -1 : std::atoi(text.c_str());
}

struct WindowedRun {
  int status = -1;
  std::string output;
};

// The demo in a window under Xvfb (the CPU path, a 5K-triangle knot, 640x400 unless `size` says
// otherwise, its last frame to NAME.png), driven by `actions` (see windowed_script).
WindowedRun run_windowed(const std::string& name, const std::string& actions, const std::string& size = "640x400") {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) return {};
  const std::string png = out_path(name + ".png");
  std::remove(png.c_str());
  run_script(name, windowed_script(name, "--cpu --triangles 5K --size " + size + " --screenshot " + png, actions));
  return {status_of(name), read_text(out_path(name + ".txt"))};
}

// ImGui's title bar (dark style: active (41, 74, 122), inactive (10, 10, 10)) in the top rows.
int title_bar_pixels(const Image& image) {
  int n = 0;
  for (int y = 1; y < 16; ++y)
    for (int x = 20; x < 300; ++x) {
      const auto p = image.at(x, y);
      const bool active = std::abs(p[0] - 41) <= 6 && std::abs(p[1] - 74) <= 6 && std::abs(p[2] - 122) <= 6;
      const bool inactive = std::abs(p[0] - 10) <= 2 && std::abs(p[1] - 10) <= 2 && std::abs(p[2] - 10) <= 2;
      n += active || inactive ? 1 : 0;
    }
  return n;
}

// Resized to 1x1 and to 50x50 and back, the panel's title bar (a strip at this size) and left
// edge are inside the window again; Esc twice then quits (the screenshot is the last frame).
TEST(Presenter, PanelStaysInsideTheWindowThroughResizes) {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const auto [status, output] = run_windowed("resized",
                                             "  xdotool windowsize $WID 1 1; sleep 1\n"
                                             "  xdotool windowsize $WID 640 400; sleep 1\n"
                                             "  xdotool windowsize $WID 50 50; sleep 1\n"
                                             "  xdotool windowsize $WID 640 400; sleep 1.5\n"
                                             "  xdotool key Escape; sleep 0.3; xdotool key Escape\n");
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("key Esc: quit"), std::string::npos) << output;
  const Image image = read_png(out_path("resized.png"));
  ASSERT_EQ(image.width, 640);
  EXPECT_GT(title_bar_pixels(image), 1500) << "the panel's title bar is not inside the window";
}

// The presenter keys, as real X key events: F1 opens the help and Esc closes it (without
// quitting), Space freezes, O toggles sorting, C the colours, H hides the panel, N finds no other
// sorter on the CPU path, R resets the camera, Ctrl+Q quits.
TEST(Presenter, KeysAsRealXEvents) {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const auto [status, output] =
      run_windowed("keys",
                   "  for k in F1 Escape space o o c h n r; do xdotool key $k; sleep 0.4; done\n"
                   "  sleep 0.5\n"
                   "  xdotool key ctrl+q\n");
  ASSERT_EQ(status, 0) << output;
  for (const char* line : {"key Space: order frozen on", "key O: sorting off", "key O: sorting on",
                           "key C: colours by rank", "key H: panel hidden",
                           "key N: the CPU path has only the CPU sorter", "key R: camera reset", "key Ctrl+Q: quit"})
    EXPECT_NE(output.find(line), std::string::npos) << line << "\n" << output;
  EXPECT_EQ(output.find("key Esc: quit"), std::string::npos) << "Esc quit instead of closing the help: " << output;
  const Image image = read_png(out_path("keys.png"));
  EXPECT_LT(title_bar_pixels(image), 50) << "H did not hide the panel";
}

// Esc with the sorter list open closes the list and the run goes on (O still acts); the next
// two quit. The list (the panel's "sorter" combo) is at (130, 268) in an 800x600 window.
TEST(Presenter, EscClosesAnOpenListBeforeQuitting) {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const auto [status, output] =
      run_windowed("list",
                   "  xdotool mousemove --window $WID 130 268; sleep 0.3; xdotool click 1; sleep 1\n"
                   "  xdotool key Escape; sleep 0.5\n"
                   "  xdotool mousemove --window $WID 700 300; sleep 0.3\n"
                   "  xdotool key o; sleep 0.5\n"
                   "  xdotool key Escape; sleep 0.3; xdotool key Escape\n",
                   "800x600");
  ASSERT_EQ(status, 0) << output;
  const std::size_t sorting_off = output.find("key O: sorting off"), quit = output.find("key Esc: quit");
  ASSERT_NE(sorting_off, std::string::npos) << "the first Esc did not leave the run going: " << output;
  EXPECT_LT(sorting_off, quit) << output;
  EXPECT_EQ(output.find("key Esc: quit", quit + 1), std::string::npos) << output;
}

// A window destroyed from outside (as a window manager's kill does) ends the run as a closed
// window does: exit status 0 and a line saying so, not Xlib's exit(1) with an X error dump.
TEST(Presenter, WindowDestroyedFromOutsideEndsCleanly) {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const auto [status, output] =
      run_windowed("destroyed",
                   // once running (the frame loop), not while it sets up
                   "  for i in $(seq 100); do grep -q \"^sorter:\" \"$1/destroyed.txt\" && break; sleep 0.2; done\n"
                   "  sleep 1; xdotool windowclose $WID\n");
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("the window was lost after"), std::string::npos) << output;
  EXPECT_NE(output.find("frames, medians"), std::string::npos) << "no summary after the window was closed: " << output;
  EXPECT_EQ(output.find("X Error"), std::string::npos) << output;
}

// Piped output arrives line by line while the program runs (20000 frames of a scene that takes
// tens of milliseconds a frame here: minutes); SIGTERM ends it with the summary,
// the --json of the frames run and exit status 143.
TEST(Presenter, PipedOutputAndSigterm) {
  const std::string json = out_path("stopped.json");
  std::remove(json.c_str());
  const int status = run_script(
      "stopped",
      "rm -f \"$OUT/stopped.fifo\"; mkfifo \"$OUT/stopped.fifo\"\n"
      "cat \"$OUT/stopped.fifo\" > \"$OUT/stopped.txt\" &\n"
      "CAT=$!\n"
      "\"$DEPTHSORT\" --headless --cpu --triangles 20K --particles 100K --size 160x120 --frames 20000 --json '" +
          json +
          "' > \"$OUT/stopped.fifo\" 2>&1 &\n"
          "PID=$!\n"
          "sleep 3\n"
          "cp \"$OUT/stopped.txt\" \"$OUT/stopped.early.txt\"\n"
          "kill -TERM $PID\n"
          "wait $PID; echo $? > \"$OUT/stopped.status\"\n"
          "wait $CAT\n");
  ASSERT_EQ(status, 0);
  const std::string early = read_text(out_path("stopped.early.txt")), output = read_text(out_path("stopped.txt"));
  EXPECT_NE(early.find("scene: torus knot"), std::string::npos)
      << "nothing arrived through the pipe while running: " << early;
  EXPECT_EQ(status_of("stopped"), 143) << output;
  EXPECT_NE(output.find("stopped by SIGTERM after"), std::string::npos) << output;
  EXPECT_NE(output.find("frames, medians (ms)"), std::string::npos) << output;
  EXPECT_NE(output.find("order checks:"), std::string::npos) << output;
  std::ifstream in(json);
  ASSERT_TRUE(in.good()) << "no --json after SIGTERM";
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_GT(doc["meta"]["frames"].get<int>(), 0);
}

TEST(Presenter, CpuPathSaysWhatNeedsAGpu) {
  const CommandResult r = run_depthsort(
      {"--headless", "--cpu", "--scene", "test", "--size", "64x64", "--frames", "2", "--colour", "segment"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("need a CUDA GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--colour segment: the CPU sorter has no buckets"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("too slow to be interactive"), std::string::npos) << r.output;
}

TEST(Presenter, ASceneTooLargeToBeInteractiveSaysSo) {
  const CommandResult r = run_depthsort(
      {"--headless", "--cpu", "--particles", "1M", "--size", "160x120", "--frames", "2", "--check-every", "100"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("too slow to be interactive; the draw takes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("a CUDA GPU sorts millions"), std::string::npos) << "the note blames the sort: " << r.output;
  EXPECT_NE(r.output.find("--particles "), std::string::npos) << r.output;
}

// Headless --panel: the scene is centred in the part of the frame the panel leaves free (the
// panel spans x 0..430 of 1024), whole there (a part narrower than 4:3 shows it smaller), not
// behind the panel.
TEST(Presenter, SceneIsCentredBesideThePanel) {
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--scene", "mixed", "--size", "1024x640", "--frames", "3", "--quiet",
                     "--panel", "--no-state-line", "--screenshot", out_path("centred_panel.png")});
  ASSERT_EQ(r.status, 0) << r.output;
  const Image with = read_png(out_path("centred_panel.png"));
  constexpr int kPanel = 430;
  int lo = with.width, hi = -1;
  for (int y = 0; y < with.height; ++y)
    for (int x = kPanel + 2; x < with.width; ++x) {
      const auto p = with.at(x, y);
      if (p[0] + p[1] + p[2] <= 30) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  ASSERT_GT(hi, lo) << "nothing drawn beside the panel";
  EXPECT_GT(lo, kPanel + 10) << "the scene reaches under the panel";
  EXPECT_LT(hi, with.width - 10) << "the scene is cut at the right edge";
  EXPECT_NEAR(0.5 * (lo + hi), 0.5 * (kPanel + with.width), 0.1 * (with.width - kPanel)) << lo << ".." << hi;
}

}  // namespace
}  // namespace depthsort::app::test
