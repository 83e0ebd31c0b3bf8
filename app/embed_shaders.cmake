# cmake -DOUTPUT=file.cpp -DSHADERS="a.vert;b.frag" -P embed_shaders.cmake
# Writes depthsort::app::shader_source(name) returning each file's text (raw string literals).
set(body "// Generated from shaders/ by app/embed_shaders.cmake: do not edit.\n#include <string_view>\n#include <stdexcept>\n#include <string>\nnamespace depthsort::app {\nstd::string_view shader_source(std::string_view name) {\n")
foreach(path IN LISTS SHADERS)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" text)
  string(APPEND body "  if (name == \"${name}\") return R\"depthsort_glsl(${text})depthsort_glsl\";\n")
endforeach()
string(APPEND body "  throw std::runtime_error(\"no embedded shader named \" + std::string(name));\n}\n}  // namespace depthsort::app\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
