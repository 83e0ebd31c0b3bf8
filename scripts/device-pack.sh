#!/usr/bin/env bash
# Packs the programs scripts/gpu-suite.sh runs into .carry/run/bins.tar.xz, for a GPU machine that
# does not build the tree itself: xz brings build/bin to about a quarter of its size.
# Also records the commit the binaries come from (build/COMMIT), since the device machine's copy of
# the tree does not bring its git history up to date.
#
#   scripts/device-pack.sh [build-dir] [program...]   (default: every program gpu-suite.sh runs)
#   then, on the GPU machine, in a copy of the tree with .carry/run (and .gl on a bare image):
#     mkdir -p build && tar -xJf .carry/run/bins.tar.xz -C build && scripts/gpu-suite.sh build PARTS
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
programs=("$@")
if ((${#programs[@]} == 0)); then
  programs=(depthsort-gpu-tests depthsort-bench depthsort-app-gpu-tests depthsort depthsort-multigpu depthsort-mms-types
            depthsort-nvtx-gpu-tests depthsort-nvtx-recorder.so)
fi
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  echo "device-pack: note: the tree has uncommitted changes; COMMIT names HEAD plus '-dirty'" >&2
  suffix=-dirty
fi
git rev-parse --short HEAD | sed "s/\$/${suffix:-}/" >"$build/COMMIT"
files=(COMMIT)
for program in "${programs[@]}"; do
  if [[ ! -x $build/bin/$program ]]; then
    echo "device-pack: $build/bin/$program not built (cmake --build $build)" >&2
    exit 1
  fi
  files+=("bin/$program")
done
# ctest's own files, so that `ctest -L ^gpu$` runs there as here.
mapfile -t ctest_files < <(cd "$build" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) -not -path '*/CMakeFiles/*')
mkdir -p .carry/run
tar -cJf .carry/run/bins.tar.xz -C "$build" "${files[@]}" "${ctest_files[@]}"
size=$(stat -c %s .carry/run/bins.tar.xz)
echo "device-pack: .carry/run/bins.tar.xz, $((size >> 20)) MiB, commit $(cat "$build/COMMIT"): ${programs[*]}"
if ((size > 60 << 20)); then
  echo "device-pack: over 60 MiB: with .gl it may not fit a 64 MiB transfer; pack fewer programs" >&2
  exit 1
fi
