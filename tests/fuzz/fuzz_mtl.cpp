// libFuzzer target: the MTL reader (scene/obj_loader.cpp's, through the one line and number
// reader) on any bytes: the input becomes the material library of a one-triangle OBJ that uses
// one of its materials. The triangle must come out, coloured or with a note; anything else (a
// crash, an exception, a sanitizer report, a leak, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_folder.hpp"
#include "scene/obj_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string folder = depthsort::fuzz::empty_folder("mtl");
  static const std::string library = folder + "/fuzz.mtl";
  std::FILE* file = std::fopen(library.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  if (std::fclose(file) != 0) std::abort();
  // Material names the seeds define (tests/app/data/good.mtl, assets/glass_torus.mtl).
  static const std::string obj_text =
      "mtllib fuzz.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl glass\nf 1 2 3\nusemtl red\nf 3 2 1\n";
  try {
    std::string notes;
    const depthsort::app::Mesh mesh =
        depthsort::app::parse_obj(depthsort::app::obj_from_text(folder + "/fuzz.obj", obj_text), &notes);
    if (mesh.triangles() != 2) std::abort();
  } catch (const depthsort::app::SceneError&) {
    std::abort();  // a library that cannot be used is a note; the OBJ itself is fine
  }
  return 0;
}
