#!/usr/bin/env bash
# Builds the fuzz targets with clang++ (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer)
# and runs each for SECONDS (default 60), one after the other; exits non-zero on the first crash,
# leak, timeout or sanitizer report, whose input libFuzzer saves as crash-*/leak-*/timeout-* in
# the build folder. Host code only: the readers' sources are compiled here, not the CUDA library.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      targets: obj mtl number count (default: all four)
#   FUZZ_BUILD=build-fuzz  FUZZ_JOBS=1           build folder; parallel fuzzing jobs per target
#   FUZZ_TIMEOUT=30                              seconds one input may take before it is a hang
#
# The corpus grows in $FUZZ_BUILD/corpus/<target> (kept between runs); the seeds are read from
# tests/fuzz/seeds/ and the test files, never written. docs/fuzzing.md has the longer runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(obj mtl number count)
build="${FUZZ_BUILD:-$root/build-fuzz}"
jobs="${FUZZ_JOBS:-1}"
# An input takes milliseconds; 30 s leaves room for a loaded machine (at 10 s, a CI runner shared
# with other jobs once stopped on an input that runs in 0.5 s alone).
timeout="${FUZZ_TIMEOUT:-30}"
cxx="${FUZZ_CXX:-clang++}"
command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
mkdir -p "$build/obj"

# -fno-sanitize-recover: an undefined-behaviour report stops the run, so libFuzzer sees it as a crash.
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -I"$root/app" -I"$root/host/include" -I"$root/kernels/sort/include"
       -I"$root/kernels/frame/include" -I/usr/local/cuda/include)
declare -A sources=(
  [obj]="app/scene/obj_loader.cpp app/scene/obj_text.cpp app/scene/input_file.cpp app/scene/mesh.cpp kernels/frame/torus_knot.cpp host/count_text.cpp host/stop_signal.cpp host/memory_available.cpp tests/fuzz/no_device.cpp"
  [mtl]="app/scene/obj_loader.cpp app/scene/obj_text.cpp app/scene/input_file.cpp app/scene/mesh.cpp kernels/frame/torus_knot.cpp host/count_text.cpp host/stop_signal.cpp host/memory_available.cpp tests/fuzz/no_device.cpp"
  [number]="app/scene/obj_text.cpp"
  [count]="host/count_text.cpp")
declare -A seeds=(
  [obj]="$root/tests/app/data $root/assets"
  [mtl]="$root/tests/app/data $root/assets"
  [number]="$root/tests/fuzz/seeds/number $root/tests/app/data"
  [count]="$root/tests/fuzz/seeds/count")

compile() {  # source -> object, rebuilt when the source or a header of app/, host/ or kernels/ is newer
  local source="$1" object="$build/obj/$(echo "$1" | tr / _).o"
  if [[ ! -f "$object" || -n "$(find "$root/$source" "$root/app" "$root/host/include" "$root/kernels" "$root/tests/fuzz" \
        -newer "$object" -name '*.[ch]pp' -print -quit)" ]]; then
    "$cxx" "${flags[@]}" -c "$root/$source" -o "$object"
  fi
  echo "$object"
}

for target in "${targets[@]}"; do
  [[ -n "${sources[$target]:-}" ]] || { echo "fuzz: unknown target '$target' (obj, mtl, number, count)" >&2; exit 2; }
  objects=()
  for source in ${sources[$target]} tests/fuzz/fuzz_$target.cpp; do objects+=("$(compile "$source")"); done
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "${objects[@]}" -o "$build/fuzz_$target"
done

for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  seed_files=()
  for folder in ${seeds[$target]}; do
    case "$target" in
      obj) seed_files+=("$folder"/*.obj) ;;
      mtl) seed_files+=("$folder"/*.mtl) ;;
      number) seed_files+=("$folder"/*) ;;
      *) seed_files+=("$folder"/*) ;;
    esac
  done
  cp -n "${seed_files[@]}" "$corpus"/ 2>/dev/null || true
  echo "fuzz: $target for ${seconds} s (corpus $corpus)"
  # stdin from /dev/null: an input naming /dev/stdin as a library must not wait on the terminal.
  # -timeout: one input that takes that long is a hang; -rss_limit_mb: one that needs 2 GiB.
  # -jobs even at 1 would send the output to fuzz-N.log files: only given for parallel runs.
  parallel=()
  [[ "$jobs" -le 1 ]] || parallel=(-jobs="$jobs" -workers="$jobs")
  (cd "$build" && UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ./"fuzz_$target" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=65536 \
       "${parallel[@]}" -print_final_stats=1 "$corpus" </dev/null)
done
