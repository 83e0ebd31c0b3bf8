#!/usr/bin/env bash
# Sets up, builds and runs the main job: the demo when it is built, otherwise a short benchmark of
# every sorter available on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default
if [[ -x build/bin/depthsort ]]; then
  exec build/bin/depthsort "$@"
fi
exec build/bin/depthsort-bench --sizes 1M,4M --reps 11 "$@"
