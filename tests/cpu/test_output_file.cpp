// Output files are complete or absent, and no output replaces an input or another output.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "depthsort/host/output_file.hpp"

namespace fs = std::filesystem;

namespace depthsort {
namespace {

// A fresh, empty folder per test, removed afterwards.
class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("depthsort-output-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> entries() const { return entries(dir_); }
  static std::vector<std::string> entries(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(OutputFileTest, NothingAppearsBeforeCommitThenAllOfIt) {
  const fs::path target = dir_ / "out.json";
  OutputFile file(target);
  file.write("{\"a\": ");
  std::fputs("1}", file.stream());
  EXPECT_FALSE(fs::exists(target));
  ASSERT_EQ(entries().size(), 1u);  // the temporary file, in the target's folder
  EXPECT_EQ(file.temporary().parent_path(), dir_);
  file.commit();
  EXPECT_EQ(read(target), "{\"a\": 1}");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
  EXPECT_THROW(file.commit(), OutputError);
}

TEST_F(OutputFileTest, ReplacesAnOldFileInOneStepAndKeepsItsMode) {
  const fs::path target = dir_ / "out.csv";
  write_file_atomically(target, "old");
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    OutputFile file(target);
    file.write("new, longer");
    EXPECT_EQ(read(target), "old");  // unchanged until commit
    file.commit();
  }
  EXPECT_EQ(read(target), "new, longer");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(OutputFileTest, DestructionWithoutCommitLeavesNothing) {
  const fs::path target = dir_ / "out.png";
  write_file_atomically(target, "previous result");
  {
    OutputFile file(target);
    file.write("half a PNG");
  }  // e.g. an exception while encoding
  EXPECT_EQ(entries(), std::vector<std::string>{"out.png"});
  EXPECT_EQ(read(target), "previous result");
}

TEST_F(OutputFileTest, WritingToDevFullThrowsNamingTheFileAndReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  OutputFile file("/dev/full");
  EXPECT_TRUE(file.direct());  // a device is written in place, never renamed over
  file.write("a little");      // buffered: the failure comes at commit
  try {
    file.commit();
    FAIL() << "commit to /dev/full succeeded";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("'/dev/full'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// Only devices and names of open streams are written in place: a regular file under /dev (a tmpfs
// such as /dev/shm) is still replaced atomically, and so is one reached through a symbolic link.
TEST_F(OutputFileTest, OnlyStreamsAreWrittenInPlace) {
  EXPECT_TRUE(OutputFile("/dev/null").direct());
  EXPECT_TRUE(OutputFile("/dev/stdout").direct());
  EXPECT_FALSE(OutputFile(dir_ / "plain.csv").direct());
  if (fs::is_directory("/dev/shm")) {
    const fs::path shm = "/dev/shm/depthsort-output-test-" + std::to_string(::getpid()) + ".csv";
    OutputFile file(shm);
    EXPECT_FALSE(file.direct());
    file.write("x");
    file.commit();
    EXPECT_EQ(read(shm), "x");
    fs::remove(shm);
  }
}

TEST_F(OutputFileTest, LargeWriteToDevFullThrowsAtTheWrite) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  OutputFile file("/dev/full");
  const std::string big(1 << 20, 'x');
  EXPECT_THROW(file.write(big), OutputError);
}

// A writer that uses stream() and ignores a failed write (as a PNG encoder's callback may) still
// gets the error at commit, though nothing is left in the buffer to fail the flush.
TEST_F(OutputFileTest, AFailedWriteThroughTheStreamIsCaughtAtCommit) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  OutputFile file("/dev/full");
  const std::string big(1 << 20, 'x');
  [[maybe_unused]] const std::size_t written = std::fwrite(big.data(), 1, big.size(), file.stream());
  EXPECT_THROW(file.commit(), OutputError);
}

// A full disk for a regular file, made with the file-size limit (works as root too).
TEST_F(OutputFileTest, AFullDiskLeavesNoFileAndNoTemporary) {
  const fs::path target = dir_ / "big.csv";
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    OutputFile file(target);
    file.write(std::string(3000, 'a'));
    file.write(std::string(3000, 'b'));
    file.commit();
  } catch (const OutputError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("big.csv'"), std::string::npos) << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_TRUE(entries().empty()) << entries().front();
}

TEST_F(OutputFileTest, AFailingRenameLeavesNothing) {
  const fs::path target = dir_ / "out.json";
  OutputFile file(target);
  file.write("{}");
  fs::create_directories(target / "occupied");  // appears after the check: rename(2) must fail
  try {
    file.commit();
    FAIL() << "renamed over a folder";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot replace"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
  EXPECT_TRUE(fs::is_directory(target));
}

TEST_F(OutputFileTest, RefusesAFolderAnEmptyPathAndAMissingFolder) {
  EXPECT_THROW(OutputFile{dir_}, OutputError);
  EXPECT_THROW(OutputFile{""}, OutputError);
  try {
    OutputFile file(dir_ / "no-such-folder" / "out.csv");
    FAIL() << "created a file in a missing folder";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out.csv'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(OutputFileTest, ASymbolicLinkIsFollowedNotReplaced) {
  write_file_atomically(dir_ / "real.csv", "old");
  fs::create_symlink("real.csv", dir_ / "link.csv");
  write_file_atomically(dir_ / "link.csv", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
  EXPECT_EQ(read(dir_ / "real.csv"), "new");
}

TEST_F(OutputFileTest, MovedFromObjectOwnsNothing) {
  const fs::path target = dir_ / "moved.txt";
  OutputFile first(target);
  first.write("abc");
  OutputFile second(std::move(first));
  second.commit();
  EXPECT_EQ(read(target), "abc");
}

// ---------------------------------------------------------------------------------------------
// find_path_clash

TEST_F(OutputFileTest, OutputEqualToAnInputIsRefused) {
  write_file_atomically(dir_ / "scene.obj", "v 0 0 0\n");
  const NamedPath inputs[] = {{"--mesh", dir_ / "scene.obj"}};
  const NamedPath same[] = {{"--json", dir_ / "." / "scene.obj"}};
  const std::string message = find_path_clash(inputs, same);
  EXPECT_NE(message.find("--json"), std::string::npos) << message;
  EXPECT_NE(message.find("--mesh"), std::string::npos) << message;
  fs::create_hard_link(dir_ / "scene.obj", dir_ / "hard.obj");
  const NamedPath hard[] = {{"--json", dir_ / "hard.obj"}};
  EXPECT_FALSE(find_path_clash(inputs, hard).empty());
  const NamedPath other[] = {{"--json", dir_ / "timings.json"}};
  EXPECT_EQ(find_path_clash(inputs, other), "");
}

TEST_F(OutputFileTest, TwoOutputsToOnePathAreRefusedEvenBeforeTheyExist) {
  const NamedPath outputs[] = {{"--csv", dir_ / "r.txt"}, {"--json", dir_ / "sub" / ".." / "r.txt"}};
  fs::create_directories(dir_ / "sub");
  const std::string message = find_path_clash({}, outputs);
  EXPECT_EQ(message.rfind("--json", 0), 0u) << message;
  EXPECT_NE(message.find("same file as --csv"), std::string::npos) << message;
  const NamedPath distinct[] = {{"--csv", dir_ / "r.csv"}, {"--json", dir_ / "r.json"}, {"--png", ""}};
  EXPECT_EQ(find_path_clash({}, distinct), "");
}

TEST_F(OutputFileTest, DevNullMayTakeSeveralOutputs) {
  const NamedPath outputs[] = {{"--csv", "/dev/null"}, {"--json", "/dev/null"}};
  EXPECT_EQ(find_path_clash({}, outputs), "");
}

// Outputs reached through symbolic links, as open() writes through them: a link is kept and the
// file it points to created or replaced, also when that file does not exist yet, through chains
// of links and relative targets read against each link's own folder; a link into a missing
// folder is an error naming both paths.
std::string error_of_writing(const fs::path& target) {
  try {
    write_file_atomically(target, "data");
  } catch (const OutputError& e) {
    return e.what();
  }
  return "(written without error)";
}

using Names = std::vector<std::string>;

TEST_F(OutputFileTest, ALinkToAFileNotYetThereCreatesThatFile) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink("elsewhere/new.json", dir_ / "out.json");
  write_file_atomically(dir_ / "out.json", "{}");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.json")) << "the link must stay a link";
  EXPECT_EQ(read(dir_ / "elsewhere" / "new.json"), "{}");
  EXPECT_EQ(entries(dir_ / "elsewhere"), Names{"new.json"}) << "no temporary file left behind";
  EXPECT_EQ(entries(dir_), (Names{"elsewhere", "out.json"}));
}

TEST_F(OutputFileTest, AnAbsoluteLinkToAFileNotYetThere) {
  fs::create_directories(dir_ / "target");
  fs::create_symlink(dir_ / "target" / "a.csv", dir_ / "a.csv");
  OutputFile file(dir_ / "a.csv");
  EXPECT_EQ(file.temporary().parent_path(), dir_ / "target") << "the temporary file lies beside the target";
  file.write("x");
  file.commit();
  EXPECT_TRUE(fs::is_symlink(dir_ / "a.csv"));
  EXPECT_EQ(read(dir_ / "target" / "a.csv"), "x");
}

TEST_F(OutputFileTest, ChainsOfRelativeLinksResolveAgainstEachLinksFolder) {
  for (const char* folder : {"a", "b", "c"}) fs::create_directories(dir_ / folder);
  // Read against the working folder instead of the links' folders, these targets would miss.
  fs::create_symlink("../b/second", dir_ / "a" / "first");
  fs::create_symlink("../c/final.png", dir_ / "b" / "second");
  write_file_atomically(dir_ / "a" / "first", "one");
  EXPECT_TRUE(fs::is_symlink(dir_ / "a" / "first"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "b" / "second"));
  EXPECT_EQ(read(dir_ / "c" / "final.png"), "one");
  write_file_atomically(dir_ / "a" / "first", "two");  // now the target exists: replaced
  EXPECT_TRUE(fs::is_symlink(dir_ / "a" / "first"));
  EXPECT_EQ(read(dir_ / "c" / "final.png"), "two");
  EXPECT_EQ(entries(dir_ / "c"), Names{"final.png"});
}

TEST_F(OutputFileTest, ALinkIntoAMissingFolderNamesBothPaths) {
  fs::create_symlink("nowhere/new.json", dir_ / "out.json");
  const std::string message = error_of_writing(dir_ / "out.json");
  EXPECT_NE(message.find("'" + (dir_ / "out.json").string() + "': it is a symbolic link to '" +
                         (dir_ / "nowhere" / "new.json").string() + "', whose folder '" + (dir_ / "nowhere").string() +
                         "' does not exist"),
            std::string::npos)
      << message;
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.json"));
  EXPECT_EQ(entries(dir_), Names{"out.json"});
}

TEST_F(OutputFileTest, ALoopOfLinksIsAnErrorAndStays) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  const std::string message = error_of_writing(dir_ / "a");
  EXPECT_NE(message.find("Too many levels of symbolic links"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "b"));
  EXPECT_EQ(entries(dir_), (Names{"a", "b"}));
}

}  // namespace
}  // namespace depthsort
