#!/usr/bin/env bash
# The demo's checks and measurements on the lent GPU (see ../shared/DEVICE.md): the app's GPU
# tests, headless runs with drawing of small scenes (screenshots for the docs),
# and --no-draw runs of the compute part of the frame at millions of primitives, each GPU sorter.
#
#   scripts/demo-gpu.sh BUILD_DIR OUT_DIR
#
# Expects the GL libraries installed and __EGL_VENDOR_LIBRARY_FILENAMES exported (DEVICE.md).
# Writes OUT_DIR/demo/{*.log,*.json,*.png,summary.txt}. Never draws more than ~50K triangles.
set -u
BUILD=${1:?usage: demo-gpu.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: demo-gpu.sh BUILD_DIR OUT_DIR}
BUILD=$(cd "$BUILD" && pwd)
BIN="$BUILD/bin"
[ -x "$BIN/depthsort" ] || BIN="$BUILD"   # accept the bin folder itself
DS="$BIN/depthsort"
D="$OUT/demo"
mkdir -p "$D"
D=$(cd "$D" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TORUS="$ROOT/assets/glass_torus.obj"
SUMMARY="$D/summary.txt"
: > "$SUMMARY"
FRAMES=${DEMO_FRAMES:-300}
failures=0
start=$(date +%s)

note() { echo "$*" | tee -a "$SUMMARY"; }

# run NAME LIMIT_S ARGS...: one headless run, its log and exit status in the summary.
run() {
  local name=$1 limit=$2
  shift 2
  if [ $(( $(date +%s) - start + limit )) -gt ${DEMO_BUDGET_S:-270} ]; then
    note "$(printf '%-34s skipped (time budget DEMO_BUDGET_S=%s)' "$name" "${DEMO_BUDGET_S:-270}")"
    return
  fi
  local t0=$(date +%s%N)
  timeout "$limit" "$DS" --headless "$@" > "$D/$name.log" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ $rc -ne 0 ]; then failures=$((failures + 1)); fi
  note "$(printf '%-34s rc=%-3s %6d ms  %s' "$name" "$rc" "$ms" "$(grep -E 'medians|order checks|error' "$D/$name.log" | tr '\n' ' ' | cut -c1-600)")"
}

note "demo-gpu.sh on $(hostname), $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$SUMMARY"
"$DS" --version | tee -a "$SUMMARY"

# 1. The app's GPU tests (every GPU sorter gives the CPU path's pixels; small scenes; millions without drawing).
if [ -x "$BIN/depthsort-app-gpu-tests" ]; then
  (cd "$D" && timeout 120 "$BIN/depthsort-app-gpu-tests" > "$D/app-gpu-tests.log" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && failures=$((failures + 1))
  note "app-gpu-tests rc=$rc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$D/app-gpu-tests.log" | tr '\n' ' ')"
fi
if [ -x "$BIN/depthsort-app-tests" ]; then
  (cd "$D" && timeout 60 "$BIN/depthsort-app-tests" > "$D/app-tests.log" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && failures=$((failures + 1))
  note "app-tests (CPU path, on the GPU machine's GL) rc=$rc: $(grep -E '^\[  (PASSED|FAILED) ' "$D/app-tests.log" | tr '\n' ' ')"
fi

# 2. Drawing, small scenes only: 300 frames each, with screenshots (<= ~50K triangles).
run draw-mesh-10k 60 --mesh "$TORUS" --copies 9 --frames "$FRAMES" --size 1280x720 --camera-path orbit \
    --json "$D/draw-mesh-10k.json" --screenshot "$D/mesh-10k.png"
run draw-particles-10k 60 --scene none --particles 10K --frames "$FRAMES" --size 1280x720 --camera-path orbit \
    --json "$D/draw-particles-10k.json" --screenshot "$D/particles-10k.png"
run shot-knot-50k 60 --triangles 50K --frames 2 --size 1280x720 --screenshot "$D/knot-50k.png"
run shot-torus-tiled-46k 60 --mesh "$TORUS" --copies 40 --frames 2 --size 1280x720 --screenshot "$D/torus-tiled-46k.png"
run shot-particles-50k 60 --scene none --particles 50K --frames 2 --size 1280x720 --screenshot "$D/particles-50k.png"

# 3. The compute part of the frame at the paper's scales, without drawing, every GPU sorter.
SORTERS=${DEMO_SORTERS:-$("$DS" --help | sed -n 's/.*--sorter NAME *one of: //p' | tr -d ' ' | tr ',' '\n' | grep -v '^cpu$')}
for s in $SORTERS; do
  run "nodraw-knot2M-$s" 40 --no-draw --sorter "$s" --frames "$FRAMES" --camera-path orbit --json "$D/nodraw-knot2M-$s.json"
  run "nodraw-mesh5M-$s" 45 --no-draw --sorter "$s" --mesh "$TORUS" --triangles 5M --frames "$FRAMES" \
      --camera-path orbit --json "$D/nodraw-mesh5M-$s.json"
  run "nodraw-particles10M-$s" 45 --no-draw --sorter "$s" --scene none --particles 10M --frames "$FRAMES" \
      --camera-path orbit --json "$D/nodraw-particles10M-$s.json"
done

note "failures: $failures; $(( $(date +%s) - start )) s"
[ $failures -eq 0 ]
