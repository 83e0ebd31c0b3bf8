#include "ui/panel.hpp"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>

#include "depthsort/host/count_text.hpp"
#include "platform/stop_signal.hpp"
#include "render/gl.hpp"
#include "ui/controls.hpp"
#include "ui/ui_font.hpp"
#include "ui/ui_text.hpp"

namespace depthsort::app {

namespace {
// The text's height at scale 1: a little above ImGui's 13-pixel bitmap font, as DejaVu Sans is
// drawn smaller for the same size.
constexpr float kFontPixels = 15.0f;
// The panel's width at scale 1, and its largest share of the display.
constexpr float kPanelWidth = 430.0f, kPanelShare = 0.45f;
const ImVec4 kNoteColour(1.0f, 0.8f, 0.3f, 1.0f);
}  // namespace

void wrapped_note(std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kNoteColour);
  ImGui::TextWrapped("%.*s", static_cast<int>(text.size()), text.data());
  ImGui::PopStyleColor();
}

ImGuiLayer::ImGuiLayer(GLFWwindow* window) : window_(window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini dropped in the working folder
  ImGui::StyleColorsDark();
  base_style_ = ImGui::GetStyle();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450 core");
  start(1.0f);
}

// Headless (--panel): no platform backend; the display size and the clock are set by hand and
// the OpenGL3 backend draws into whatever framebuffer is bound (the offscreen target).
ImGuiLayer::ImGuiLayer(int width, int height) : width_(width), height_(height) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  base_style_ = ImGui::GetStyle();
  if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
    ImGui::DestroyContext();
    throw std::runtime_error("--panel: the ImGui OpenGL3 backend could not start on this GL context");
  }
  start(1.0f);
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (window_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::start(float scale) {
  scale_ = 0.0f;
  set_scale(scale);
}

void ImGuiLayer::set_scale(float scale) {
  if (scale == scale_) return;
  scale_ = scale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const std::span<const unsigned char> ttf = ui_font_file();
  ImFontConfig config;
  if (!ttf.empty()) {
    config.FontDataOwnedByAtlas = false;  // the bytes are the binary's own
    config.OversampleH = 2;
    // ImGui takes a writable pointer but only reads the font's bytes when it is not their owner.
    io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(ttf.data()), static_cast<int>(ttf.size()),
                                   kFontPixels * scale, &config);
  } else {
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
  }
  ImGui::GetStyle() = base_style_;
  ImGui::GetStyle().ScaleAllSizes(scale);
  // The backend builds the atlas into its texture on its first frame; after that, anew here.
  if (device_objects_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    if (!ImGui_ImplOpenGL3_CreateFontsTexture()) throw GlError("the panel's font texture could not be made");
    check_gl("ImGui_ImplOpenGL3_CreateFontsTexture", __FILE__, __LINE__);
  }
}

float ImGuiLayer::content_scale() const {
  if (!window_) return 1.0f;
  float x = 1.0f, y = 1.0f;
  glfwGetWindowContentScale(window_, &x, &y);
  return std::max(x, y);
}

void ImGuiLayer::begin_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  device_objects_ = true;
  if (window_) {
    ImGui_ImplGlfw_NewFrame();
    // A window destroyed from outside in the middle of a frame leaves the backend's size reads
    // unanswered (GLFW returns what its stack held: any size, negative or huge); the frame loop
    // stops after this frame, which draws no panel then. The X error those reads raise has
    // reached the handler by now (they wait for the server's answer).
    ImGuiIO& io = ImGui::GetIO();
    if (stop_signal() == kWindowGone || !(io.DisplaySize.x >= 0.0f) || !(io.DisplaySize.y >= 0.0f)) {
      io.DisplaySize = ImVec2(0.0f, 0.0f);
      io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    }
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui::NewFrame();
}

void ImGuiLayer::end_frame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool ImGuiLayer::wants_mouse() const { return ImGui::GetIO().WantCaptureMouse; }
bool ImGuiLayer::typing_text() const { return ImGui::GetIO().WantTextInput; }

void set_separate_passes(Settings& state, bool on) noexcept {
  state.separate_passes = on;
  if (!on) return;
  state.wipe_on = false;
  state.colour = ColourMode::Scene;
}

PanelPlace panel_place(ImVec2 display, float scale) noexcept {
  PanelPlace place;
  place.strip = display.x < 800.0f || display.y < 600.0f;
  const float width = std::min(kPanelWidth * scale, kPanelShare * display.x);
  place.size = ImVec2(std::max(width, 1.0f), std::max(display.y, 1.0f));
  return place;
}

void Panel::header(const Settings& state, const PanelReadout& info) {
  ImGui::TextWrapped("%.*s", static_cast<int>(info.device.size()), info.device.data());
  ImGui::TextWrapped("GL: %.*s", static_cast<int>(info.gl.size()), info.gl.data());
  ImGui::TextWrapped("%.*s", static_cast<int>(info.scene.size()), info.scene.data());
  if (!info.error.empty())
    ImGui::TextColored(ImVec4(1.0f, 0.3f, 0.3f, 1.0f), "%.*s", static_cast<int>(info.error.size()), info.error.data());
  if (!info.notes.empty()) wrapped_note(info.notes);
  if (info.fps > 0) {
    // Amber where the frames are too slow to be interactive; the why and the advice in its
    // tooltip and at the top of the Timings tab.
    const bool slow = !info.slow_frame.empty();
    if (slow) ImGui::PushStyleColor(ImGuiCol_Text, kNoteColour);
    ImGui::Text("%.1f fps (%.1f ms a frame, over the last second)", static_cast<double>(info.fps),
                1000.0 / static_cast<double>(info.fps));
    if (slow) {
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%.*s", static_cast<int>(info.slow_frame.size()), info.slow_frame.data());
    }
  }
  if (info.gpu_path)
    ImGui::Text("GPU memory: %s used of %s; sorter workspace %s",
                byte_text(info.device_bytes_used, ByteUnits::MiB).c_str(),
                byte_text(info.device_bytes_total, ByteUnits::MiB).c_str(),
                byte_text(info.workspace_bytes, ByteUnits::MiB).c_str());
  if (!info.check) return;
  // Correctness light.
  const CheckState& c = *info.check;
  ImVec4 colour(0.5f, 0.5f, 0.5f, 1);
  char text[200] = "order check: off (sorting off: the submission order is drawn)";
  if (state.sort && state.freeze)
    std::snprintf(text, sizeof text, "order check: paused (order frozen; the last one checked was at frame %llu)",
                  static_cast<unsigned long long>(c.frame));
  if (state.sort && !state.freeze) {
    switch (c.light) {
      case CheckLight::None:
      case CheckLight::Pending:
        std::snprintf(text, sizeof text, "order check (is the sorted order back to front?): pending");
        break;
      case CheckLight::Ok:
        colour = ImVec4(0.2f, 0.9f, 0.3f, 1);
        std::snprintf(text, sizeof text,
                      "order check: OK, frame %llu's sorted order is back to front (%llu checks, %llu failed)",
                      static_cast<unsigned long long>(c.frame), static_cast<unsigned long long>(c.checks),
                      static_cast<unsigned long long>(c.failures));
        break;
      case CheckLight::Fail:
        colour = ImVec4(1.0f, 0.2f, 0.2f, 1);
        if (state.separate_passes)
          std::snprintf(text, sizeof text, "ORDER CHECK FAILED at frame %llu: %u mesh, %u particle positions wrong",
                        static_cast<unsigned long long>(c.frame), c.bad_mesh, c.bad_particles);
        else
          std::snprintf(text, sizeof text, "ORDER CHECK FAILED at frame %llu: %u positions wrong",
                        static_cast<unsigned long long>(c.frame), c.bad_mesh);
        break;
    }
  }
  // The light: a filled circle drawn with the draw list (the font has no such glyph).
  const float r = ImGui::GetTextLineHeight() * 0.45f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r, p.y + ImGui::GetTextLineHeight() * 0.5f), r,
                                              ImGui::GetColorU32(colour));
  ImGui::Dummy(ImVec2(2 * r, ImGui::GetTextLineHeight()));
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

void Panel::draw(Settings& state, ButtonPresses& presses, const PanelReadout& info, const Timings& timings, double now,
                 UiText& words) {
  const PanelPlace place = panel_place(ImGui::GetIO().DisplaySize, info.ui_scale);
  // A window too small for the panel gets its title bar alone, a strip over the picture's corner.
  static constexpr const char* kStripTitle = "panel: needs 800x600 (H hides it)###panel";
  const ImVec2 strip(ImGui::CalcTextSize(kStripTitle, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x + 2,
                     ImGui::GetFrameHeight());
  ImGui::SetNextWindowPos(place.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(place.strip ? strip : place.size, ImGuiCond_Always);
  popup_open_ = false;
  const bool open =
      ImGui::Begin(place.strip ? kStripTitle : "depthsort (H hides this panel, F1 the controls)###panel", nullptr,
                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_NoCollapse | (place.strip ? ImGuiWindowFlags_NoScrollbar : 0));
  words.window();
  if (open && !place.strip) {
    header(state, info);
    if (ImGui::BeginTabBar("tabs")) {
      // A run that starts in another transparency mode or the difference view opens on the Draw
      // tab (its first section), once.
      const bool choose_draw = !transparency_tab_chosen_ &&
                               (state.transparency.mode != Transparency::Sorted || state.transparency.difference);
      transparency_tab_chosen_ = true;
      // A tab's content scrolls in a region of its own below the tabs: the header and the tabs
      // stay in view, and a scroll bar appearing with a long tab does not narrow the header,
      // rewrap its lines and move the tabs under the pointer.
      const auto tab = [&](const char* label, const char* mark, bool choose, auto&& content) {
        const bool shown = ImGui::BeginTabItem(label, nullptr, choose ? ImGuiTabItemFlags_SetSelected : 0);
        words.mark(mark);
        if (!shown) return;
        ImGui::BeginChild("tab content");
        content();
        ImGui::EndChild();
        ImGui::EndTabItem();
      };
      tab("Sort", "tab-sort", false, [&] { sort_tab(state, presses, info, timings, now, words); });
      tab("Draw", "tab-draw", choose_draw, [&] { draw_tab(state, info); });
      tab("Scene and camera", "tab-scene", false, [&] { scene_tab(state, presses, words); });
      tab("Timings", "tab-timings", false, [&] { timings_tab(state, info, timings, now, words); });
      ImGui::EndTabBar();
    }
  }
  const ImVec2 corner = ImGui::GetWindowPos(), extent = ImGui::GetWindowSize();
  words.mark("panel", corner, ImVec2(corner.x + extent.x, corner.y + extent.y));
  right_edge_ = place.strip || ImGui::IsWindowCollapsed() ? 0.0f : ImGui::GetWindowPos().x + ImGui::GetWindowSize().x;
  ImGui::End();
}

float Panel::covered_left(int width, bool shown) const noexcept {
  if (!shown || width <= 0) return 0.0f;
  const float covered = right_edge_ / static_cast<float>(width);
  return covered > 0.0f && covered < 0.8f ? covered : 0.0f;
}

void Panel::draw_help(bool& open, UiText& words) {
  if (!open) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  ImGui::Begin("controls (F1 or Esc closes)", &open,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
  words.window();
  if (ImGui::BeginTable("controls", 2)) {
    for (const ControlHelp& c : kControls) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.control);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace depthsort::app
