// Outputs reached through symbolic links (kernels/common/output_file.cpp): as open() does, a link
// is kept and the file it points to created or replaced, also when that file does not exist yet,
// through chains of links and relative targets read against each link's own folder; a link into
// a missing folder is an error naming both paths.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "depthsort/output_file.hpp"

namespace fs = std::filesystem;

namespace depthsort {
namespace {

class OutputLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("depthsort-links-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

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
  static std::string error_of(const fs::path& target) {
    try {
      write_file_atomically(target, "data");
    } catch (const OutputError& e) {
      return e.what();
    }
    return "(written without error)";
  }

  fs::path dir_;
};

using Names = std::vector<std::string>;

TEST_F(OutputLinkTest, ALinkToAFileNotYetThereCreatesThatFile) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink("elsewhere/new.json", dir_ / "out.json");
  write_file_atomically(dir_ / "out.json", "{}");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.json")) << "the link must stay a link";
  EXPECT_EQ(read(dir_ / "elsewhere" / "new.json"), "{}");
  EXPECT_EQ(entries(dir_ / "elsewhere"), Names{"new.json"}) << "no temporary file left behind";
  EXPECT_EQ(entries(dir_), (Names{"elsewhere", "out.json"}));
}

TEST_F(OutputLinkTest, AnAbsoluteLinkToAFileNotYetThere) {
  fs::create_directories(dir_ / "target");
  fs::create_symlink(dir_ / "target" / "a.csv", dir_ / "a.csv");
  OutputFile file(dir_ / "a.csv");
  EXPECT_EQ(file.temporary().parent_path(), dir_ / "target") << "the temporary file lies beside the target";
  file.write("x");
  file.commit();
  EXPECT_TRUE(fs::is_symlink(dir_ / "a.csv"));
  EXPECT_EQ(read(dir_ / "target" / "a.csv"), "x");
}

TEST_F(OutputLinkTest, ChainsOfRelativeLinksResolveAgainstEachLinksFolder) {
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

TEST_F(OutputLinkTest, ALinkIntoAMissingFolderNamesBothPaths) {
  fs::create_symlink("nowhere/new.json", dir_ / "out.json");
  const std::string message = error_of(dir_ / "out.json");
  EXPECT_NE(message.find("'" + (dir_ / "out.json").string() + "': it is a symbolic link to '" +
                         (dir_ / "nowhere" / "new.json").string() + "', whose folder '" +
                         (dir_ / "nowhere").string() + "' does not exist"),
            std::string::npos)
      << message;
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.json"));
  EXPECT_EQ(entries(dir_), Names{"out.json"});
}

TEST_F(OutputLinkTest, ALoopOfLinksIsAnErrorAndStays) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  const std::string message = error_of(dir_ / "a");
  EXPECT_NE(message.find("Too many levels of symbolic links"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "b"));
  EXPECT_EQ(entries(dir_), (Names{"a", "b"}));
}

}  // namespace
}  // namespace depthsort
