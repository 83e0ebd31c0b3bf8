#include "scene/obj_loader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "depthsort/host/count_text.hpp"
#include "scene/obj_text.hpp"

namespace depthsort::app {

namespace {

// Every statement the mesh uses, read and checked through the one reader (scene/obj_text.hpp),
// line by line, and handed to `sink`: the check that counts a file and the parse that builds it
// are this same function with two sinks, so they cannot disagree. Statements the demo does not
// use (vt, vn, s, l, ...) are skipped. Throws SceneError naming the file and the line.
template <class Sink>
void read_statements(const ObjText& obj, Sink& sink) {
  const std::string shown = shown_path(obj.path);
  ObjLines lines(obj.text);
  ObjLine line;
  std::vector<long long> refs;
  long long vertices = 0;
  while (lines.next(line)) {
    const auto fail = [&](const std::string& what) {
      throw SceneError(shown + ":" + std::to_string(line.number) + ": " + what);
    };
    if (line.words.empty()) continue;
    const std::string_view keyword = line.words[0];
    if (keyword == "v") {
      // x y z, then an optional w or r g b: every one a number, the first three the position.
      if (line.words.size() < 4) fail("vertex with fewer than 3 coordinates");
      if (line.words.size() > 8) fail("vertex with more than 7 numbers");
      float xyz[3] = {0, 0, 0};
      for (std::size_t c = 1; c < line.words.size(); ++c) {
        float value = 0.0f;
        if (read_obj_number(line.words[c], value) != ObjNumber::Ok)
          fail("vertex coordinate " + quote_for_message(line.words[c]) +
               " is not a finite number (a decimal number within a float's range, such as -1.5e3)");
        if (c <= 3) xyz[c - 1] = value;
      }
      ++vertices;
      sink.vertex(glm::vec3(xyz[0], xyz[1], xyz[2]));
    } else if (keyword == "f") {
      refs.clear();
      for (std::size_t c = 1; c < line.words.size(); ++c) {
        long long index = 0;
        if (!read_obj_reference(line.words[c], index))
          fail("face reference " + quote_for_message(line.words[c]) + " is not an index");
        const long long resolved = index < 0 ? vertices + index : index - 1;
        if (index == 0 || resolved < 0 || resolved >= vertices)
          fail("face refers to vertex " + std::to_string(index) + " but " + std::to_string(vertices) +
               " vertices are defined so far");
        refs.push_back(resolved);
      }
      if (refs.size() < 3) fail("face with fewer than 3 vertices");
      sink.face(refs);
    } else if (keyword == "o" || keyword == "g") {
      sink.object();
    } else if (keyword == "usemtl") {
      sink.use_material(line.rest(1));
    } else if (keyword == "mtllib") {
      for (std::size_t c = 1; c < line.words.size(); ++c) sink.material_library(line.words[c]);
    }
  }
}

// The check's sink: counts what the parse will build.
struct Counter {
  ObjText& obj;
  void vertex(const glm::vec3&) { ++obj.vertices; }
  void face(const std::vector<long long>& refs) {
    ++obj.faces;
    obj.triangles += refs.size() - 2;
  }
  void object() {}
  void use_material(std::string_view) {}
  void material_library(std::string_view) {}
};

// ------------------------------------------------------------------ triangulation

// Appends the triangles of polygon `p` (n corners) as corner numbers 0..n-1 to `out`: quads split
// along the shorter diagonal, polygons up to kEarClippingMaxCorners by ear clipping in their plane,
// larger ones (and any that clipping cannot finish: self-intersecting, degenerate) as a fan.
void triangulate(const std::vector<glm::vec3>& p, std::vector<std::uint32_t>& out,
                 std::vector<std::uint32_t>& remaining) {
  const auto n = static_cast<std::uint32_t>(p.size());
  const auto fan = [&](const std::uint32_t* ids, std::uint32_t count) {
    for (std::uint32_t i = 1; i + 1 < count; ++i) out.insert(out.end(), {ids[0], ids[i], ids[i + 1]});
  };
  if (n == 4) {
    const glm::vec3 d02 = p[2] - p[0], d13 = p[3] - p[1];
    if (glm::dot(d02, d02) <= glm::dot(d13, d13))
      out.insert(out.end(), {0, 1, 2, 0, 2, 3});
    else
      out.insert(out.end(), {0, 1, 3, 1, 2, 3});
    return;
  }
  remaining.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) remaining[i] = i;
  if (n == 3 || n > kEarClippingMaxCorners) {
    fan(remaining.data(), n);
    return;
  }
  // Newell's normal picks the plane to project on; its sign, the orientation (counter-clockwise).
  glm::dvec3 normal(0.0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const glm::dvec3 a(p[i]), b(p[(i + 1) % n]);
    normal += glm::dvec3((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y));
  }
  const glm::dvec3 size = glm::abs(normal);
  const int drop = size.x >= size.y && size.x >= size.z ? 0 : (size.y >= size.z ? 1 : 2);
  if (size[drop] == 0.0) {
    fan(remaining.data(), n);
    return;
  }
  const int u = (drop + 1) % 3, v = (drop + 2) % 3;
  const double flip = normal[drop] > 0 ? 1.0 : -1.0;
  const auto at = [&](std::uint32_t i) { return glm::dvec2(p[i][u], flip * p[i][v]); };
  const auto cross = [](glm::dvec2 a, glm::dvec2 b, glm::dvec2 c) {
    return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  };
  std::uint32_t m = n;
  while (m > 3) {
    bool clipped = false;
    for (std::uint32_t k = 0; k < m && !clipped; ++k) {
      const std::uint32_t ia = remaining[(k + m - 1) % m], ib = remaining[k], ic = remaining[(k + 1) % m];
      const glm::dvec2 a = at(ia), b = at(ib), c = at(ic);
      if (cross(a, b, c) <= 0) continue;  // reflex or flat: not an ear
      bool empty = true;
      for (std::uint32_t j = 0; j < m && empty; ++j) {
        const std::uint32_t id = remaining[j];
        if (id == ia || id == ib || id == ic) continue;
        const glm::dvec2 q = at(id);
        empty = !(cross(a, b, q) >= 0 && cross(b, c, q) >= 0 && cross(c, a, q) >= 0);
      }
      if (!empty) continue;
      out.insert(out.end(), {ia, ib, ic});
      remaining.erase(remaining.begin() + k);
      --m;
      clipped = true;
    }
    if (!clipped) break;  // no ear: not a simple polygon
  }
  fan(remaining.data(), m);
}

// ------------------------------------------------------------------ parsing

// A material as the demo uses it: the diffuse colour and the opacity.
struct Material {
  glm::vec3 diffuse{0.0f};  // black, as where an MTL gives no Kd
  float dissolve = 1.0f;
};

// Reads the materials of an MTL text into `materials` (a later definition of a name replaces an
// earlier one, of this library or another); returns how many `newmtl` it has. Numbers and lines
// through the same reader as the OBJ's. Throws SceneError naming `shown` and the line.
std::size_t read_materials(std::string_view text, const std::string& shown,
                           std::map<std::string, Material, std::less<>>& materials) {
  ObjLines lines(text);
  ObjLine line;
  Material* current = nullptr;
  std::size_t defined = 0;
  while (lines.next(line)) {
    if (line.words.empty()) continue;
    const auto fail = [&](const std::string& what) {
      throw SceneError(shown + ":" + std::to_string(line.number) + ": " + what);
    };
    const auto number = [&](std::size_t c) {
      float value = 0.0f;
      if (read_obj_number(line.words[c], value) != ObjNumber::Ok)
        fail(quote_for_message(line.words[0]) + " value " + quote_for_message(line.words[c]) +
             " is not a finite number");
      return value;
    };
    const std::string_view keyword = line.words[0];
    if (keyword == "newmtl") {
      if (line.words.size() < 2) fail("newmtl without a name");
      current = &(materials[std::string(line.rest(1))] = Material{});
      ++defined;
    } else if (keyword == "Kd" || keyword == "d" || keyword == "Tr") {
      if (current == nullptr) fail(quote_for_message(keyword) + " before any newmtl");
      if (keyword == "Kd") {
        // "Kd r g b", or "Kd v" for a grey.
        if (line.words.size() != 2 && line.words.size() != 4) fail("Kd needs 1 or 3 numbers");
        current->diffuse = line.words.size() == 2 ? glm::vec3(number(1)) : glm::vec3(number(1), number(2), number(3));
      } else {
        if (line.words.size() != 2) fail(quote_for_message(keyword) + " needs 1 number");
        current->dissolve = keyword == "d" ? number(1) : 1.0f - number(1);
      }
    }
  }
  return defined;
}

// The material libraries an OBJ names, each read once through read_input_file (bounded, regular
// files and pipes only): one that cannot be used is a note, not silence and not an endless read.
class MaterialLibraries {
 public:
  MaterialLibraries(std::filesystem::path folder, std::string obj_path, std::string* notes,
                    std::vector<std::string>* read)
      : folder_(std::move(folder)), obj_path_(std::move(obj_path)), notes_(notes), read_(read) {}

  void load(std::string_view name) {
    const std::string path = (folder_ / std::string(name)).string();
    if (read_) read_->push_back(path);
    try {
      std::string text = read_input_file(path, kMaxMtlBytes, "MTL file");
      check_text_encoding(text, path);
      if (read_materials(text, shown_path(path), materials_) == 0)
        throw SceneError(shown_path(path) + ": defines no material");
    } catch (const SceneError& e) {
      failed_ = true;
      note(std::string("mtllib ") + quote_for_message(name) + " not used (" + e.what() + ")");
    }
  }

  const Material* find(std::string_view name) const {
    const auto it = materials_.find(name);
    return it == materials_.end() ? nullptr : &it->second;
  }
  bool failed() const noexcept { return failed_; }

  void note(const std::string& what) const {
    if (notes_)
      *notes_ +=
          "note: " + shown_path(obj_path_) + ": " + what + "; faces without a material get a colour per object\n";
  }

 private:
  std::filesystem::path folder_;
  std::string obj_path_;
  std::string* notes_;
  std::vector<std::string>* read_;
  std::map<std::string, Material, std::less<>> materials_;
  bool failed_ = false;
};

// The parse's sink: the mesh, its faces triangulated, coloured by material or by object.
struct Builder {
  explicit Builder(MaterialLibraries& materials) : libraries(materials) {}
  MaterialLibraries& libraries;
  std::vector<glm::vec3> positions;
  const Material* material = nullptr;
  std::size_t object_count = 0, faces_in_object = 0;
  std::uint32_t object_rgba = 0;
  Mesh mesh;
  std::vector<glm::vec3> corners;
  std::vector<std::uint32_t> triangles, scratch;
  std::string unknown_material;  // the first usemtl that named no loaded material

  void vertex(const glm::vec3& p) { positions.push_back(p); }

  void object() {
    if (faces_in_object == 0 && object_count > 0) return;  // empty objects and groups take no colour
    object_rgba =
        pack_rgba(glm::vec4(hsv_to_rgb(0.11f + 0.23f * static_cast<float>(object_count++), 0.6f, 0.95f), 1.0f));
    faces_in_object = 0;
  }

  void use_material(std::string_view name) {
    material = libraries.find(name);
    if (material == nullptr && unknown_material.empty()) unknown_material = name;
  }

  void material_library(std::string_view name) { libraries.load(name); }

  void face(const std::vector<long long>& refs) {
    corners.clear();
    for (const long long r : refs) corners.push_back(positions[static_cast<std::size_t>(r)]);
    std::uint32_t rgba = object_rgba;
    if (material != nullptr)
      rgba = pack_rgba(glm::vec4(material->diffuse, material->dissolve > 0 ? material->dissolve : 1.0f));
    triangles.clear();
    triangulate(corners, triangles, scratch);
    for (const std::uint32_t corner : triangles) {
      const glm::vec3 q = corners[corner];
      mesh.indices.push_back(static_cast<std::uint32_t>(mesh.vertices.size()));
      mesh.vertices.push_back({q.x, q.y, q.z, rgba});
    }
    ++faces_in_object;
  }
};

}  // namespace

ObjText read_obj(const std::string& path) {
  return obj_from_text(path, read_input_file(path, kMaxObjBytes, "OBJ file"));
}

ObjText obj_from_text(const std::string& path, std::string text) {
  ObjText obj;
  obj.path = path;
  obj.text = std::move(text);
  check_text_encoding(obj.text, path);
  Counter counter{obj};
  read_statements(obj, counter);
  if (obj.faces == 0) throw SceneError(shown_path(path) + ": contains no faces (empty or not an OBJ file)");
  return obj;
}

Mesh parse_obj(const ObjText& obj, std::string* notes, std::vector<std::string>* materials_read) {
  MaterialLibraries libraries(std::filesystem::path(obj.path).parent_path(), obj.path, notes, materials_read);
  Builder b(libraries);
  b.object();
  b.positions.reserve(obj.vertices);
  b.mesh.vertices.reserve(3 * obj.triangles);
  b.mesh.indices.reserve(3 * obj.triangles);
  read_statements(obj, b);
  if (b.mesh.indices.empty()) throw SceneError(shown_path(obj.path) + ": contains no triangles");
  if (!b.unknown_material.empty() && !libraries.failed())  // a failed library was noted already
    libraries.note("usemtl " + quote_for_message(b.unknown_material) + " names no loaded material");
  return std::move(b.mesh);
}

}  // namespace depthsort::app
