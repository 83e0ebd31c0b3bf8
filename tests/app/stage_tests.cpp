// The demo on stage, at every window size a presenter meets (800x600, 1366x768, 1920x1080,
// 3840x2160): the real program in a window under Xvfb, driven by real X events (xdotool), read
// back through its screenshot's pixels and --ui-text (the words it drew, and where its controls
// were). Each windowed run checks several things, so that the suite stays short: the "stage" run
// (the default scene, the panel, the timings, N and a double Esc), the "teaching" run (the test
// triangles, the keys that cannot act, colours by rank across the wipe, H, F11 and Esc, Ctrl+Q).
#include <gtest/gtest.h>

#include <imgui.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "depthsort/sort/sorter.hpp"
#include "loop/timings.hpp"
#include "support.hpp"
#include "ui/panel.hpp"
#include "ui/ui_scale.hpp"
#include "ui/ui_text.hpp"

namespace depthsort::app::test {
namespace {

struct Rect {
  float x0 = -1, y0 = -1, x1 = -1, y1 = -1;
  float cx() const { return 0.5f * (x0 + x1); }
  float cy() const { return 0.5f * (y0 + y1); }
  bool found() const { return x1 >= 0; }
};

// The "@name x0 y0 x1 y1" lines of --ui-text (the first of each name).
std::map<std::string, Rect> marks_of(const std::string& words) {
  std::map<std::string, Rect> marks;
  std::istringstream in(words);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '@') continue;
    std::istringstream fields(line.substr(1));
    std::string name;
    Rect r;
    fields >> name >> r.x0 >> r.y0 >> r.x1 >> r.y1;
    marks.emplace(name, r);
  }
  return marks;
}

struct Size {
  int w, h;
  std::string text() const { return std::to_string(w) + "x" + std::to_string(h); }
};

struct StageRun {
  int status = -1;
  std::string output, words;
  Image image;
};

// The program in a window of the screen's size under Xvfb, started with `args`; once its frame
// loop runs, `actions` (sh, with $WID the window) drive it; 30 s after them Ctrl+Q ends a run
// still going, and 150 s after its start it is stopped.
StageRun windowed(const std::string& name, Size size, const std::string& args, const std::string& actions) {
  const std::string png = out_path(name + ".png"), words = out_path(name + ".words"), log = out_path(name + ".txt"),
                    status = out_path(name + ".status"), script = out_path(name + ".sh");
  for (const std::string& f : {png, words, log, status}) std::remove(f.c_str());
  {
    std::ofstream out(script);
    out << "xvfb-run -a -s '-screen 0 " << size.text() << "x24' sh -c '\n"
        << "  timeout 150 \"$0\" --size " << size.text() << " --screenshot \"$1\" --ui-text \"$2\" " << args
        << " > \"$3\" 2>&1 &\n"
        << "  PID=$!\n"
        << "  WID=$(xdotool search --sync --onlyvisible --name \"^depthsort$\" | head -n 1)\n"
        << "  for i in $(seq 150); do grep -q \"^sorter:\" \"$3\" && break; sleep 0.2; done\n"
        << "  sleep 1.5\n"
        << "  xdotool windowfocus --sync $WID || true\n"
        << actions
        // A run that did not end as the keys asked ends here, so that the checks say what was missed.
        << "  for i in $(seq 100); do kill -0 $PID 2>/dev/null || break; sleep 0.3; done\n"
        << "  kill -0 $PID 2>/dev/null && xdotool key --window $WID ctrl+q\n"
        << "  wait $PID\n  echo $? > \"$4\"\n"
        << "' '" << depthsort_bin() << "' '" << png << "' '" << words << "' '" << log << "' '" << status << "'\n";
  }
  std::system(("sh '" + script + "'").c_str());
  StageRun run;
  const std::string code = read_text(status);
  run.status = code.empty() ? -1 : std::atoi(code.c_str());
  run.output = read_text(log);
  run.words = read_text(words);
  try {
    run.image = read_png(png);
  } catch (const std::exception&) {
  }
  return run;
}

// The mouse moved over the picture (keys go to the scene, not the panel).
std::string over_the_picture(Size size) {
  return "  xdotool mousemove --window $WID " + std::to_string(size.w - 20) + " " + std::to_string(size.h / 2) + "\n";
}

// The same program headless with --panel at `size`: its --ui-text.
std::string headless_words(const std::string& name, Size size, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--headless",
                                   "--cpu",
                                   "--panel",
                                   "--size",
                                   size.text(),
                                   "--frames",
                                   "3",
                                   "--ui-text",
                                   out_path(name + ".words"),
                                   "--screenshot",
                                   out_path(name + ".png")};
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult r = run_depthsort(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return read_text(out_path(name + ".words"));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A channel at least 160 of 255 and clearly above the other two: a bright red or blue end of the ramp.
bool bright_red(const std::array<int, 4>& p) { return p[0] >= 160 && p[0] > p[1] + 60 && p[0] > p[2] + 60; }
bool bright_blue(const std::array<int, 4>& p) { return p[2] >= 160 && p[2] > p[0] + 60 && p[2] > p[1] + 40; }
// A triangle's pixel, not the background, the state line's text or the wipe's line.
bool coloured(const std::array<int, 4>& p) { return std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}) > 60; }

class OnStage : public ::testing::TestWithParam<Size> {
 protected:
  void SetUp() override {
    if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  }
};

// The default scene in a window: the fountain is there (the README's first picture), the panel
// runs down the window's whole height at the size's UI scale, laid out exactly as headless
// --panel lays it out; the Timings tab (clicked) shows each phase's figures on a line above its
// plot ("not run" is checked in process, below); O and N with the panel shown: the state line
// says the picture is unsorted, N says on screen why it cannot change the sorter; Esc once shows
// the hint and twice quits, printing the summary.
TEST_P(OnStage, DefaultScenePanelTimingsAndDoubleEsc) {
  const Size size = GetParam();
  const std::string name = "stage_" + size.text();
  const std::string headless = headless_words(name + "_headless", size, {});
  const auto headless_marks = marks_of(headless);
  const Rect timings_tab = headless_marks.count("tab-timings") ? headless_marks.at("tab-timings") : Rect{};
  // Clicked three times, two seconds apart, the pointer moved onto the tab before each: a frame of
  // software GL at 3840x2160 on a loaded machine may outlast one wait (a click on the chosen tab is
  // harmless).
  char click_once[120];
  std::snprintf(click_once, sizeof click_once,
                "  xdotool mousemove --window $WID %.0f %.0f; sleep 0.3; xdotool click 1; sleep 2\n",
                static_cast<double>(timings_tab.cx()), static_cast<double>(timings_tab.cy()));
  const std::string click = std::string(click_once) + click_once + click_once;
  const StageRun run = windowed(name, size, "--cpu",
                                click + over_the_picture(size) +
                                    "  xdotool key o; sleep 0.4; xdotool key n; sleep 0.3\n"
                                    "  xdotool key Escape; sleep 0.3; xdotool key Escape\n");
  ASSERT_EQ(run.status, 0) << run.output;
  // 6: the first run shows the knot and a fountain.
  EXPECT_TRUE(contains(run.words, "torus knot + 5K particles")) << run.words;
  // 5, 4: the panel fills the window's height, at most 45% of its width, its widgets at the UI scale.
  const auto marks = marks_of(run.words);
  ASSERT_TRUE(marks.count("panel")) << run.words;
  const Rect panel = marks.at("panel");
  EXPECT_EQ(panel.y0, 0);
  EXPECT_EQ(panel.y1, static_cast<float>(size.h)) << "the panel does not use the window's height";
  EXPECT_LE(panel.x1, 0.45f * static_cast<float>(size.w) + 1) << "the panel covers too much of the window";
  const float scale = auto_ui_scale(size.w, size.h, 1.0f);
  ASSERT_TRUE(marks.count("tab-timings")) << run.words;
  const float tab_height = marks.at("tab-timings").y1 - marks.at("tab-timings").y0;
  EXPECT_NEAR(tab_height, 21.0f * scale, 2.0f * scale) << "the text is not at the UI scale " << scale;
  // 15: the window's layout is the headless one.
  // (The rows above the tabs differ only by their words: the GL context's line, the frame rate.)
  ASSERT_TRUE(headless_marks.count("panel")) << headless;
  EXPECT_EQ(headless_marks.at("panel").x1, panel.x1);
  EXPECT_EQ(headless_marks.at("panel").y1, panel.y1);
  for (const char* control : {"tab-sort", "tab-draw", "tab-scene", "tab-timings"}) {
    ASSERT_TRUE(headless_marks.count(control)) << control << "\n" << headless;
    EXPECT_EQ(marks.at(control).x0, headless_marks.at(control).x0) << control;
    EXPECT_NEAR(marks.at(control).y1 - marks.at(control).y0,
                headless_marks.at(control).y1 - headless_marks.at(control).y0, 1.0f)
        << control;
  }
  EXPECT_LT(headless.find("order check"), headless.find("Sort Draw Scene and camera Timings")) << headless;
  // 4: the Timings tab: figures on their own line above the plot.
  EXPECT_TRUE(contains(run.words, " ms  (")) << run.words;
  ASSERT_TRUE(marks.count("timing-figures") && marks.count("timing-plot")) << run.words;
  EXPECT_LE(marks.at("timing-figures").y1, marks.at("timing-plot").y0) << "a plot crosses its figures";
  // 2: the state line says the picture is not sorted; N says on screen why it did nothing.
  EXPECT_TRUE(contains(run.words, "NOT SORTED: submission order")) << run.words;
  EXPECT_TRUE(contains(run.words, "key N: the CPU path has only the CPU sorter")) << run.words;
  // 12: the hint after the first Esc is on screen.
  EXPECT_TRUE(contains(run.words, "Esc again within a second quits")) << run.words;
  // 12, 14: the first Esc hints, the second quits; the summary as a headless run prints it.
  const std::size_t hint = run.output.find("key Esc: press Esc again within a second to quit");
  ASSERT_NE(hint, std::string::npos) << run.output;
  EXPECT_LT(hint, run.output.find("key Esc: quit")) << run.output;
  EXPECT_TRUE(contains(run.output, "frames, medians")) << run.output;
  // 2: the state line's words are on screen, below the picture beside the panel.
  ASSERT_EQ(run.image.width, size.w);
  int light = 0;
  for (int y = size.h - static_cast<int>(40 * scale); y < size.h; ++y)
    for (int x = static_cast<int>(panel.x1) + 4; x < std::min(size.w, static_cast<int>(panel.x1 + 500 * scale)); ++x) {
      const auto p = run.image.at(x, y);
      light += p[0] > 200 && p[1] > 150 ? 1 : 0;
    }
  EXPECT_GT(light, static_cast<int>(200 * scale * scale)) << "no state line under the picture";
}

// The test triangles: P, then V and C cannot act and say why; P off, C to rank (by segment is
// skipped on the CPU path, saying why), V, H, F11 and Esc (full screen off, the run goes on),
// Ctrl+Q. The last frame: the wipe's two sides labelled, the same bright colour for the same
// triangle on both sides, the state line with the panel hidden, the triangles whole in the
// window; and beside the panel, headless, whole in the part it leaves free.
TEST_P(OnStage, TeachingKeysRankColoursAndWipe) {
  const Size size = GetParam();
  const std::string name = "teach_" + size.text();
  const StageRun run = windowed(name, size, "--cpu --scene test",
                                over_the_picture(size) +
                                    "  for k in p v c p c c c v h F11; do xdotool key $k; sleep 0.3; done\n"
                                    "  sleep 1; xdotool key Escape; sleep 0.6; xdotool key ctrl+q\n");
  ASSERT_EQ(run.status, 0) << run.output;
  // 1: the keys that cannot act say why (the console's line is the notice's).
  EXPECT_TRUE(contains(run.output, "key V: no wipe: the separate passes draw two orders")) << run.output;
  EXPECT_TRUE(contains(run.output, "key C: the scene's colours only")) << run.output;
  // 11: by segment is skipped where the sorter has no buckets.
  EXPECT_TRUE(contains(run.output, "by segment skipped: the CPU sorter has no buckets")) << run.output;
  EXPECT_FALSE(contains(run.output, "key C: colours by segment")) << run.output;
  // 12: Esc left full screen and did not quit; 14: Ctrl+Q's summary.
  EXPECT_TRUE(contains(run.output, "key Esc: full screen off")) << run.output;
  EXPECT_FALSE(contains(run.output, "key Esc: quit") || contains(run.output, "press Esc again")) << run.output;
  EXPECT_TRUE(contains(run.output, "key Ctrl+Q: quit")) << run.output;
  EXPECT_TRUE(contains(run.output, "frames, medians")) << run.output;
  EXPECT_TRUE(contains(run.output, "order checks:")) << run.output;
  // 2, 3: with the panel hidden, the state line and the wipe's labels are on screen.
  EXPECT_FALSE(contains(run.words, "order check")) << "the panel is still shown: " << run.words;
  EXPECT_TRUE(contains(run.words, "colours by rank: far blue to near red")) << run.words;
  EXPECT_TRUE(contains(run.words, "unsorted: submission order")) << run.words;
  EXPECT_TRUE(contains(run.words, "sorted: back to front")) << run.words;
  // 3: both ends of the ramp bright, on both sides of the wipe (the middle of the window).
  const Image& image = run.image;
  ASSERT_EQ(image.width, size.w) << run.output;
  int red[2] = {0, 0}, blue[2] = {0, 0};
  for (int y = 0; y < size.h; y += 2)
    for (int x = 0; x < size.w; x += 2) {
      if (std::abs(x - size.w / 2) < 4) continue;
      const auto p = image.at(x, y);
      const int side = x < size.w / 2 ? 0 : 1;
      red[side] += bright_red(p) ? 1 : 0;
      blue[side] += bright_blue(p) ? 1 : 0;
    }
  const int enough = size.w * size.h / 4 / 400;
  for (int side = 0; side < 2; ++side) {
    EXPECT_GT(red[side], enough) << (side ? "sorted" : "unsorted") << " side: no bright red (the near end)";
    EXPECT_GT(blue[side], enough) << (side ? "sorted" : "unsorted") << " side: no bright blue (the far end)";
  }
  // 3: the same meaning on both sides: the near triangle's own strip (its bottom edge is the
  // lowest on screen) is red on the unsorted side as on the sorted one.
  for (const int x : {size.w / 2 - size.w / 40, size.w / 2 + size.w / 40}) {
    std::array<int, 4> lowest{};
    for (int y = size.h - size.h / 8; y > size.h / 2; --y)
      if (coloured(image.at(x, y))) {
        lowest = image.at(x, y - 2);
        break;
      }
    EXPECT_TRUE(bright_red(lowest)) << "the near triangle at x = " << x << " is (" << lowest[0] << "," << lowest[1]
                                    << "," << lowest[2] << "), not the ramp's bright near red";
  }
  // 7: the triangles are whole: nothing coloured in the top and bottom rows.
  int cut = 0;
  for (const int y : {1, size.h - 2})
    for (int x = 0; x < size.w; ++x) cut += coloured(image.at(x, y)) ? 1 : 0;
  EXPECT_EQ(cut, 0) << "the test triangles are cut at the window's edge";
  // 7: headless beside the panel: nothing coloured under the panel's right edge or in the top rows.
  headless_words(name + "_panel", size, {"--scene", "test"});
  const Image beside = read_png(out_path(name + "_panel.png"));
  const auto marks = marks_of(read_text(out_path(name + "_panel.words")));
  ASSERT_TRUE(marks.count("panel"));
  const int edge = static_cast<int>(marks.at("panel").x1) + 2;
  int under = 0;
  for (int y = 0; y < size.h; ++y) under += coloured(beside.at(edge, y)) ? 1 : 0;
  for (int x = edge; x < size.w; ++x) under += coloured(beside.at(x, 1)) ? 1 : 0;
  EXPECT_EQ(under, 0) << "the test triangles reach under the panel or the window's edge";
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnStage,
                         ::testing::Values(Size{800, 600}, Size{1366, 768}, Size{1920, 1080}, Size{3840, 2160}),
                         [](const ::testing::TestParamInfo<Size>& info) { return info.param.text(); });

// 14: SIGINT to a windowed run: the summary, as on Esc, and exit status 130.
TEST(OnStageEnd, SigintPrintsTheSummary) {
  if (!have_tool("xvfb-run") || !have_tool("xdotool")) GTEST_SKIP() << "xvfb-run or xdotool not installed";
  const StageRun run = windowed("sigint", Size{800, 600}, "--cpu --scene test",
                                "  kill -INT $(pgrep -n -f -- \"--ui-text $2\") || kill -INT $PID\n  sleep 1\n");
  EXPECT_EQ(run.status, 130) << run.output;
  EXPECT_TRUE(contains(run.output, "stopped by SIGINT after")) << run.output;
  EXPECT_TRUE(contains(run.output, "frames, medians")) << run.output;
  EXPECT_TRUE(contains(run.output, "order checks:")) << run.output;
}

// 9: without an NVIDIA GPU the panel and the console say so, not the CUDA runtime's driver message.
TEST(OnStageWords, NoGpuIsSaidPlainly) {
  if (std::string why; cuda_device_usable(&why)) GTEST_SKIP() << "a CUDA device is here";
  const CommandResult r = run_depthsort({"--headless", "--panel", "--scene", "test", "--size", "800x600", "--frames",
                                         "2", "--ui-text", out_path("nogpu.words")});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string words = read_text(out_path("nogpu.words"));
  if (!contains(words, "NVIDIA")) GTEST_SKIP() << "an NVIDIA driver is loaded here: " << words;
  EXPECT_TRUE(contains(words, "no NVIDIA GPU on this machine")) << words;
  EXPECT_FALSE(contains(words + r.output, "insufficient")) << words << r.output;
}

// The panel drawn in-process at a display size, clicked through ImGui's own input (the test's
// own ImGui context, destroyed with it).
class InProcessPanel {
 public:
  explicit InProcessPanel(ImVec2 display) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display;
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->AddFontDefault();
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  ~InProcessPanel() { ImGui::DestroyContext(); }
  InProcessPanel(const InProcessPanel&) = delete;
  InProcessPanel& operator=(const InProcessPanel&) = delete;

  // One frame at `now` seconds with the mouse at `mouse` (its button down or not, its wheel turned
  // by `wheel` notches): the controls' places.
  std::map<std::string, Rect> frame(ImVec2 mouse = ImVec2(-1, -1), bool down = false, float wheel = 0.0f) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    io.MouseWheel = wheel;
    ImGui::NewFrame();
    words.begin(true);
    panel.draw(settings, presses, readout, timings, now, words);
    words.end();
    ImGui::Render();
    return marks_of(words.text());
  }
  // A click on the control `name` of `marks`; then the frame after it.
  std::map<std::string, Rect> click(const std::map<std::string, Rect>& marks, const std::string& name) {
    const ImVec2 at(marks.at(name).cx(), marks.at(name).cy());
    frame(at, false);
    frame(at, true);
    frame(at, false);
    return frame(at, false);
  }

  Panel panel;
  Settings settings;
  ButtonPresses presses;
  Timings timings;
  UiText words{true};
  PanelReadout readout;
  double now = 1.0;
};

// 16: --help does not call the particles CUDA's; the panel's + doubles the particles (and
// rebuilds), - halves them.
TEST(OnStageWords, HelpAndParticleSteps) {
  EXPECT_FALSE(contains(help_text(), "CUDA-simulated"));
  InProcessPanel ui(ImVec2(1366, 768));
  ui.settings.scene.particles = 5120;
  ui.frame();
  auto marks = ui.frame();  // a tab bar lays its tabs out on its second frame
  ASSERT_TRUE(marks.count("tab-scene"));
  marks = ui.click(marks, "tab-scene");
  ASSERT_TRUE(marks.count("particles-plus")) << ui.words.text();
  ui.click(marks, "particles-plus");
  EXPECT_EQ(ui.settings.scene.particles.value_or(0), 10240u);
  EXPECT_TRUE(ui.presses.rebuild_scene);
}

// A note that frames are too slow, found after the first frame, leaves the tabs where they were
// (a click aimed at a tab must not land on the control that took its place); the note is at the
// top of the Timings tab, with the figures of a frame that took longer than a second.
TEST(OnStageWords, ASlowFrameNoteLeavesTheTabsInPlace) {
  InProcessPanel ui(ImVec2(800, 600));
  ui.timings.add("frame", "draw", 1500.0f, 0.0, 0);
  ui.readout.fps = 0.7f;
  ui.readout.notes =
      "CPU path: the default knot is scaled down to 20000 triangles (from 2000000 on the GPU path) to stay "
      "interactive; --triangles N overrides. A second note of some length, as a run may carry: the mesh was recentred "
      "and scaled, its material file had no colours, and the particles were halved to fit the memory here.";
  ui.now = 3.0;
  ui.frame();
  const auto before = ui.frame();
  ASSERT_TRUE(before.count("tab-timings")) << ui.words.text();
  ui.readout.slow_frame =
      "note: a frame takes 1500 ms on the CPU path, too slow to be interactive; the draw takes 1500 ms";
  const auto after = ui.frame();
  ASSERT_TRUE(after.count("tab-timings")) << ui.words.text();
  EXPECT_EQ(after.at("tab-timings").y0, before.at("tab-timings").y0) << ui.words.text();
  // A Timings tab longer than the panel scrolls below the tabs: scrolled, the header and the tabs
  // stay where they were (and a scroll bar does not narrow the header and rewrap its notes).
  for (int i = 0; i < 30; ++i) ui.timings.add("sort", "step " + std::to_string(i), 1.0f, 0.0, 0);
  const auto clicked = ui.click(after, "tab-timings");
  const std::string shown = ui.words.text();
  const ImVec2 content(clicked.at("tab-timings").cx(), 500.0f);
  ui.frame(content, false, -20.0f);
  const auto scrolled = ui.frame(content);
  ASSERT_TRUE(scrolled.count("tab-timings")) << ui.words.text();
  EXPECT_EQ(scrolled.at("tab-timings").y0, before.at("tab-timings").y0) << ui.words.text();
  ASSERT_TRUE(scrolled.count("timing-figures")) << ui.words.text();
  EXPECT_LT(scrolled.at("timing-figures").y1, scrolled.at("tab-timings").y0) << "the tab did not scroll";
  EXPECT_TRUE(contains(shown, "too slow to be interactive")) << shown;
  EXPECT_TRUE(contains(shown, "1500.000 ms")) << shown;  // 2 s after that frame: still its figures
}

// 13: a phase that did no work in the frames shown (timed at zero, or not in the newest frame
// where frames are slow) says "not run" in the Timings tab.
TEST(OnStageWords, ATimingsRowThatDidNoWorkSaysNotRun) {
  InProcessPanel ui(ImVec2(1366, 768));
  for (int f = 0; f < 3; ++f) {
    ui.timings.add("frame", "depth", 0.25f, 0.1 * f, f);
    ui.timings.add("frame", "gather", 0.0f, 0.1 * f, f);
  }
  ui.now = 0.3;
  ui.frame();
  ui.click(ui.frame(), "tab-timings");
  const std::string shown = ui.words.text();
  EXPECT_TRUE(contains(shown, "depth          0.250 ms  (0.250..0.250)")) << shown;
  EXPECT_TRUE(contains(shown, "gather       not run")) << shown;
}

}  // namespace
}  // namespace depthsort::app::test
