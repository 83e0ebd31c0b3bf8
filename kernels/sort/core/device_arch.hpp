// What to tell a user whose GPU this build has no kernels for: the GPU's architecture, the ones
// the build carries, and the commands that build for the GPU (device.cu).
#pragma once

#include <string>

namespace depthsort {

// The architectures this build's kernels were compiled for, as "sm_75, sm_80" (nvcc's list of
// the virtual architectures; a newer GPU can run the newest of them from its PTX).
std::string build_architectures();

// "the GPU (NAME) is sm_86; this build carries sm_90: build for it: scripts/run.sh (...), or
// cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=86 && cmake --build build". Without a device, the
// same without the GPU's part.
std::string build_for_this_gpu();

}  // namespace depthsort
