#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>

#include "scene/obj_loader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "depthsort/host/count_text.hpp"

namespace depthsort::app {

namespace {

// Splits `line` at blanks (space, tab, CR, VT, FF) into `words`.
void split_words(std::string_view line, std::vector<std::string_view>& words) {
  words.clear();
  std::size_t i = 0;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !blank(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
}

// A line-level check before tinyobjloader (which is lenient and reports no line numbers): vertex
// records need three finite numbers, face records at least three references to vertices already
// defined. Linear in the text; counts what the parse will build.
void prevalidate(ObjText& obj) {
  const std::string shown = shown_path(obj.path);
  std::vector<std::string_view> words;
  std::string token;
  std::size_t line_number = 0, begin = 0;
  const std::string_view text = obj.text;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    const auto fail = [&](const std::string& what) {
      throw SceneError(shown + ":" + std::to_string(line_number) + ": " + what);
    };
    split_words(line, words);
    if (words.empty() || words[0][0] == '#') continue;
    if (words[0] == "v") {
      if (words.size() < 4) fail("vertex with fewer than 3 coordinates");
      for (std::size_t c = 1; c <= 3; ++c) {
        token.assign(words[c]);
        char* stop = nullptr;
        const float x = std::strtof(token.c_str(), &stop);
        if (stop == token.c_str() || *stop != '\0' || !std::isfinite(x))
          fail("vertex coordinate " + quote_for_message(words[c]) + " is not a finite number");
      }
      ++obj.vertices;
    } else if (words[0] == "f") {
      const std::size_t corners = words.size() - 1;
      for (std::size_t c = 1; c < words.size(); ++c) {
        const std::string_view ref = words[c];
        const std::string_view digits = ref.substr(0, ref.find('/'));
        token.assign(digits);
        char* stop = nullptr;
        errno = 0;
        const long long index = std::strtoll(token.c_str(), &stop, 10);
        if (token.empty() || *stop != '\0' || errno == ERANGE)
          fail("face reference " + quote_for_message(ref) + " is not an index");
        const long long vertices = static_cast<long long>(obj.vertices);
        const long long resolved = index < 0 ? vertices + index + 1 : index;
        if (index == 0 || resolved < 1 || resolved > vertices)
          fail("face refers to vertex " + std::to_string(index) + " but " + std::to_string(vertices) +
               " vertices are defined so far");
      }
      if (corners < 3) fail("face with fewer than 3 vertices");
      ++obj.faces;
      obj.triangles += corners - 2;
    }
  }
}

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
    if (glm::dot(d02, d02) <= glm::dot(d13, d13)) out.insert(out.end(), {0, 1, 2, 0, 2, 3});
    else out.insert(out.end(), {0, 1, 3, 1, 2, 3});
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

// tinyobjloader's material reader, reading through read_input_file: a material library is read
// once, bounded, and one that cannot be used is a note, not silence and not an endless read.
class MaterialReader final : public tinyobj::MaterialReader {
 public:
  MaterialReader(std::filesystem::path folder, std::string obj_path, std::string* notes, std::vector<std::string>* read)
      : folder_(std::move(folder)), obj_path_(std::move(obj_path)), notes_(notes), read_(read) {}

  bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials,
                  std::map<std::string, int>* names, std::string*, std::string*) override {
    const std::string path = (folder_ / name).string();
    if (read_) read_->push_back(path);
    try {
      std::string text = read_input_file(path, kMaxMtlBytes, "MTL file");
      check_text_encoding(text, path);
      strip_comments(text);
      const auto named = [&] { return names->size() - names->count(""); };  // LoadMtl adds an unnamed default
      const std::size_t before = named();
      std::istringstream in(text);
      std::string warnings, errors;
      tinyobj::LoadMtl(names, materials, &in, &warnings, &errors);
      if (named() == before) throw SceneError(shown_path(path) + ": defines no material");
      return true;
    } catch (const SceneError& e) {
      failed_ = true;
      note(std::string("mtllib ") + quote_for_message(name) + " not used (" + e.what() + ")");
      return false;
    }
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
  bool failed_ = false;
};

struct Builder {
  const ObjText* obj = nullptr;
  std::vector<glm::vec3> positions;
  std::vector<tinyobj::material_t> materials;
  int material = -1;
  std::size_t object = 0, faces_in_object = 0;
  std::uint32_t object_rgba = 0;
  Mesh mesh;
  std::vector<glm::vec3> corners;
  std::vector<std::uint32_t> triangles, scratch;
  std::string unknown_material;  // the first usemtl that named no loaded material

  void next_object() {
    if (faces_in_object == 0 && object > 0) return;  // empty objects and groups take no colour
    object_rgba = pack_rgba(glm::vec4(hsv_to_rgb(0.11f + 0.23f * static_cast<float>(object++), 0.6f, 0.95f), 1.0f));
    faces_in_object = 0;
  }

  void face(const tinyobj::index_t* refs, int count) {
    corners.clear();
    for (int c = 0; c < count; ++c) {
      const long long raw = refs[c].vertex_index;
      const long long resolved = raw < 0 ? static_cast<long long>(positions.size()) + raw : raw - 1;
      if (raw == 0 || resolved < 0 || resolved >= static_cast<long long>(positions.size()))
        throw SceneError(shown_path(obj->path) + ": face " + std::to_string(faces_in_object + 1) +
                         " refers to a missing vertex");
      corners.push_back(positions[static_cast<std::size_t>(resolved)]);
    }
    std::uint32_t rgba = object_rgba;
    if (material >= 0 && static_cast<std::size_t>(material) < materials.size()) {
      const tinyobj::material_t& m = materials[static_cast<std::size_t>(material)];
      rgba = pack_rgba(glm::vec4(m.diffuse[0], m.diffuse[1], m.diffuse[2], m.dissolve > 0 ? m.dissolve : 1.0f));
    }
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
  strip_comments(obj.text);
  prevalidate(obj);
  if (obj.faces == 0)
    throw SceneError(shown_path(path) + ": contains no faces (empty or not an OBJ file)");
  return obj;
}

Mesh parse_obj(const ObjText& obj, std::string* notes, std::vector<std::string>* materials_read) {
  Builder b;
  b.obj = &obj;
  b.next_object();
  b.positions.reserve(obj.vertices);
  b.mesh.vertices.reserve(3 * obj.triangles);
  b.mesh.indices.reserve(3 * obj.triangles);
  tinyobj::callback_t callbacks;
  callbacks.vertex_cb = [](void* user, tinyobj::real_t x, tinyobj::real_t y, tinyobj::real_t z, tinyobj::real_t) {
    static_cast<Builder*>(user)->positions.emplace_back(x, y, z);
  };
  callbacks.index_cb = [](void* user, tinyobj::index_t* refs, int count) {
    if (count >= 3) static_cast<Builder*>(user)->face(refs, count);
  };
  callbacks.usemtl_cb = [](void* user, const char* name, int material) {
    auto* b = static_cast<Builder*>(user);
    b->material = material;
    if (material < 0 && b->unknown_material.empty()) b->unknown_material = name;
  };
  callbacks.mtllib_cb = [](void* user, const tinyobj::material_t* materials, int count) {
    static_cast<Builder*>(user)->materials.assign(materials, materials + count);
  };
  callbacks.group_cb = [](void* user, const char**, int) { static_cast<Builder*>(user)->next_object(); };
  callbacks.object_cb = [](void* user, const char*) { static_cast<Builder*>(user)->next_object(); };

  MaterialReader materials(std::filesystem::path(obj.path).parent_path(), obj.path, notes, materials_read);
  std::istringstream in(obj.text);
  std::string warnings, errors;
  if (!tinyobj::LoadObjWithCallback(in, callbacks, &b, &materials, &warnings, &errors)) {
    while (!errors.empty() && (errors.back() == '\n' || errors.back() == '\r')) errors.pop_back();
    throw SceneError(shown_path(obj.path) + ": " +
                     (errors.empty() ? "tinyobjloader could not parse it" : quote_for_message(errors, 120)));
  }
  if (b.mesh.indices.empty()) throw SceneError(shown_path(obj.path) + ": contains no triangles");
  if (!b.unknown_material.empty() && !materials.failed())  // a failed library was noted already
    materials.note("usemtl " + quote_for_message(b.unknown_material) + " names no loaded material");
  return std::move(b.mesh);
}

}  // namespace depthsort::app
