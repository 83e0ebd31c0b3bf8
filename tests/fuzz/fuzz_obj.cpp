// libFuzzer target: the OBJ reader (scene/obj_loader.cpp) on any bytes, as if read from a file:
// encoding check, the one line and number reader (scene/obj_text.hpp) in its check and its
// parse, the material libraries and the triangulation.
// Every input must end in a mesh or a SceneError; anything else (a crash, another exception, a
// sanitizer report, a leak, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_folder.hpp"
#include "scene/obj_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The OBJ "lives" in an empty folder of its own: an mtllib line names a missing library (a
  // note), never a file of the machine's working folder.
  static const std::string path = depthsort::fuzz::empty_folder("obj") + "/fuzz.obj";
  try {
    const depthsort::app::ObjText obj =
        depthsort::app::obj_from_text(path, std::string(reinterpret_cast<const char*>(data), size));
    std::string notes;
    const depthsort::app::Mesh mesh = depthsort::app::parse_obj(obj, &notes);
    if (mesh.indices.size() % 3 != 0 || mesh.indices.size() != mesh.vertices.size()) std::abort();
    for (const std::uint32_t index : mesh.indices)
      if (index >= mesh.vertices.size()) std::abort();
  } catch (const depthsort::app::SceneError&) {
  }
  return 0;
}
