#!/usr/bin/env bash
# The transparency modes measured on a CUDA GPU (docs/transparency.md): sorted primitives,
# unsorted, weighted blended OIT and the per-pixel reference, each drawn headless with the camera
# orbiting at 200K triangles + 50K particles and at 5M triangles + 1M particles, at 1280x720 and
# 1920x1080: every phase's median, the A-buffer's budget and use, each mode's memory; then the
# difference view of sorted, unsorted and wboit against the reference on both scenes at 1280x720
# (how many pixels each gets wrong); screenshots of every mode and of the difference views.
#
#   scripts/study/transparency.sh BUILD_DIR OUT_DIR
#
# Writes OUT_DIR/transparency.md (the table), OUT_DIR/transparency-summary.txt, and
# OUT_DIR/transparency.tar.gz (runs/*.{log,json}, the screenshots): three files. Prints the table
# last. About 3 minutes on an H100; TRANSPARENCY_BUDGET_S (default 220) skips, and lists, what
# would not fit; TRANSPARENCY_FRAMES (30) frames a timed run.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
BUILD=${1:?usage: transparency.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: transparency.sh BUILD_DIR OUT_DIR}
BUILD=$(cd "$BUILD" && pwd)
BIN="$BUILD/bin"
[ -x "$BIN/depthsort" ] || BIN="$BUILD"
DS="$BIN/depthsort"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/runs" "$W/shots"
SUMMARY="$OUT/transparency-summary.txt"
: > "$SUMMARY"
FRAMES=${TRANSPARENCY_FRAMES:-30}
BUDGET=${TRANSPARENCY_BUDGET_S:-220}
start=$(date +%s)
failures=0
note() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(( $(date +%s) - start )); }

# run NAME EST_S ARGS...: one headless run (at most 75 s) unless it would pass the budget.
run() {
  local name=$1 est=$2
  shift 2
  if [ $(( $(elapsed) + est )) -gt "$BUDGET" ]; then
    note "$(printf '%-40s skipped (time budget)' "$name")"
    return
  fi
  local t0=$(date +%s%N)
  timeout 75 "$DS" --headless --camera-path orbit "$@" --json "$W/runs/$name.json" > "$W/runs/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$W/runs/$name.rc"
  [ $rc -ne 0 ] && failures=$((failures + 1))
  note "$(printf '%-40s rc=%-3s %6d ms  %s' "$name" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))" \
    "$(grep -E 'a-buffer \(|difference \(|error|warning' "$W/runs/$name.log" | tr '\n' ' ' | cut -c1-240)")"
}

note "transparency.sh on $(hostname), $(date -u +%FT%TZ), budget ${BUDGET} s, $FRAMES frames a timed run"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' |
  tee -a "$SUMMARY"
"$DS" --version | tee -a "$SUMMARY"

# 1. Each mode timed: the small scene first (fast), then the goal's; the screenshots from the
#    goal's scene at 1920x1080.
for scene in "200K 50K 4" "5M 1M 9"; do
  read -r t p est <<< "$scene"
  for size in 1280x720 1920x1080; do
    for mode in sorted unsorted wboit reference; do
      shot=()
      [ "$t" = 5M ] && [ "$size" = 1920x1080 ] && shot=(--screenshot "$W/shots/$mode-t$t-p$p-$size.png")
      run "t$t-p$p-$size-$mode" "$est" --triangles "$t" --particles "$p" --size "$size" --frames "$FRAMES" \
        --transparency "$mode" "${shot[@]}"
    done
  done
done

# 2. The difference views against the reference: the pixels each mode gets wrong (sprites crossing
#    the knot, for sorted primitives), with screenshots, on both scenes at 1280x720.
for scene in "200K 50K 4" "5M 1M 9"; do
  read -r t p est <<< "$scene"
  for mode in sorted unsorted wboit; do
    run "difference-t$t-p$p-1280x720-$mode" "$est" --triangles "$t" --particles "$p" --size 1280x720 --frames 10 \
      --transparency "$mode" --difference --screenshot "$W/shots/difference-$mode-t$t-p$p-1280x720.png"
  done
done
# The intersecting triangles, where sorting whole primitives cannot be right.
run "difference-intersect-1280x720-sorted" 3 --scene intersect --size 1280x720 --frames 3 --difference \
  --screenshot "$W/shots/difference-intersect-1280x720-sorted.png"

python3 "$here/tables/transparency.py" "$W" > "$OUT/transparency.md"
note "failures: $failures; $(elapsed) s"
tar -czf "$OUT/transparency.tar.gz" -C "$W" runs shots
cp "$OUT/transparency.md" "$W/" 2>/dev/null
echo
cat "$OUT/transparency.md"
[ $failures -eq 0 ]
