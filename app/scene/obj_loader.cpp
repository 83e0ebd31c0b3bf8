#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>

#include "scene/obj_loader.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace depthsort::app {

namespace {

// A line-level check before tinyobjloader (which is lenient and reports no line numbers for
// most problems): vertex records need three numbers, face records at least three references to
// vertices already defined. Returns the number of faces.
std::size_t prevalidate(const std::string& path, std::istream& in) {
  std::string line;
  std::size_t line_number = 0, vertices = 0, faces = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const auto fail = [&](const std::string& what) {
      throw SceneError(path + ":" + std::to_string(line_number) + ": " + what);
    };
    std::istringstream words(line);
    std::string tag;
    if (!(words >> tag) || tag[0] == '#') continue;
    if (tag == "v") {
      for (int c = 0; c < 3; ++c) {
        std::string number;
        if (!(words >> number)) fail("vertex with fewer than 3 coordinates");
        char* end = nullptr;
        const float x = std::strtof(number.c_str(), &end);
        if (end == number.c_str() || *end != '\0' || !std::isfinite(x))
          fail("vertex coordinate '" + number + "' is not a finite number");
      }
      ++vertices;
    } else if (tag == "f") {
      std::string ref;
      int corners = 0;
      while (words >> ref) {
        char* end = nullptr;
        const long index = std::strtol(ref.c_str(), &end, 10);
        if (end == ref.c_str() || (*end != '\0' && *end != '/')) fail("face reference '" + ref + "' is not an index");
        const long resolved = index < 0 ? static_cast<long>(vertices) + index + 1 : index;
        if (index == 0 || resolved < 1 || resolved > static_cast<long>(vertices))
          fail("face refers to vertex " + std::to_string(index) + " but " + std::to_string(vertices) +
               " vertices are defined so far");
        ++corners;
      }
      if (corners < 3) fail("face with fewer than 3 vertices");
      ++faces;
    }
  }
  if (in.bad()) throw SceneError(path + ": read error after line " + std::to_string(line_number));
  return faces;
}

}  // namespace

Mesh load_obj(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw SceneError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw SceneError(path + ": is a directory, not an OBJ file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw SceneError(path + ": cannot open (" + std::strerror(errno) + ")");
  if (prevalidate(path, file) == 0) throw SceneError(path + ": contains no faces (empty or not an OBJ file)");

  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  config.mtl_search_path = std::filesystem::path(path).parent_path().string();
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config)) {
    std::string why = reader.Error();
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    throw SceneError(path + ": " + (why.empty() ? "tinyobjloader could not parse it" : why));
  }
  const tinyobj::attrib_t& attrib = reader.GetAttrib();
  const auto& materials = reader.GetMaterials();
  Mesh mesh;
  std::size_t shape_index = 0;
  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    const glm::vec3 shape_rgb = hsv_to_rgb(0.11f + 0.23f * static_cast<float>(shape_index++), 0.6f, 0.95f);
    std::size_t offset = 0;
    for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const std::size_t corners = shape.mesh.num_face_vertices[f];
      glm::vec4 colour(shape_rgb, 1.0f);
      const int material = f < shape.mesh.material_ids.size() ? shape.mesh.material_ids[f] : -1;
      if (material >= 0 && static_cast<std::size_t>(material) < materials.size()) {
        const auto& m = materials[static_cast<std::size_t>(material)];
        colour = glm::vec4(m.diffuse[0], m.diffuse[1], m.diffuse[2], m.dissolve > 0 ? m.dissolve : 1.0f);
      }
      const std::uint32_t rgba = pack_rgba(colour);
      if (corners == 3) {
        for (std::size_t c = 0; c < 3; ++c) {
          const int vi = shape.mesh.indices[offset + c].vertex_index;
          if (vi < 0 || static_cast<std::size_t>(3 * vi + 2) >= attrib.vertices.size())
            throw SceneError(path + ": face " + std::to_string(f + 1) + " of shape '" + shape.name +
                             "' refers to a missing vertex");
          mesh.indices.push_back(static_cast<std::uint32_t>(mesh.vertices.size()));
          mesh.vertices.push_back({attrib.vertices[3 * vi], attrib.vertices[3 * vi + 1],
                                   attrib.vertices[3 * vi + 2], rgba});
        }
      }
      offset += corners;
    }
  }
  if (mesh.indices.empty()) throw SceneError(path + ": contains no triangles");
  return mesh;
}

}  // namespace depthsort::app
