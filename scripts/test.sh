#!/usr/bin/env bash
# Sets up, builds (for sm_90: the H100 and H200) and runs every test. GPU tests are reported as
# skipped, with the reason, where no CUDA device exists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default
ctest --preset default
