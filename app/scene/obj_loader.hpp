// OBJ meshes: each file read exactly once into memory (scene/input_file.hpp: bounded, regular
// files and pipes only, encoding checked), checked and counted, then parsed from memory and
// triangulated here in linear time; the check and the parse read lines, words and numbers through
// one reader (scene/obj_text.hpp), so they cannot disagree. Materials' diffuse
// colours are used where present. Every failure throws SceneError naming the file, and the line
// where one is known; file content in messages is escaped and cut (depthsort/host/count_text.hpp); never a crash.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scene/input_file.hpp"
#include "scene/mesh.hpp"

namespace depthsort::app {

// Polygons of up to this many corners are triangulated by ear clipping (concave ones drawn
// right); larger ones as a fan from their first corner, so that the cost stays linear in the
// corners (a 300K-corner face is 300K triangles, not minutes of clipping).
constexpr std::size_t kEarClippingMaxCorners = 16;

// An OBJ file read and checked, not yet parsed: its size in triangles is known before anything
// is built (build_scene checks it against the limits and the memory available).
struct ObjText {
  std::string path;
  std::string text;  // without a UTF-8 byte-order mark
  std::size_t vertices = 0, faces = 0, triangles = 0;
};

ObjText read_obj(const std::string& path);
// What read_obj does once the file is read: `text` as the content of the file at `path` (whose
// folder is where material libraries are looked for). Also the entry of the OBJ fuzz target.
ObjText obj_from_text(const std::string& path, std::string text);
// Parses and triangulates. Faces get their material's diffuse colour (Kd, and d/Tr as alpha when
// below 1), else a colour per object/group. Vertices are expanded per face corner. A material
// library that cannot be used (missing, unreadable, not a regular file, too large, empty) adds one
// line to `notes` (if given) and its faces get the per-object colours.
// `materials_read` (if given) receives the path of every material library it read.
Mesh parse_obj(const ObjText& obj, std::string* notes = nullptr, std::vector<std::string>* materials_read = nullptr);
inline Mesh load_obj(const std::string& path, std::string* notes = nullptr) { return parse_obj(read_obj(path), notes); }

}  // namespace depthsort::app
