#!/usr/bin/env bash
# Issues 12 (parts 1 and 4) and 13 (the app side) on the lent GPU: the one-order pixel tests of
# every GPU sorter, coherent vs from-scratch sort steps, whole frames with the single pulled draw
# (quad and triangle sprites), and screenshots of each view with the panel.
#
#   scripts/demo-views-gpu.sh BUILD_DIR OUT_DIR [PARTS]
#
# PARTS: a comma list of tests, sort, frame, shots (default: all four; each under a minute).
# Expects the GL libraries installed and __EGL_VENDOR_LIBRARY_FILENAMES exported (DEVICE.md).
# Writes OUT_DIR/views/{*.log,*.json,*.png,summary.txt}; about 2 minutes on an H200.
set -u
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

# 2. Issue 13: sort steps from scratch vs coherent, 5M triangles + 1M particles sorted together,
#    on the three camera paths, every frame's order checked (sort/* medians in the JSON).
# Issue 13's scene is 5M triangles and 10M particles: SORT_PARTICLES=10M, SORT_SORTERS="every GPU
# sorter" (names from depthsort-bench --list) give its table; the defaults keep the part short.
sort_sorters=${SORT_SORTERS:-cub-radix hybrid hybrid-coherent patch-merge}
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
want sort && python3 - "$D" > "$D/sort-table.md" <<'PY'
import glob, json, os, statistics, sys
d = sys.argv[1]
runs = {}
for path in glob.glob(os.path.join(d, "sort-*.json")):
    try:
        j = json.load(open(path))
    except Exception:
        continue
    m = j["meta"]
    times = [f.get("frame/sort") for f in j["frames"] if f.get("frame/sort") is not None]
    cut_times = [f["frame/sort"] for f in j["frames"] if f["frame"] > 0 and f["frame"] % 30 == 0]
    runs[(m["camera_path"], m["sorter"], "coherent" if m["coherent"] else "scratch")] = (j, times, cut_times)
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
print("| path | sorter | mode | sort median ms | p90 | slowest | x cub-radix (scratch) | depth median ms | order checks |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (path, sorter, mode), (j, times, cut_times) in sorted(runs.items()):
    base = runs.get((path, "cub-radix", "scratch"))
    med = statistics.median(times) if times else float("nan")
    ratio = med / statistics.median(base[1]) if base and base[1] else float("nan")
    m = j["meta"]
    print(f"| {path} | {sorter} | {mode} | {med:.3f} | {q(times, 0.9):.3f} | {max(times or [float('nan')]):.3f} | "
          f"{ratio:.2f}x | {j['median_ms'].get('frame/depth', float('nan')):.3f} | "
          f"{m['order_checks'] - m['order_check_failures']}/{m['order_checks']} |")
hyb = runs.get(("cuts", "hybrid", "scratch"))
if hyb and hyb[2]:
    ref = statistics.median(hyb[2])
    print()
    print(f"Cut frames (cuts path, every 30th frame): hybrid from scratch median {ref:.3f} ms on them.")
    print()
    print("| sorter | mode | cut frames median ms | slowest cut frame | median / hybrid's | slowest / hybrid's median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (path, sorter, mode), (j, times, cut_times) in sorted(runs.items()):
        if path == "cuts" and cut_times:
            med = statistics.median(cut_times)
            print(f"| {sorter} | {mode} | {med:.3f} | {max(cut_times):.3f} | {med / ref:.2f}x | {max(cut_times) / ref:.2f}x |")
PY
want sort && note "sort table: $D/sort-table.md" && cat "$D/sort-table.md" >> "$SUMMARY"

# 3. Whole frames with the single pulled draw, 1280x720 (issue 12, part 2's goal scene).
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
