#!/usr/bin/env bash
# The measurements of GPU Bucket Sort (Dehne & Zaboli 2010) on a lent GPU, in one call (<= 90 s).
# Usage (on the GPU machine, from the repository root):
#   scripts/study/bucket-sort.sh BIN_DIR OUT_DIR
# BIN_DIR holds depthsort-bench (statically linked, built elsewhere). Writes to OUT_DIR:
#   fig3-s.csv      total time against s (16..4096, and auto) at 16M and 64M uniform pairs (Fig. 3)
#   fig8-dists.csv  every distribution of the suite at 16M, default and faithful (Fig. 8, flatness)
#   fig46-n.csv     time against n, 1M..256M, beside cub-merge and cub-radix (Fig. 4 and 6); the
#                   per-step medians of its rows are Fig. 5
#   knobs.csv       each deviation from the paper alone at 16M (radix block sort, CUB sample sort,
#                   inline sampling, sublist and chunk sizes), with steps
#   check.csv       the default and the paper's configuration at 16M, checked against the CPU
# and prints a summary table at the end.
set -uo pipefail
BIN=${1:?bin dir}
OUT=${2:?out dir}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
bench() { timeout 45 "$BIN/depthsort-bench" --warmup 1 "$@" >>"$OUT/bench.log" 2>&1 || echo "bench $* failed: $?"; }

opts=()
for s in 16 32 64 128 256 512 1024 2048 4096; do opts+=(--options "bucket-sort:s=$s"); done
bench --sorters bucket-sort --sizes 16M,64M --dist uniform --reps 5 "${opts[@]}" --options bucket-sort:s=0 \
  --options bucket-sort:faithful=1,s=32 --options bucket-sort:faithful=1,s=64 --options bucket-sort:faithful=1,s=128 \
  --csv "$OUT/fig3-s.csv"
bench --sorters bucket-sort,cub-merge --sizes 16M --dist all --reps 5 \
  --options bucket-sort:faithful=0 --options bucket-sort:faithful=1 --csv "$OUT/fig8-dists.csv"
bench --sorters bucket-sort,cub-merge --sizes 1M,2M,4M,8M,16M,32M,64M,128M,256M --dist uniform --reps 5 \
  --options bucket-sort:faithful=0 --options bucket-sort:faithful=1 --csv "$OUT/fig46-n.csv"
bench --sorters bucket-sort --sizes 16M --dist uniform --reps 9 --options bucket-sort:s=0 \
  --options bucket-sort:radix_block_sort=0 --options bucket-sort:cub_sample_sort=0 \
  --options bucket-sort:radix_block_sort=0,cub_sample_sort=0 --options bucket-sort:inline_sampling=0 \
  --options bucket-sort:sublist=4096 --options bucket-sort:chunk=4096 --options bucket-sort:sublist=16384,chunk=16384 \
  --options bucket-sort:faithful=1 --csv "$OUT/knobs.csv"
bench --sorters bucket-sort --sizes 16M --dist uniform,specials,all-equal --reps 1 --check \
  --options bucket-sort:faithful=0 --options bucket-sort:faithful=1 --csv "$OUT/check.csv"

python3 - "$OUT" <<'PY'
import csv, os, sys
out = sys.argv[1]
def rows(name):
    path = os.path.join(out, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []
def short(o):
    keep = [x for x in o.split(",") if x and x not in (
        "chunk=0", "cub_sample_sort=1", "inline_sampling=1", "radix_block_sort=1", "sublist=0", "faithful=0")]
    return ",".join(keep) or "default"
def ms(r): return float(r["median_ms"]) if r["median_ms"] else float("nan")
print("== Fig. 3: time (ms) against s, uniform")
for r in rows("fig3-s.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {int(r['n']) >> 20:3d}M  {short(r['options']):22s} {ms(r):8.3f}")
print("== Fig. 8: every distribution at 16M (ms)")
by = {}
for r in rows("fig8-dists.csv"):
    key = r["sorter"] + (" " + short(r["options"]) if r["sorter"] == "bucket-sort" else "")
    by.setdefault(key, {})[r["dist"]] = ms(r)
for key, d in by.items():
    lo, hi = min(d, key=d.get), max(d, key=d.get)
    print(f"  {key:28s} fastest {lo} {d[lo]:.3f}  slowest {hi} {d[hi]:.3f}  spread {d[hi] / d[lo]:.2f}x")
print("== Fig. 4/6: time (ms) against n, uniform; Fig. 5: steps")
table = {}
for r in rows("fig46-n.csv"):
    key = r["sorter"] + (" " + short(r["options"]) if r["sorter"] == "bucket-sort" else "")
    table.setdefault(key, {})[int(r["n"])] = (ms(r), r["steps"], r["check"])
sizes = sorted({n for d in table.values() for n in d})
print("  " + " " * 28 + "".join(f"{n >> 20:>8d}M" for n in sizes))
for key, d in table.items():
    print(f"  {key:28s}" + "".join(f"{d[n][0]:9.3f}" if n in d else "        -" for n in sizes))
merge = table.get("cub-merge", {})
for key, d in table.items():
    if key.startswith("bucket-sort") and 1 << 24 in d and 1 << 24 in merge:
        print(f"  {key}: cub-merge / bucket-sort at 16M = {merge[1 << 24][0] / d[1 << 24][0]:.2f}x")
        print("    steps at 16M: " + d[1 << 24][1].replace(";", "  "))
print("== deviations one at a time, 16M uniform (ms; steps)")
for r in rows("knobs.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {short(r['options']):40s} {ms(r):7.3f}  " + r["steps"].replace(";", " "))
print("== checks (16M)")
for r in rows("check.csv"):
    print(f"  {r['sorter']:12s} {short(r['options']):22s} {r['dist']:10s} {r['check']}")
PY
