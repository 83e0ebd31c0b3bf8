#!/usr/bin/env bash
# The measurements of depth-bucket, depthsort's fused frame order (docs/algorithms/depth-bucket.md),
# on a CUDA GPU, in one run.
# Usage (on the GPU machine, from the repository root):
#   scripts/study/depth-bucket.sh BIN_DIR OUT_DIR [tests] [sequences] [shapes] [sizes] [profile]
# BIN_DIR holds depthsort-gpu-tests, depthsort-bench and depthsort-nvtx-gpu-tests (built elsewhere);
# every part named runs (all when none is named) and leaves its log or CSV in OUT_DIR:
#   tests      the frame-order unit's GPU tests (fused against plain, its checks) and the NVTX
#              test of a fused sequence
#   sequences  the benchmark's point cloud at 15M along the orbit, the fly-through and the cuts path,
#              600 frames (SEQ_FRAMES): cub-radix from scratch (the plain pipeline: depth pass and
#              CUB writing the draw order), cub-radix and run-bucket coherent, and depth-bucket
#   shapes     depth-bucket's shapes (DEPTHSORT_FUSED_SHAPE: scatter items, bucket capacity) on the
#              orbit at 15M
#   sizes      depth-bucket against cub-radix from scratch at 1M, 2M, 4M, 32M, 64M (the orbit)
#   profile    Nsight Compute: DRAM bytes and time of every kernel of one timed frame, depth-bucket
#              and cub-radix from scratch, 15M orbit (--clock-control none)
#   demo       the demo's own order (depthsort --headless --no-draw, 600 frames): 5M triangles + 10M
#              particles along the orbit, the fly-through and the cuts path, 1M + 1M and 50M + 50M on
#              the orbit; cub-radix from scratch, run-bucket coherent and the fused order; the order's
#              cost as frame/compute minus frame/simulate, medians over frames 1..599 (the demo needs
#              its GL libraries: .gl beside the tree, scripts/bare-image-gl.sh)
#   sanitize   compute-sanitizer's memcheck, racecheck and synccheck over fused frames (the benchmark's
#              sequences at 300K and 1M points along the fly-through and the orbit: frames that fit, spill
#              and are handed back), every frame checked; any reported error fails the part
#   detail     Nsight Compute's sections (speed of light, occupancy, warp states, memory, scheduler)
#              of depth-bucket's scatter and bucket sort in one timed frame: where their time goes
set -uo pipefail
BIN=${1:?bin dir}
OUT=${2:?out dir}
shift 2
parts=${*:-tests sequences shapes sizes profile demo}
frames=${SEQ_FRAMES:-600}
mkdir -p "$OUT"
LOGS=${LOGS:-/tmp/depth-bucket-logs}
mkdir -p "$LOGS"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
has() { [[ " $parts " == *" $1 "* ]]; }
bench() { timeout "${BENCH_S:-200}" "$BIN/depthsort-bench" "$@"; }
# The rows' medians, one line each: sorter, options, dist, n, median, x cub-radix, check.
rows() { grep -E '^\[[0-9]+/[0-9]+\]' "$1" | sed 's/  */ /g'; }

if has tests; then
  timeout 400 "$BIN/depthsort-gpu-tests" --gtest_filter='FrameOrder*' >"$OUT/tests.log" 2>&1
  echo "== tests exit $?: $(grep -c '^\[       OK' "$OUT/tests.log") ok, $(grep -c '^\[  FAILED  \].*(' "$OUT/tests.log") failed"
  grep -E '^\[  FAILED  \].*\(|Failure|error' "$OUT/tests.log" | head -20
  if [[ -x $BIN/depthsort-nvtx-gpu-tests ]]; then
    timeout 120 "$BIN/depthsort-nvtx-gpu-tests" --gtest_filter='*Sequence*' >"$OUT/nvtx.log" 2>&1
    echo "== nvtx sequence tests exit $?"
    grep -E '^\[  FAILED|Failure' "$OUT/nvtx.log" | head -5
  fi
fi

if has sequences; then
  for path in orbit fly-through cuts; do
    bench --sequence "$path" --frames "$frames" --sizes 15M --sorters cub-radix --scratch \
      --csv "$OUT/seq-$path-scratch.csv" >"$LOGS/seq-$path-scratch.txt" 2>&1
    bench --sequence "$path" --frames "$frames" --sizes 15M --sorters cub-radix,run-bucket --fused \
      --csv "$OUT/seq-$path.csv" >"$LOGS/seq-$path.txt" 2>&1
    echo "== $path, 15M, $frames frames"
    rows "$LOGS/seq-$path-scratch.txt"
    rows "$LOGS/seq-$path.txt"
  done
fi

if has shapes; then
  for shape in 8,16384 16,16384 8,8192 16,8192; do
    DEPTHSORT_FUSED_SHAPE=$shape bench --sequence orbit --frames "$frames" --sizes 15M --sorters cub-radix \
      --scratch --fused --csv "$OUT/shape-${shape/,/x}.csv" >"$LOGS/shape-${shape/,/x}.txt" 2>&1
    echo "== shape $shape (scatter items, bucket capacity)"
    rows "$LOGS/shape-${shape/,/x}.txt" | grep depth-bucket
  done
fi

if has sizes; then
  bench --sequence orbit --frames 300 --sizes 1M,2M,4M,32M,64M --sorters cub-radix --scratch --fused \
    --csv "$OUT/sizes.csv" >"$LOGS/sizes.txt" 2>&1
  echo "== sizes (orbit, 300 frames, from scratch)"
  rows "$LOGS/sizes.txt"
fi

# Nsight Compute's raw CSV (ncu --csv --page raw --print-units base): each kernel's DRAM bytes read
# and written a primitive (of 15M) and its achieved bandwidth, then the whole.
kernel_bytes() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
if head is None:
    sys.exit("no ncu table")
cols = rows[head]
k, rd, wr, t = (cols.index(c) for c in ("Kernel Name", "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"))
n = 15 * 2**20
num = lambda text: float(text.replace(",", "") or 0)
total_b = total_t = 0
for r in rows[head + 2:]:
    if not r or not r[0].isdigit():
        continue
    read, write, ns = num(r[rd]), num(r[wr]), num(r[t])
    total_b += read + write
    total_t += ns
    print(f"  {r[k][:56]:56s} {read / n:6.2f} + {write / n:5.2f} B {ns / 1e3:7.1f} us {(read + write) / max(ns, 1):6.1f} GB/s")
print(f"  whole order: {total_b / n:.1f} bytes a primitive, {total_t / 1e3:.1f} us of kernels")
PY
}

if has profile && command -v ncu >/dev/null; then
  metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  for what in fused scratch; do
    # 600 frames (0.6 degrees a frame): frame 1, the first timed one, takes the last splitters.
    args=(--sequence orbit --frames 600 --sizes 15M --sorters cub-radix --warmup 0)
    filter="depthsort@timed/"
    [[ $what == fused ]] && args+=(--fused) && filter="depthsort@timed/order (fused)/"
    [[ $what == scratch ]] && args+=(--scratch)
    timeout 300 ncu --nvtx --nvtx-include "$filter" --launch-count 12 --clock-control none --metrics "$metrics" \
      --csv --page raw --print-units base "$BIN/depthsort-bench" "${args[@]}" >"$OUT/ncu-$what.csv" 2>"$LOGS/ncu-$what.err"
    echo "== ncu $what: $(grep -c '^"[0-9]' "$OUT/ncu-$what.csv") kernels"
    kernel_bytes "$OUT/ncu-$what.csv"
  done
fi

if has detail && command -v ncu >/dev/null; then
  sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis
            --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis)
  timeout 300 ncu --nvtx --nvtx-include "depthsort@timed/order (fused)/" --launch-count 3 --clock-control none \
    "${sections[@]}" "$BIN/depthsort-bench" --sequence orbit --frames 600 --sizes 15M --sorters cub-radix --fused \
    --warmup 0 >"$OUT/ncu-detail.txt" 2>"$LOGS/ncu-detail.err"
  echo "== ncu detail: $(grep -c 'scatter_kernel\|bucket_sort_kernel' "$OUT/ncu-detail.txt") kernel headers"
  grep -E "^  [a-z_]+_kernel|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Block Limit|No Eligible|Issued Warp|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Stall" "$OUT/ncu-detail.txt" | head -90
fi

if has demo; then
  [[ -d .gl ]] && source scripts/bare-image-gl.sh
  # The order's cost of a run: frame/compute minus frame/simulate per frame, medians over frames
  # 1.. (frame 0 pays first use), and the cut frames apart on the cuts path.
  cost() {
    python3 - "$1" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
frames = report["frames"][1:]
cut = [f for f in frames if f["frame"] % 30 == 0]
def median(rows, label):
    values = [f[label] for f in rows if label in f]
    return statistics.median(values) if values else float("nan")
def order(rows):
    return statistics.median([f["frame/compute"] - f.get("frame/simulate", 0.0) for f in rows])
phases = " ".join(f"{name} {median(frames, 'frame/' + name):.3f}" for name in ("depth", "sort", "order (fused)")
                  if any('frame/' + name in f for f in frames))
line = f"order {order(frames):.3f} ms ({phases})"
if report["meta"]["camera_path"] == "cuts":
    line += f", cut frames {order(cut):.3f}"
print(line)
PY
  }
  demo() {  # NAME ARGS...
    local name=$1
    shift
    timeout "${DEMO_S:-120}" "$BIN/depthsort" --headless --no-draw --frames 600 --quiet --json "$LOGS/demo-$name.json" "$@" \
      >"$LOGS/demo-$name.txt" 2>&1 || echo "  $name: exit $? ($(tail -1 "$LOGS/demo-$name.txt"))"
    [[ -f $LOGS/demo-$name.json ]] && echo "  $name: $(cost "$LOGS/demo-$name.json")"
  }
  for path in orbit fly-through cuts; do
    echo "== demo, 5M triangles + 10M particles, $path"
    scene=(--triangles 5M --particles 10M --camera-path "$path")
    demo "$path-cub" "${scene[@]}" --sorter cub-radix
    demo "$path-run-bucket" "${scene[@]}" --sorter run-bucket --coherent
    demo "$path-fused" "${scene[@]}" --order fused
  done
  for size in "1M 1M" "50M 50M"; do
    read -r t p <<<"$size"
    echo "== demo, $t triangles + $p particles, orbit"
    demo "$t-cub" --triangles "$t" --particles "$p" --camera-path orbit --sorter cub-radix
    demo "$t-fused" --triangles "$t" --particles "$p" --camera-path orbit --order fused
  done
  (cd "$LOGS" && tar czf "$OUT/demo-json.tgz" demo-*.json)
  # Where the order's bytes go, per primitive (Nsight Compute, --clock-control none): the fused
  # order's kernels of frame 1 (frame 0 is handed back: no splitters yet), and frame 0's depth pass
  # and cub-radix (the kernels before its order check). 5M triangles + 10M particles, the orbit.
  if command -v ncu >/dev/null; then
    metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
    scene=(--headless --no-draw --quiet --triangles 5M --particles 10M --camera-path orbit)
    timeout 200 ncu --clock-control none --metrics "$metrics" --csv --page raw --print-units base \
      --kernel-name regex:"extend_splitters|sample_kernel|scatter_kernel|bucket_sort_kernel" --launch-count 4 \
      "$BIN/depthsort" "${scene[@]}" --order fused --frames 3 >"$LOGS/ncu-demo-fused.csv" 2>"$LOGS/ncu-demo-fused.err"
    timeout 200 ncu --clock-control none --metrics "$metrics" --csv --page raw --print-units base \
      --kernel-name regex:"record_depth|DeviceRadixSort|fix_zero" --launch-count 8 \
      "$BIN/depthsort" "${scene[@]}" --sorter cub-radix --frames 1 >"$LOGS/ncu-demo-cub.csv" 2>"$LOGS/ncu-demo-cub.err"
    for what in fused cub; do
      echo "== ncu demo, $what (bytes a primitive, 5M + 10M)"
      kernel_bytes "$LOGS/ncu-demo-$what.csv"
    done
  fi
fi

if has sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    extra=()
    [[ $tool == racecheck ]] && extra=(--racecheck-report hazard)
    rc=0
    for path in "fly-through --frames 12" "orbit --frames 120"; do
      # shellcheck disable=SC2086
      timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 86 "${extra[@]}" "$BIN/depthsort-bench" \
        --sequence $path --sizes 300000,1M --sorters cub-radix --fused --warmup 0 >>"$LOGS/sanitize-$tool.txt" 2>&1 ||
        rc=$?
    done
    echo "== compute-sanitizer $tool over fused frames: exit $rc, $(grep -cE 'pass$' "$LOGS/sanitize-$tool.txt") rows passed, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/sanitize-$tool.txt" | tail -1)"
  done
fi
