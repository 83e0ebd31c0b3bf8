#!/usr/bin/env bash
# Everything the lent GPU is for, in one call: GPU tests, the benchmark, the demo's GPU checks and
# the hybrid sort's studies. Binaries are built here (scripts/test.sh or cmake --build) and carried.
#
#   device run, carry [.gl, build/bin, build/CTestTestfile.cmake, build/tests]:
#     scripts/gpu-suite.sh [build-dir] [parts...]      parts: tests bench demo hybrid (default all)
#
# Results land in $OUT: summary.txt (what the reply shows), bench.csv, and results.tgz (every log).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${1:-build}
shift || true
parts=${*:-tests bench demo hybrid}
OUT=${OUT:-/tmp/depthsort-out}
work=/tmp/depthsort-results
mkdir -p "$OUT" "$work"
summary=$work/summary.txt
note() { echo "$*" | tee -a "$summary"; }
failures=0
# status NAME CODE: records a part's exit status; any non-zero makes the script exit 1.
status() {
  note "$1 exit status $2"
  if [[ $2 != 0 ]]; then failures=$((failures + 1)); fi
}
has_part() { [[ " $parts " == *" $1 "* ]]; }

# GL libraries for the demo, as ../shared/DEVICE.md says; EGL finds NVIDIA's vendor library.
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json

# ctest's files name the absolute paths of the machine that configured the build: give the tree
# the same path here.
configured=$(sed -n 's/^# Build directory: //p' "$build/CTestTestfile.cmake" 2>/dev/null | head -1)
if [[ -n $configured && ! -e $configured ]]; then
  mkdir -p "$(dirname "$(dirname "$configured")")"
  ln -sfn "$repo" "$(dirname "$configured")"
fi

note "== depthsort GPU suite, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$summary"

if has_part tests; then
  note "== ctest -L gpu"
  (cd "${configured:-$build}" && timeout 420 ctest -L gpu -j 12 --output-on-failure --timeout 400) >"$work/ctest-gpu.log" 2>&1
  status ctest $?
  grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test time" "$work/ctest-gpu.log" | tail -25 | tee -a "$summary"
fi

if has_part bench && [[ -x $build/bin/depthsort-bench ]]; then
  note "== depthsort-bench, uniform, 1M..64M"
  timeout 300 "$build/bin/depthsort-bench" --sizes 1M,4M,16M,64M --dist uniform --reps 21 \
    --csv "$work/bench.csv" --json "$work/bench.json" >"$work/bench.log" 2>&1
  status bench $?
  tail -40 "$work/bench.log" | tee -a "$summary"
  cp "$work/bench.csv" "$OUT/bench.csv" 2>/dev/null
fi

if has_part hybrid && [[ -x scripts/hybrid-study.sh ]]; then
  note "== scripts/hybrid-study.sh"
  timeout 280 scripts/hybrid-study.sh "$build/bin" "$work/hybrid" ${HYBRID_PARTS:-bench dists} >"$work/hybrid.log" 2>&1
  status "hybrid study" $?
  tail -40 "$work/hybrid.log" | tee -a "$summary"
fi

if has_part demo && [[ -x scripts/demo-gpu.sh ]]; then
  note "== scripts/demo-gpu.sh"
  timeout 300 scripts/demo-gpu.sh "$build" "$work" >"$work/demo.log" 2>&1
  status "demo checks" $?
  tail -40 "$work/demo/summary.txt" | tee -a "$summary"
fi

cp "$summary" "$OUT/summary.txt"
tar -czf "$OUT/results.tgz" -C "$work" . 2>/dev/null
echo "== results in \$OUT: summary.txt bench.csv results.tgz; parts failed: $failures"
exit $((failures > 0))
