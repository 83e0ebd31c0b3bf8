// OBJ and MTL comments after a statement ("f 1 2 3 # back", "usemtl red#c"): every statement of
// both formats accepts one, with or without a blank before the `#`, and what is really malformed
// still fails with its line number.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "scene/input_file.hpp"
#include "scene/mesh.hpp"
#include "scene/obj_loader.hpp"
#include "scene/obj_text.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test build folder, so that each test's material libraries are its own.
fs::path fresh_folder(const std::string& name) {
  const fs::path folder = out_path("comments") + "/" + name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

std::string write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

const std::uint32_t kHalfRed = pack_rgba(glm::vec4(1.0f, 0.0f, 0.0f, 0.5f));

TEST(ObjComments, TheReaderDropsCommentsAndKeepsLineNumbers) {
  ObjLines lines("v 1 2 3 # a\n# whole line\r\nf 1 2 3#tight\rusemtl red \t # c\n#");
  ObjLine line;
  std::vector<std::vector<std::string_view>> words;
  while (lines.next(line)) {
    EXPECT_EQ(line.number, words.size() + 1);
    words.push_back(line.words);
  }
  const std::vector<std::vector<std::string_view>> expected = {
      {"v", "1", "2", "3"}, {}, {"f", "1", "2", "3"}, {"usemtl", "red"}, {}};
  EXPECT_EQ(words, expected);
}

TEST(ObjComments, AfterFacesWithOrWithoutABlank) {
  const fs::path folder = fresh_folder("faces");
  const std::string obj = write_file(folder / "m.obj",
                                     "v 0 0 0 # origin\nv 1 0 0#x\nv 0 1 0\nv 1 1 0\n"
                                     "f 1 2 3 # a comment\nf 2 4 3# tight\ng part # a group\nf 1/1 2/2 3/3 #\n");
  std::string notes;
  const Mesh mesh = load_obj(obj, &notes);
  EXPECT_EQ(mesh.triangles(), 3u);
  EXPECT_EQ(notes, "");
}

TEST(ObjComments, AfterUsemtlAndMtllibAndInTheMaterialLibrary) {
  const fs::path folder = fresh_folder("materials");
  write_file(folder / "a.mtl",
             "# library\nnewmtl red # the red one\nKd 1 0 0 # diffuse\nd 0.5#half\nnewmtl blue#\nKd 0 0 1\n");
  const std::string obj =
      write_file(folder / "m.obj", "mtllib a.mtl # c\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red # c\nf 1 2 3\n");
  std::string notes;
  std::vector<std::string> read;
  const Mesh mesh = parse_obj(read_obj(obj), &notes, &read);
  EXPECT_EQ(notes, "") << "the library is found and 'red' names its material";
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(fs::path(read[0]).filename(), "a.mtl");
  ASSERT_EQ(mesh.vertices.size(), 3u);
  for (const MeshVertex& v : mesh.vertices) EXPECT_EQ(v.rgba, kHalfRed);
}

TEST(ObjComments, MalformedStatementsStillFailWithTheirLine) {
  const fs::path folder = fresh_folder("malformed");
  const std::string bad_face = write_file(folder / "face.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0 # ok\nf 1 2 x # c\n");
  EXPECT_NE(obj_load_error(bad_face).find("face.obj:4: face reference 'x' is not an index"), std::string::npos)
      << obj_load_error(bad_face);
  const std::string short_vertex = write_file(folder / "vertex.obj", "# header\nv 0 0 # 1 2\n");
  EXPECT_NE(obj_load_error(short_vertex).find("vertex.obj:2: vertex with fewer than 3 coordinates"), std::string::npos)
      << obj_load_error(short_vertex);
  const std::string short_face = write_file(folder / "short.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 # 3\n");
  EXPECT_NE(obj_load_error(short_face).find("short.obj:4: face with fewer than 3 vertices"), std::string::npos)
      << obj_load_error(short_face);
  const std::string only_comments = write_file(folder / "comments.obj", "# v 0 0 0\n#f 1 2 3\n");
  EXPECT_NE(obj_load_error(only_comments).find("contains no faces"), std::string::npos)
      << obj_load_error(only_comments);
}

}  // namespace
}  // namespace depthsort::app::test
