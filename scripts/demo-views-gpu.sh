#!/usr/bin/env bash
# The demo's views on a CUDA GPU: the one-order pixel tests of
# every GPU sorter, coherent vs from-scratch sort steps, whole frames with the single pulled draw
# (quad and triangle sprites), and screenshots of each view with the panel.
#
#   scripts/demo-views-gpu.sh BUILD_DIR OUT_DIR [PARTS]
#
# PARTS: a comma list of tests, sort, frame, shots (default: all four; each under a minute).
# Expects the GL libraries installed (on a bare image: scripts/bare-image-gl.sh).
# Writes OUT_DIR/views/{*.log,*.json,*.png,summary.txt}; about 2 minutes on an H200.
set -u
here=$(cd "$(dirname "$0")" && pwd)  # the table programs beside this script
BUILD=${1:?usage: demo-views-gpu.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: demo-views-gpu.sh BUILD_DIR OUT_DIR}
PARTS=",${3:-tests,sort,frame,shots},"
want() { [[ $PARTS == *",$1,"* ]]; }
BUILD=$(cd "$BUILD" && pwd)
DS="$BUILD/bin/depthsort"
D="$OUT/views"
mkdir -p "$D"
SUMMARY="$D/summary.txt"
: > "$SUMMARY"
failures=0
note() { echo "$*" | tee -a "$SUMMARY"; }

# run NAME LIMIT_S ARGS...: one headless run; its exit status, checks and medians in the summary.
run() {
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s%N)
  timeout "$limit" "$DS" --headless "$@" > "$D/$name.log" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $rc -eq 0 ] || failures=$((failures + 1))
  note "$(printf '%-30s rc=%d %6d ms  %s' "$name" $rc $ms "$(grep -h '^order checks' "$D/$name.log")")"
  grep -h 'medians' "$D/$name.log" | sed 's/^/    /' >> "$SUMMARY"
}

# 1. The pixel tests (CPU reference vs every GPU sorter, coherent, separate passes; segment colours; panel).
if want tests; then
  "$BUILD/bin/depthsort-app-gpu-tests" --gtest_filter='GpuPath.OneOrder*:GpuPath.Coherent*:GpuPath.SegmentColours*' \
    > "$D/gpu-tests.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failures=$((failures + 1))
  note "gpu tests rc=$rc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$D/gpu-tests.log" | tr '\n' ' ')"
fi

# 2. Sort steps from scratch vs coherent, 5M triangles + 1M particles sorted together,
#    on the three camera paths, every frame's order checked (sort/* medians in the JSON).
# The coherence study's scene is 5M triangles and 10M particles: SORT_PARTICLES=10M, SORT_SORTERS="every GPU
# sorter" (names from depthsort-bench --list) give its table; the defaults keep the part short.
sort_sorters=${SORT_SORTERS:-cub-radix hybrid hybrid-coherent run-bucket}
want sort && for path in orbit fly-through cuts; do
  for s in $sort_sorters; do
    for mode in scratch coherent; do
      extra=(); [ $mode = coherent ] && extra=(--coherent)
      run "sort-$path-$s-$mode" 60 --no-draw --triangles 5M --particles "${SORT_PARTICLES:-1M}" --camera-path $path --frames 300 \
        --check-every 1 --sorter $s "${extra[@]}" --json "$D/sort-$path-$s-$mode.json"
    done
  done
done

# The sort part's table (sort-table.md): per sorter, path and mode, frame/sort's median, p90 and
# slowest frame, ratio to cub-radix from scratch on the same path; on cuts, the cut frames (every
# 30th, kCutEvery in app/scene/camera.hpp) apart, against hybrid from scratch on the same frames.
want sort && python3 "$here/tables/demo-views-sort.py" "$D" > "$D/sort-table.md"
want sort && note "sort table: $D/sort-table.md" && cat "$D/sort-table.md" >> "$SUMMARY"

# 3. Whole frames with the single pulled draw, 1280x720 (the 60 fps goal's scene).
want frame && for shape in quad triangle; do
  run "frame-5M-1M-$shape" 100 --triangles 5M --particles 1M --camera-path orbit --frames 120 \
    --sprite-shape $shape --json "$D/frame-5M-1M-$shape.json"
done
want frame && run "frame-5M-1M-separate" 100 --triangles 5M --particles 1M --camera-path orbit --frames 120 --separate-passes \
  --json "$D/frame-5M-1M-separate.json"

# 4. Screenshots with the panel: one order vs separate passes where the fountain crosses the knot,
#    rank and segment colours, the wipe.
common=(--particles 200K --frames 60 --panel --sorter hybrid)
want shots || { note "failures: $failures"; exit $(( failures > 0 )); }
run shot-one-order 60 "${common[@]}" --screenshot "$D/one-order.png"
run shot-separate 60 "${common[@]}" --separate-passes --screenshot "$D/separate-passes.png"
run shot-rank 60 "${common[@]}" --colour rank --screenshot "$D/colour-rank.png"
run shot-segment 60 "${common[@]}" --colour segment --screenshot "$D/colour-segment.png"
run shot-wipe 60 "${common[@]}" --wipe 0.5 --screenshot "$D/wipe.png"
run shot-coherent 60 "${common[@]}" --coherent --camera-path orbit --screenshot "$D/coherent.png"

note "failures: $failures"
exit $(( failures > 0 ))
