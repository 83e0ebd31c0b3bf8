#!/usr/bin/env bash
# Sets up, checks the sources' layout (.clang-format), builds (for this machine's GPU; sm_90, the
# H100 and H200, where there is none) and runs every test. GPU tests are reported as skipped, with the reason, where no CUDA device exists.
# Then the host code of the CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer (the
# `asan` preset), and each fuzz target for DEPTHSORT_FUZZ_SECONDS (default 60; 0 skips them).
# docs/fuzzing.md has the longer runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/format-check.sh
source scripts/cuda-architectures.sh
cmake --preset default -DCMAKE_CUDA_ARCHITECTURES="$cuda_architectures" >/dev/null
cmake --build --preset default
ctest --preset default
cmake --preset asan -DCMAKE_CUDA_ARCHITECTURES="$cuda_architectures" >/dev/null
cmake --build --preset asan
ctest --preset asan
ctest --preset asan-app
fuzz_seconds="${DEPTHSORT_FUZZ_SECONDS:-60}"
if [[ "$fuzz_seconds" != 0 ]]; then tests/fuzz/run.sh "$fuzz_seconds"; fi
