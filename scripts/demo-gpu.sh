#!/usr/bin/env bash
# The demo's checks and whole-frame measurements on a CUDA GPU with drawing: the app's GPU tests, then headless runs WITH drawing at full scale,
# camera orbiting: 1M / 5M / 10M triangles with 1M / 10M particles, every GPU sorter,
# 1280x720 and 1920x1080, each phase's median and the frame rate the frame time allows; and
# map + unmap per frame with drawing and without (docs/interop.md: where its 0.32 ms comes from).
#
#   scripts/demo-gpu.sh BUILD_DIR OUT_DIR
#
# Expects the GL libraries installed (on a bare image: scripts/bare-image-gl.sh).
# Writes OUT_DIR/demo/: summary.txt, frames.csv, frames.md (the table), runs/*.{log,json}, *.png.
# Environment: DEMO_BUDGET_S (default 200) bounds the whole script: runs are made in priority
# order (the goal's configuration with drawing and without first, then every sorter, then the
# full matrix) and whatever would not fit is skipped and listed as skipped. DEMO_FRAMES (60)
# frames a run (medians over them); DEMO_SORTERS (every GPU sorter); DEMO_ARGS (added to every run
# but separate passes, e.g. --draw-path pull); DEMO_TESTS=0 skips the app's GPU
# tests; DEMO_NSYS=1 adds an Nsight Systems summary of the goal's configuration (where nsys exists).
set -u
here=$(cd "$(dirname "$0")" && pwd)  # the table programs beside this script
BUILD=${1:?usage: demo-gpu.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: demo-gpu.sh BUILD_DIR OUT_DIR}
BUILD=$(cd "$BUILD" && pwd)
BIN="$BUILD/bin"
[ -x "$BIN/depthsort" ] || BIN="$BUILD"   # accept the bin folder itself
DS="$BIN/depthsort"
D="$OUT/demo"
mkdir -p "$D/runs"
D=$(cd "$D" && pwd)
SUMMARY="$D/summary.txt"
SKIPPED="$D/runs/skipped.txt"
: > "$SUMMARY"
: > "$SKIPPED"
FRAMES=${DEMO_FRAMES:-60}
BUDGET=${DEMO_BUDGET_S:-200}
failures=0
start=$(date +%s)

note() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(( $(date +%s) - start )); }

# run NAME EST_S ARGS...: one headless run (timeout 90 s) unless the estimate EST_S would pass
# the budget; its log and JSON under runs/, one line in the summary.
run() {
  local name=$1 est=$2
  shift 2
  if [ -e "$D/runs/$name.rc" ]; then return; fi  # the same configuration asked for twice
  if [ $(( $(elapsed) + est )) -gt "$BUDGET" ]; then
    echo "$name" >> "$SKIPPED"
    return
  fi
  local t0=$(date +%s%N)
  # DEMO_ARGS (e.g. --draw-path expanded) joins every run but separate passes (which only pull)
  # and the runs that name their draw path.
  local extra=()
  [[ " $* " == *" --separate-passes "* || " $* " == *" --draw-path "* ]] || read -r -a extra <<< "${DEMO_ARGS:-}"
  timeout 90 "$DS" --headless --frames "$FRAMES" --camera-path orbit "$@" "${extra[@]}" --json "$D/runs/$name.json" \
    > "$D/runs/$name.log" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "$rc" > "$D/runs/$name.rc"
  echo "$* ${extra[*]}" > "$D/runs/$name.args"
  if [ $rc -ne 0 ]; then failures=$((failures + 1)); fi
  note "$(printf '%-44s rc=%-3s %6d ms  %s' "$name" "$rc" "$ms" "$(grep -E 'medians|order checks|error' "$D/runs/$name.log" | tr '\n' ' ' | cut -c1-300)")"
}

# Scene size -> a name part and an estimate of one run's seconds (startup builds the knot and
# reserves the sorters; 60 frames of up to ~40 ms).
est_for() {  # TRIANGLES PARTICLES
  local e=5
  case $1 in 5M) e=$((e + 3));; 10M) e=$((e + 6));; esac
  case $2 in 10M) e=$((e + 3));; esac
  echo $e
}

note "demo-gpu.sh on $(hostname), $(date -u +%FT%TZ), budget ${BUDGET} s, $FRAMES frames a run"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$SUMMARY"
"$DS" --version | tee -a "$SUMMARY"
HELP=$("$DS" --help | tr '\n' ' ' | tr -s ' ')

# 1. The app's GPU tests (every GPU sorter gives the CPU path's pixels, interop shares buffers both
#    ways, map + unmap timed with GL work before it and without), at most half the budget (120 s).
if [ "${DEMO_TESTS:-1}" != 0 ] && [ -x "$BIN/depthsort-app-gpu-tests" ]; then
  limit=$(( BUDGET / 2 )); [ $limit -gt 120 ] && limit=120
  (cd "$D" && timeout "$limit" "$BIN/depthsort-app-gpu-tests" > "$D/app-gpu-tests.log" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && failures=$((failures + 1))
  note "app-gpu-tests rc=$rc ($(elapsed) s): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$D/app-gpu-tests.log" | tr '\n' ' ')"
  grep -E '^map\+unmap' "$D/app-gpu-tests.log" | sed 's/^/  /' | tee -a "$SUMMARY"
fi

SORTERS=${DEMO_SORTERS:-$(echo "$HELP" | sed -n 's/.*--sorter NAME one of: \([^(]*\)(default.*/\1/p' | tr -d ' ' | tr ',' '\n' | grep -v -e '^cpu$' -e '^$')}
# The default and CUB's radix sort first (where listed), then the others, each once.
ORDERED=$( (printf '%s\n' hybrid cub-radix | grep -Fx -f <(printf '%s\n' $SORTERS); printf '%s\n' $SORTERS) | awk '!seen[$0]++')

# 2. The goal's configuration (5M triangles + 1M particles, 1280x720), with drawing and without
#    (map + unmap costs ~0.32 ms a frame only when GL has drawn: docs/interop.md).
run "t5M-p1M-1280x720-hybrid" "$(est_for 5M 1M)" --triangles 5M --particles 1M --size 1280x720 --sorter hybrid
run "t5M-p1M-nodraw-hybrid" "$(est_for 5M 1M)" --triangles 5M --particles 1M --no-draw --sorter hybrid
# The frame helper's options, where this build has them: one sort for everything vs separate passes.
if [[ $HELP == *--separate-passes* ]]; then
  run "t5M-p1M-1280x720-hybrid-separate-passes" "$(est_for 5M 1M)" --triangles 5M --particles 1M --size 1280x720 \
      --sorter hybrid --separate-passes
fi
# The draw paths side by side (docs/draw-paths.md): pulled quads, pulled triangle sprites, expanded.
if [[ $HELP == *--draw-path* ]]; then
  for path in "pull --sprite-shape quad" "pull --sprite-shape triangle" "expanded"; do
    read -r -a words <<< "$path"
    run "t5M-p1M-1280x720-hybrid-draw-${path// --sprite-shape /-}" "$(est_for 5M 1M)" --triangles 5M --particles 1M \
        --size 1280x720 --sorter hybrid --draw-path "${words[@]}"
  done
fi
if [[ $HELP == *--coherent* ]]; then
  # "-coherent-frames": not "-hybrid-coherent", the name of the hybrid-coherent sorter's own run below.
  run "t5M-p1M-1280x720-hybrid-coherent-frames" "$(est_for 5M 1M)" --triangles 5M --particles 1M --size 1280x720 \
      --sorter hybrid --coherent
fi

# Where map/unmap's time goes (opt-in, DEMO_NSYS=1, where nsys exists): Nsight Systems over 60
# frames of the goal's configuration; the CUDA API and NVTX summaries (host time per
# cudaGraphicsMapResources call) land in nsys.txt.
if [ "${DEMO_NSYS:-0}" = 1 ] && command -v nsys > /dev/null; then
  if [ $(( $(elapsed) + 40 )) -gt "$BUDGET" ]; then
    echo "nsys" >> "$SKIPPED"
  else
    timeout 120 nsys profile -t cuda,nvtx,opengl -o "$D/runs/nsys" --force-overwrite true \
      "$DS" --headless --frames 60 --camera-path orbit --triangles 5M --particles 1M \
      > "$D/runs/nsys.log" 2>&1 &&
      timeout 60 nsys stats -r cuda_api_sum,nvtx_sum "$D/runs/nsys.nsys-rep" > "$D/nsys.txt" 2>&1
    note "nsys rc=$?: $(grep -E 'cudaGraphicsMapResources|cudaGraphicsUnmapResources' "$D/nsys.txt" | tr -s ' ' | cut -c1-160 | tr '\n' ';')"
  fi
fi

# 3. Every GPU sorter on the goal's configuration.
for s in $ORDERED; do
  run "t5M-p1M-1280x720-$s" "$(est_for 5M 1M)" --triangles 5M --particles 1M --size 1280x720 --sorter "$s"
done

# 4. The full matrix: the default and CUB's radix sort first, then the other sorters.
for s in $ORDERED; do
  for size in 1280x720 1920x1080; do
    for t in 1M 5M 10M; do
      for p in 1M 10M; do
        run "t$t-p$p-$size-$s" "$(est_for $t $p)" --triangles "$t" --particles "$p" --size "$size" --sorter "$s"
      done
    done
  done
done

# 5. Screenshots for the docs, drawn at full scale.
run "shot-t5M-p1M-1280x720" 8 --triangles 5M --particles 1M --size 1280x720 --screenshot "$D/knot-5M-particles-1M.png"
run "shot-t1M-p1M-fly-through" 6 --triangles 1M --particles 1M --size 1280x720 --camera-path fly-through \
    --screenshot "$D/fly-through-1M-1M.png"

# The CSV and the markdown table, from the runs' JSON.
python3 "$here/tables/demo-frames.py" "$D"
note "table: $D/frames.md, csv: $D/frames.csv ($(grep -c . "$D/frames.csv") lines)"
nskip=$(grep -c . "$SKIPPED")
[ "$nskip" -gt 0 ] && note "skipped for the time budget (DEMO_BUDGET_S=$BUDGET): $nskip runs: $(tr '\n' ' ' < "$SKIPPED" | cut -c1-400)"
note "failures: $failures; $(elapsed) s"
[ $failures -eq 0 ]
