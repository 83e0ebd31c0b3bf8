#!/usr/bin/env bash
# Builds the programs scripts/gpu-suite.sh runs and packs them into .carry/run/NAME.tar.xz
# (default bins), for a GPU machine that does not build the tree itself: xz brings build/bin to
# about a quarter of its size. Also records the commit the binaries come from (BUILD/COMMIT),
# since the device machine's copy of the tree does not bring its git history up to date, and the
# CUDA architectures they were built for (BUILD/CUDA_ARCHITECTURES, printed by gpu-suite.sh).
#
#   scripts/device-pack.sh [--out NAME] [build-dir] [program...]   (default: every program gpu-suite.sh runs)
#   then, on the GPU machine, in a copy of the tree with .carry/run (and .gl on a bare image):
#     mkdir -p build && tar -xJf .carry/run/bins.tar.xz -C build && scripts/gpu-suite.sh build PARTS
#
# Several builds travel together, each in its own archive, e.g. the sm_90 build and the PTX
# builds of the older architectures (presets ptx80, ptx75; docs/gpus.md):
#   scripts/device-pack.sh build
#   scripts/device-pack.sh --out ptx80 build-ptx80 depthsort-gpu-tests depthsort-bench
#   scripts/device-pack.sh --out ptx75 build-ptx75 depthsort-gpu-tests depthsort-bench
# Everything carried (.carry plus .gl) must stay within 64 MiB: the total is printed after each
# pack, and a pack that takes it beyond fails.
set -euo pipefail
cd "$(dirname "$0")/.."
name=bins
if [[ ${1:-} == --out ]]; then
  name=${2:?device-pack: --out needs a name}
  shift 2
fi
[[ $name =~ ^[A-Za-z0-9_-]+$ ]] || { echo "device-pack: --out $name: letters, digits, - and _ only" >&2; exit 2; }
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
# The programs are built first, so that a build older than the tree is never packed under the
# tree's commit (up to date, this costs nothing).
targets=()
for program in "${programs[@]}"; do
  if [[ $program == *.so ]]; then
    target=${program%.so}
    targets+=("${target//-/_}")
  else
    targets+=("$program")
  fi
done
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
echo "device-pack: building ${targets[*]} in $build" >&2
if ! cmake --build "$build" --target "${targets[@]}" >"$build_log" 2>&1; then
  tail -40 "$build_log" >&2
  echo "device-pack: the build of $build failed (above); nothing packed" >&2
  exit 1
fi
git rev-parse --short HEAD | sed "s/\$/${suffix:-}/" >"$build/COMMIT"
sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt" >"$build/CUDA_ARCHITECTURES"
files=(COMMIT CUDA_ARCHITECTURES)
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
archive=.carry/run/$name.tar.xz
tar -cJf "$archive" -C "$build" "${files[@]}" "${ctest_files[@]}"
size=$(stat -c %s "$archive")
carried_paths=(.carry)
[[ -e .gl ]] && carried_paths+=(.gl)
carried=$(du -cb "${carried_paths[@]}" | tail -1 | cut -f1)
echo "device-pack: $archive, $((size >> 20)) MiB ($size bytes), commit $(cat "$build/COMMIT"), CUDA architectures $(cat "$build/CUDA_ARCHITECTURES"): ${programs[*]}"
echo "device-pack: carried in all (${carried_paths[*]}): $((carried >> 20)) MiB ($carried bytes) of 64 MiB"
if ((carried > 64 << 20)); then
  echo "device-pack: over 64 MiB with .gl: pack fewer programs, or remove archives from .carry/run that are not needed" >&2
  exit 1
fi
