// One reader of OBJ lines and numbers: what the check of a file accepts is exactly what the mesh
// is built from. Each case is a file that a check and a parse reading it differently would load
// into an empty or wrong frame without an error: a number read two ways, a line end or a blank
// one of them does not know.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "scene/mesh.hpp"
#include "scene/obj_loader.hpp"
#include "support.hpp"

namespace depthsort::app::test {
namespace {

namespace fs = std::filesystem;

std::string write_obj(const std::string& name, const std::string& bytes) {
  const fs::path folder = fs::path(out_path("obj_reader"));
  fs::create_directories(folder);
  const fs::path path = folder / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

// The first vertex of the mesh built from `text` (a triangle whose first corner is that vertex).
glm::vec3 first_corner(const std::string& name, const std::string& text) {
  const Mesh mesh = load_obj(write_obj(name, text));
  EXPECT_GE(mesh.vertices.size(), 3u);
  if (mesh.vertices.empty()) return glm::vec3(NAN);
  return {mesh.vertices[0].x, mesh.vertices[0].y, mesh.vertices[0].z};
}

const std::string kRest = "v 1 0 0\nv 0 1 0\nf 1 2 3\n";

TEST(ObjReader, NumbersAreReadExactlyAsTheCheckReadThem) {
  EXPECT_EQ(first_corner("zero_exp.obj", "v 0e999 0 0\n" + kRest).x, 0.0f) << "0e999 is zero";
  EXPECT_EQ(first_corner("long.obj", "v 1" + std::string(400, '0') + "e-390 0 0\n" + kRest).x, 1e10f)
      << "1 followed by 400 zeros, times 1e-390, is 1e10";
  EXPECT_EQ(first_corner("tiny.obj", "v 1e-60 -1e-50 2.5e-3\n" + kRest), glm::vec3(0.0f, -0.0f, 2.5e-3f))
      << "below a float's range is zero";
  EXPECT_EQ(first_corner("signs.obj", "v +1.5 -.25 5.\n" + kRest), glm::vec3(1.5f, -0.25f, 5.0f));
}

TEST(ObjReader, WhatIsNotADecimalNumberIsRefusedWithItsLine) {
  for (const char* word : {"0x1p0", "1e", "1.2.3", "--1", "1e+", "infinity", "1,5", "nan(1)"}) {
    const std::string error =
        obj_load_error(write_obj("not_number.obj", "v 0 0 0\nv " + std::string(word) + " 0 0\n" + kRest));
    EXPECT_NE(error.find("not_number.obj:2: vertex coordinate '" + std::string(word) + "' is not a finite number"),
              std::string::npos)
        << word << ": " << error;
  }
}

TEST(ObjReader, EveryLineEndEndsALineForTheCheckAndTheMesh) {
  // A lone CR (old Mac files) ends a line: the second vertex cannot hide from the check.
  const std::string hidden = obj_load_error(write_obj("cr_hidden.obj", "v 0 0 0\rv 1e39 0 0\n" + kRest));
  EXPECT_NE(hidden.find("cr_hidden.obj:2: vertex coordinate '1e39' is not a finite number"), std::string::npos)
      << hidden;
  // A whole file in CR line ends loads, and its errors have their lines.
  const Mesh mac = load_obj(write_obj("mac.obj", "v 0 0 0\rv 1 0 0\rv 0 1 0\rv 1 1 0\rf 1 2 3\rf 2 4 3\r"));
  EXPECT_EQ(mac.triangles(), 2u);
  const std::string mac_error = obj_load_error(write_obj("mac_bad.obj", "v 0 0 0\rv 1 0 0\r\nv 0 x 0\rf 1 2 3\r"));
  EXPECT_NE(mac_error.find("mac_bad.obj:3: vertex coordinate 'x'"), std::string::npos) << mac_error;
}

TEST(ObjReader, EveryBlankSeparatesWordsForTheCheckAndTheMesh) {
  // A vertical tab between references: four corners, a quad of two triangles.
  const Mesh quad = load_obj(write_obj("vt_face.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\v4\n"));
  EXPECT_EQ(quad.triangles(), 2u);
  // A form feed after "v": still a vertex, so the later faces refer to the vertices they name.
  const Mesh shifted = load_obj(write_obj("ff_vertex.obj", "v\f9 9 9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 2 3 4\n"));
  ASSERT_EQ(shifted.vertices.size(), 3u);
  EXPECT_EQ(glm::vec3(shifted.vertices[0].x, shifted.vertices[0].y, shifted.vertices[0].z), glm::vec3(0.0f));
}

TEST(ObjReader, ASecondLibraryRedefiningAMaterialIsUsed) {
  write_obj("first.mtl", "newmtl glass\nKd 0 0 1\n");
  write_obj("second.mtl", "newmtl glass\nKd 1 0 0\nd 0.5\n");
  std::string notes;
  const Mesh mesh = load_obj(write_obj("two_libraries.obj",
                                       "mtllib first.mtl\nmtllib second.mtl\nusemtl glass\n"
                                       "v 0 0 0\n" +
                                           kRest),
                             &notes);
  EXPECT_EQ(notes, "") << "both libraries define a material";
  ASSERT_EQ(mesh.vertices.size(), 3u);
  EXPECT_EQ(mesh.vertices[0].rgba, pack_rgba(glm::vec4(1.0f, 0.0f, 0.0f, 0.5f))) << "the later definition";
}

}  // namespace
}  // namespace depthsort::app::test
