// Nothing lost and nothing silently wrong, tried as a hostile user would: repeated flags, a scene
// of one kind of primitive, outputs that meet through links or name the program, FIFOs as
// outputs, the shell's limits and signals, memory the estimate must foresee, and crashes that
// must still say what was being done. Every case runs the real program on the CPU path.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"
#include "support/run_command.hpp"

extern char** environ;

namespace depthsort::app::test {
namespace {

namespace fs = std::filesystem;

// AddressSanitizer reserves terabytes of address space for its shadow as a program starts, so a
// build with it cannot start under `ulimit -v` at all: the address-space tests skip there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
constexpr const char* kNoAddressLimit = "AddressSanitizer's shadow memory does not fit under ulimit -v";

const std::vector<std::string> kTiny = {"--headless", "--cpu", "--frames", "2", "--size", "64x64"};

std::vector<std::string> tiny(std::vector<std::string> more) {
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

fs::path fresh_folder(const std::string& name) {
  const fs::path folder = fs::path(out_path("reliability")) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::string kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

// A bash script, its stdout and stderr together.
CommandResult shell(const std::string& script) {
  const auto r = depthsort::testing::run_command({"bash", "-c", script}, "");
  return CommandResult{r.status, r.output};
}

std::string quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const std::vector<std::string>& args) {
  std::string line = quoted(DEPTHSORT_BIN);
  for (const std::string& a : args) line += " " + quoted(a);
  return line;
}

// Starts the program with every signal at its default action (as from a terminal, not as a
// background job of a shell, which ignores SIGINT), its output to `log`.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> words{DEPTHSORT_BIN};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  EXPECT_EQ(error, 0);
  return pid;
}

int exit_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Whether `log` has a line starting with `start` within `limit`.
bool wait_for_line(const fs::path& log, const std::string& start, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const std::string text = "\n" + read_text(log);
    if (text.find("\n" + start) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool no_temporary_files(const fs::path& folder) {
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().find(".tmp") != std::string::npos) return false;
  return true;
}

// ------------------------------------------------------------------ repeatable and single flags

TEST(Reliability, EveryMeshGivenIsReadAndChecked) {
  const fs::path dir = fresh_folder("meshes");
  write(dir / "a.obj", kTriangle);
  write(dir / "b.obj", kTriangle + "v 1 1 0\nf 2 4 3\n");
  const std::string a = (dir / "a.obj").string(), b = (dir / "b.obj").string();
  CommandResult r = run_depthsort(tiny({"--mesh", a, "--mesh", b}));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("scene: 2 OBJ files (3 triangles)"), std::string::npos) << r.output;
  // An output naming the second mesh is refused, the mesh kept.
  r = run_depthsort(tiny({"--mesh", a, "--mesh", b, "--json", b}));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--json '" + b + "' is the same file as --mesh '" + b + "'"), std::string::npos) << r.output;
  EXPECT_EQ(read_text(b), kTriangle + "v 1 1 0\nf 2 4 3\n");
  // A second mesh that is missing, or empty, is an error.
  r = run_depthsort(tiny({"--mesh", a, "--mesh", (dir / "missing.obj").string()}));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("missing.obj: no such file"), std::string::npos) << r.output;
  r = run_depthsort(tiny({"--mesh", a, "--mesh", ""}));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--mesh needs a file name"), std::string::npos) << r.output;
}

TEST(Reliability, ASingleValueFlagGivenTwiceIsAnError) {
  const fs::path dir = fresh_folder("repeated");
  const std::string a = (dir / "a.png").string(), b = (dir / "b.png").string();
  const std::vector<std::vector<std::string>> cases = {
      {"--headless", "--cpu", "--size", "64x64", "--frames", "abc", "--frames", "2"},
      {"--headless", "--cpu", "--frames", "2", "--size", "0x0", "--size", "64x64"},
      {"--headless", "--cpu", "--frames", "2", "--size", "64x64", "--sorter", "nope", "--sorter", "cpu"},
      {"--headless", "--cpu", "--frames", "2", "--size", "64x64", "--scene", "test", "--screenshot", a, "--screenshot",
       b},
      {"--headless", "--cpu", "--frames", "2", "--size", "64x64", "--scene", "test", "--scene", "none"},
      {"--headless", "--cpu", "--frames", "2", "--size", "64x64", "--opacity=0.5", "--opacity", "0.5"}};
  for (const auto& args : cases) {
    const CommandResult r = run_depthsort(args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex("--[a-z]+ given 2 times \\(.*\\); it takes one value")))
        << r.output;
  }
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
}

// ------------------------------------------------------------------ scenes of one kind

TEST(Reliability, EveryMixOfPrimitiveKindsRunsWithEveryOrder) {
  const fs::path dir = fresh_folder("kinds");
  for (const char* scene : {"none", "test", "knot"})
    for (const char* particles : {"0", "3"})
      for (const bool separate : {false, true})
        for (const bool sort : {true, false}) {
          std::vector<std::string> args =
              tiny({"--scene", scene, "--particles", particles, "--json", (dir / "frame.json").string()});
          if (std::string(scene) == "knot") args.insert(args.end(), {"--triangles", "300"});
          if (separate) args.push_back("--separate-passes");
          if (!sort) args.push_back("--no-sort");
          fs::remove(dir / "frame.json");
          const CommandResult r = run_depthsort(args);
          EXPECT_EQ(r.status, 0) << scene << " particles " << particles << (separate ? " separate" : "")
                                 << (sort ? "" : " no-sort") << ":\n"
                                 << r.output;
          EXPECT_TRUE(fs::exists(dir / "frame.json")) << scene << " particles " << particles;
        }
}

// ------------------------------------------------------------------ outputs resolved once

TEST(Reliability, OutputsMeetingThroughALinkToAFileNotYetThereAreRefused) {
  const fs::path dir = fresh_folder("dangling");
  fs::create_symlink("x.png", dir / "lnk.png");
  fs::create_symlink("lnk.png", dir / "chain.json");
  for (const char* json : {"lnk.png", "chain.json"}) {
    const CommandResult r = run_depthsort(
        tiny({"--scene", "test", "--screenshot", (dir / "x.png").string(), "--json", (dir / json).string()}));
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("is the same file as --screenshot"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
  }
}

TEST(Reliability, TheProgramNeverReplacesItself) {
  const fs::path dir = fresh_folder("self");
  // A copy of the program, so that a failure of this test cannot destroy the build's own.
  const fs::path copy = dir / "depthsort-copy";
  fs::copy_file(DEPTHSORT_BIN, copy);
  const std::string before = read_text(copy);
  for (const std::string& out : {copy.string(), std::string("/proc/self/exe")})
    for (const char* flag : {"--json", "--screenshot"}) {
      const auto r = depthsort::testing::run_command(
          {copy.string(), "--headless", "--cpu", "--frames", "2", "--size", "64x64", "--scene", "test", flag, out}, "");
      EXPECT_EQ(r.status, 2) << r.output;
      EXPECT_NE(r.output.find("is the same file as the running program"), std::string::npos) << r.output;
    }
  EXPECT_TRUE(read_text(copy) == before) << "the program was replaced";
}

TEST(Reliability, AFifoOutputIsOpenedOnceAndWrittenWhole) {
  const fs::path dir = fresh_folder("fifo");
  const fs::path fifo = dir / "frame.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    received = read_text(fifo);  // one open: everything up to the writer's close
  });
  const CommandResult r = run_depthsort(tiny({"--scene", "test", "--json", fifo.string()}), "timeout 60");
  reader.join();
  EXPECT_EQ(r.status, 0) << r.output;
  ASSERT_FALSE(received.empty()) << "the reader saw an end of file before the JSON";
  EXPECT_TRUE(nlohmann::json::accept(received)) << received.substr(0, 200);
  // Nobody reading: refused after a bounded wait, naming the FIFO, nothing run.
  const auto start = std::chrono::steady_clock::now();
  const CommandResult alone = run_depthsort(tiny({"--scene", "test", "--json", fifo.string()}), "timeout 60");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(alone.status, 1) << alone.output;
  EXPECT_NE(alone.output.find("it is a FIFO and nothing opened it for reading"), std::string::npos) << alone.output;
}

TEST(Reliability, AnOutputNameNearTheFileSystemsLimitIsWritten) {
  const fs::path dir = fresh_folder("long_names");
  for (const std::size_t length : {244u, 250u, 255u}) {
    const fs::path json = dir / (std::string(length - 5, 'j') + ".json");
    const CommandResult r = run_depthsort(tiny({"--scene", "test", "--json", json.string()}));
    EXPECT_EQ(r.status, 0) << length << ": " << r.output;
    EXPECT_TRUE(fs::exists(json)) << length;
  }
  EXPECT_TRUE(no_temporary_files(dir));
}

// ------------------------------------------------------------------ limits and signals

TEST(Reliability, AFileSizeLimitIsAReasonNotADeath) {
  const fs::path dir = fresh_folder("ulimit_f");
  const std::string json = (dir / "frame.json").string(), png = (dir / "frame.png").string();
  // 1 KiB (bash's unit; sh's is 512 bytes): the 64x64 PNG of the test scene fits, the JSON of 2
  // frames does not.
  const CommandResult r = run_depthsort(tiny({"--scene", "test", "--json", json, "--screenshot", png}),
                                        "bash -c 'ulimit -f 1; exec \"$0\" \"$@\"'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--json: cannot write '" + json + "': File too large"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(json));
  EXPECT_TRUE(fs::exists(png)) << "the output that fits is still written";
  EXPECT_TRUE(no_temporary_files(dir));
}

TEST(Reliability, AClosedPipeOnStdoutCostsNoOutput) {
  const fs::path dir = fresh_folder("closed_pipe");
  const std::string json = (dir / "p.json").string(), png = (dir / "p.png").string();
  // The shell's status is the program's: the pipe closed under it is no failure of the run.
  const CommandResult r = shell("set -o pipefail; " +
                                command_line({"--headless", "--cpu", "--frames", "30", "--size", "64x64", "--scene",
                                              "test", "--json", json, "--screenshot", png}) +
                                " | head -c 1 >/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(json)) << r.output;
  EXPECT_TRUE(fs::exists(png)) << r.output;
}

TEST(Reliability, EverySignalThatWouldEndTheRunEndsItWithItsOutputs) {
  const fs::path dir = fresh_folder("signals");
  for (const int signal : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGALRM}) {
    const fs::path json = dir / ("s" + std::to_string(signal) + ".json");
    const pid_t pid = spawn(
        {"--headless", "--cpu", "--size", "64x64", "--scene", "test", "--frames", "50000", "--json", json.string()},
        dir / "log");
    // Signalled once its frames run (the opening's "sorter:" line said; on a loaded machine the
    // start alone can take seconds, and a signal before the frames leaves no outputs to check).
    ASSERT_TRUE(wait_for_line(dir / "log", "sorter:", std::chrono::seconds(60))) << read_text(dir / "log");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::kill(pid, signal);
    EXPECT_EQ(exit_status(pid), 128 + signal) << signal << ": " << read_text(dir / "log");
    EXPECT_TRUE(fs::exists(json)) << signal << ": " << read_text(dir / "log");
  }
  EXPECT_TRUE(no_temporary_files(dir));
}

TEST(Reliability, ASignalEndsAWaitForAFifo) {
  const fs::path dir = fresh_folder("fifo_wait");
  ASSERT_EQ(::mkfifo((dir / "in.obj").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir / "out.json").c_str(), 0600), 0);
  for (const std::vector<std::string>& waiting :
       {std::vector<std::string>{"--mesh", (dir / "in.obj").string()},
        std::vector<std::string>{"--scene", "test", "--json", (dir / "out.json").string()}}) {
    std::vector<std::string> args = kTiny;
    args.insert(args.end(), waiting.begin(), waiting.end());
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = spawn(args, dir / "log");
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(pid, SIGINT);
    EXPECT_EQ(exit_status(pid), 130) << read_text(dir / "log");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "waited the full 10 s";
    EXPECT_NE(read_text(dir / "log").find("stopped by SIGINT while waiting"), std::string::npos)
        << read_text(dir / "log");
  }
}

// ------------------------------------------------------------------ memory foreseen

// The program's room under an address-space limit of `kib`, as its estimate line reports it.
std::uint64_t room_under(std::uint64_t kib) {
  const CommandResult r = run_depthsort(tiny({"--scene", "test"}), "ulimit -v " + std::to_string(kib) + ";");
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex("host of ([0-9.]+) (MiB|GiB) available"))) return 0;
  const double value = std::stod(m[1]);
  return static_cast<std::uint64_t>(value * (m[2] == "GiB" ? 1024.0 : 1.0) * 1024.0);  // KiB
}

TEST(Reliability, AFramebufferAndItsScreenshotAreInTheEstimate) {
  if (kAddressSanitizer) GTEST_SKIP() << kNoAddressLimit;
  const fs::path dir = fresh_folder("big_frame");
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--frames", "1", "--size", "16384x16384", "--scene",
                                         "test", "--screenshot", (dir / "big.png").string()},
                                        "ulimit -v 3000000;");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("16384x16384 frame with its screenshot needs about"), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(Reliability, AnInputTooLargeForTheMemoryIsRefusedWithTheNumbers) {
  if (kAddressSanitizer) GTEST_SKIP() << kNoAddressLimit;
  const fs::path dir = fresh_folder("big_input");
  constexpr std::uint64_t kLimit = 3'000'000;  // KiB
  const std::uint64_t room = room_under(kLimit);
  ASSERT_GT(room, 0u) << "no estimate line under ulimit -v";
  // A limit that leaves about 40 MiB, and an OBJ of 80 MiB: one huge object name, which no
  // reader may copy, and one triangle.
  const std::uint64_t limit = kLimit - room + 40 * 1024;
  {
    std::ofstream obj(dir / "huge_name.obj", std::ios::binary);
    obj << "o " << std::string(80u << 20, 'n') << "\n" << kTriangle;
  }
  const CommandResult r =
      run_depthsort(tiny({"--mesh", (dir / "huge_name.obj").string()}), "ulimit -v " + std::to_string(limit) + ";");
  fs::remove(dir / "huge_name.obj");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("huge_name.obj: reading it needs about"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("of memory, but"), std::string::npos) << r.output;
}

TEST(Reliability, ACrashUnderASmallAddressSpaceSaysWhatWasBeingDone) {
  if (kAddressSanitizer) GTEST_SKIP() << kNoAddressLimit;
  for (const int kib : {250000, 300000, 400000}) {
    const CommandResult r = run_depthsort(tiny({"--scene", "test"}), "ulimit -v " + std::to_string(kib) + ";");
    if (r.status == 0) continue;
    // A refusal with its reason, or a crash naming the step: never a bare status.
    EXPECT_TRUE(std::regex_search(r.output, std::regex("depthsort: (error: )?[a-z]")))
        << "ulimit -v " << kib << ": status " << r.status << ", output:\n"
        << r.output;
  }
}

// ------------------------------------------------------------------ what the help promises

TEST(Reliability, TrianglesWithCopiesIsTheTotal) {
  const CommandResult r = run_depthsort(tiny({"--copies", "1000", "--triangles", "5"}));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("the knot has at least 128"), std::string::npos) << r.output;
  const CommandResult ok = run_depthsort(tiny({"--copies", "4", "--triangles", "2048"}));
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("torus knot x4 (2K triangles)"), std::string::npos) << ok.output;
}

TEST(Reliability, TheSlowFrameNoteGivesAdviceThatCanBeFollowed) {
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--frames", "3", "--size", "4096x4096", "--scene", "test"});
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.output.find("note: a frame takes") == std::string::npos) GTEST_SKIP() << "a fast machine: no note";
  EXPECT_EQ(r.output.find("about 0 primitives"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("a smaller --size than 4096x4096"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace depthsort::app::test
