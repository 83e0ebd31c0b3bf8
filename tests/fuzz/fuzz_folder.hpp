// An empty folder of the fuzz targets' own under $TMPDIR (or /tmp), made once per process, so
// that files the inputs name (an OBJ's mtllib) are looked for there, not in the working folder.
#pragma once

#include <cstdlib>
#include <string>

namespace depthsort::fuzz {

inline std::string empty_folder(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/depthsort-fuzz-" + name + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

}  // namespace depthsort::fuzz
