// The demo's outputs through symbolic links to files not yet there (--screenshot, --json): the
// links stay and their targets, in another folder, are written; a link into a missing folder is
// exit 1 naming the link and its target. No link is replaced by a regular file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support.hpp"

namespace depthsort::app::test {
namespace {

namespace fs = std::filesystem;

TEST(OutputLinks, ScreenshotAndJsonThroughLinksToFilesNotYetThere) {
  const fs::path dir = out_path("output_links");
  fs::remove_all(dir);
  fs::create_directories(dir / "elsewhere");
  fs::create_symlink("elsewhere/new.png", dir / "frame.png");
  fs::create_symlink("elsewhere/new.json", dir / "frame.json");
  const CommandResult r =
      run_depthsort({"--headless", "--cpu", "--scene", "test", "--frames", "2", "--size", "64x64", "--screenshot",
                     (dir / "frame.png").string(), "--json", (dir / "frame.json").string()});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir / "frame.png"));
  EXPECT_TRUE(fs::is_symlink(dir / "frame.json"));
  EXPECT_EQ(read_png((dir / "elsewhere" / "new.png").string()).width, 64);
  EXPECT_GT(fs::file_size(dir / "elsewhere" / "new.json"), 0u);
}

TEST(OutputLinks, ALinkIntoAMissingFolderIsAnError) {
  const fs::path dir = out_path("output_links_missing");
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("nowhere/new.json", dir / "frame.json");
  const CommandResult r = run_depthsort({"--headless", "--cpu", "--scene", "test", "--frames", "2", "--size", "64x64",
                                         "--json", (dir / "frame.json").string()});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write '" + (dir / "frame.json").string() + "': it is a symbolic link to '" +
                          (dir / "nowhere" / "new.json").string() + "', whose folder"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::is_symlink(dir / "frame.json"));
}

}  // namespace
}  // namespace depthsort::app::test
