#!/usr/bin/env bash
# The measurements of GPU Bucket Sort (Dehne & Zaboli 2010) on a lent GPU, in one call (about
# 100 s on an H200; the gpu-suite gives a study 150 s).
# Usage (on the GPU machine, from the repository root):
#   scripts/study/bucket-sort.sh BIN_DIR OUT_DIR
# BIN_DIR holds depthsort-bench (statically linked, built elsewhere). Writes to OUT_DIR:
#   fig3-s.csv      total time against s (16..4096, and auto) at 16M and 64M uniform pairs, the
#                   default (onchip) and onchip=0 (the radix chunks + global path), faithful (Fig. 3)
#   fig8-dists.csv  every distribution of the suite at 16M: default, bucket_key_bits=0 (same work
#                   on every input), onchip=0, faithful, cub-merge, cub-radix (Fig. 8, flatness)
#   fig46-n.csv     time against n, 1M..64M (5 reps), beside cub-merge and cub-radix (Fig. 4, 6)
#   fig46-big.csv   the same from 128M to 1G (3 reps: the largest n that fits; rows that do not
#                   fit are skipped by the bench with a note in bench.log)
#                   The per-step medians of their rows are Fig. 5.
#   knobs.csv       each deviation from the paper alone at 16M, with steps; the previous default is
#                   onchip=0,sample_key_sort=0,radix_bits=4
#   check.csv       the default, onchip=0 and the paper's configuration at 16M against the CPU
# and prints a summary table at the end.
set -uo pipefail
BIN=${1:?bin dir}
OUT=${2:?out dir}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
LIMIT=60  # seconds per bench call
bench() {
  local t0=$SECONDS
  timeout "$LIMIT" "$BIN/depthsort-bench" --warmup 1 "$@" >>"$OUT/bench.log" 2>&1 || echo "bench $* failed: $?"
  echo "  ($((SECONDS - t0)) s: ${*: -1})"
}

opts=()
for s in 16 32 64 128 256 512 1024 2048 4096; do opts+=(--options "bucket-sort:s=$s"); done
for s in 512 1024 2048 4096; do opts+=(--options "bucket-sort:onchip=0,s=$s"); done
bench --sorters bucket-sort --sizes 16M,64M --dist uniform --reps 5 "${opts[@]}" --options bucket-sort:s=0 \
  --options bucket-sort:onchip=0 --options bucket-sort:faithful=1,s=64 --csv "$OUT/fig3-s.csv"
bench --sorters bucket-sort,cub-merge --sizes 16M --dist all --reps 5 \
  --options bucket-sort:faithful=0 --options bucket-sort:bucket_key_bits=0 --options bucket-sort:onchip=0 \
  --options bucket-sort:faithful=1 --csv "$OUT/fig8-dists.csv"
bench --sorters bucket-sort,cub-merge --sizes 1M,2M,4M,8M,16M,32M,64M --dist uniform --reps 5 \
  --options bucket-sort:faithful=0 --options bucket-sort:onchip=0 --options bucket-sort:faithful=1 \
  --csv "$OUT/fig46-n.csv"
# The inputs are generated on one CPU core: about half of this call's time at 1G.
LIMIT=75 bench --sorters bucket-sort,cub-merge --sizes 128M,256M,512M,1G --dist uniform --reps 3 \
  --options bucket-sort:faithful=0 --options bucket-sort:faithful=1 --csv "$OUT/fig46-big.csv"
bench --sorters bucket-sort --sizes 16M --dist uniform --reps 9 --options bucket-sort:s=0 \
  --options bucket-sort:onchip=0 --options bucket-sort:sample_key_sort=0 --options bucket-sort:radix_bits=4 \
  --options bucket-sort:bucket_key_bits=0 \
  --options bucket-sort:onchip=0,sample_key_sort=0,radix_bits=4 --options bucket-sort:s=4096 \
  --options bucket-sort:s=1024 \
  --options bucket-sort:radix_block_sort=0 --options bucket-sort:cub_sample_sort=0 \
  --options bucket-sort:radix_block_sort=0,cub_sample_sort=0 --options bucket-sort:inline_sampling=0 \
  --options bucket-sort:sublist=4096 --options bucket-sort:onchip=0,chunk=4096 \
  --options bucket-sort:onchip=0,sublist=16384,chunk=16384 --options bucket-sort:faithful=1 --csv "$OUT/knobs.csv"
bench --sorters bucket-sort --sizes 16M --dist uniform,specials,all-equal --reps 1 --check \
  --options bucket-sort:faithful=0 --options bucket-sort:onchip=0 --options bucket-sort:faithful=1 \
  --csv "$OUT/check.csv"

python3 - "$OUT" <<'PY'
import csv, os, sys
out = sys.argv[1]
def rows(*names):
    got = []
    for name in names:
        path = os.path.join(out, name)
        if os.path.exists(path):
            got += list(csv.DictReader(open(path)))
    return got
def short(o):
    keep = [x for x in o.split(",") if x and x not in (
        "chunk=0", "cub_sample_sort=1", "inline_sampling=1", "radix_block_sort=1", "sublist=0", "faithful=0",
        "onchip=1", "sample_key_sort=1", "s=0", "radix_bits=5", "bucket_key_bits=1")]
    return ",".join(keep) or "default"
def ms(r): return float(r["median_ms"]) if r["median_ms"] else float("nan")
def key_of(r): return r["sorter"] + (" " + short(r["options"]) if r["sorter"] == "bucket-sort" else "")
print("== Fig. 3: time (ms) against s, uniform")
for r in rows("fig3-s.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {int(r['n']) >> 20:3d}M  {short(r['options']):22s} {ms(r):8.3f}")
print("== Fig. 8: every distribution at 16M (ms)")
by = {}
for r in rows("fig8-dists.csv"):
    by.setdefault(key_of(r), {})[r["dist"]] = ms(r)
for key, d in by.items():
    lo, hi = min(d, key=d.get), max(d, key=d.get)
    print(f"  {key:28s} fastest {lo} {d[lo]:.3f}  slowest {hi} {d[hi]:.3f}  spread {d[hi] / d[lo]:.2f}x")
print("== Fig. 4/6: time (ms) against n, uniform; Fig. 5: steps")
table = {}
for r in rows("fig46-n.csv", "fig46-big.csv"):
    table.setdefault(key_of(r), {})[int(r["n"])] = (ms(r), r["steps"], r["check"])
sizes = sorted({n for d in table.values() for n in d})
print("  " + " " * 28 + "".join(f"{n >> 20:>9d}M" for n in sizes))
for key, d in table.items():
    print(f"  {key:28s}" + "".join(f"{d[n][0]:10.3f}" if n in d else "         -" for n in sizes))
merge = table.get("cub-merge", {})
radix = table.get("cub-radix", {})
for key, d in table.items():
    if key.startswith("bucket-sort") and 1 << 24 in d and 1 << 24 in merge:
        print(f"  {key}: cub-merge / bucket-sort at 16M = {merge[1 << 24][0] / d[1 << 24][0]:.2f}x"
              f" (goal >= 1.5x), cub-radix / bucket-sort = {radix.get(1 << 24, (float('nan'),))[0] / d[1 << 24][0]:.2f}x")
        print("    steps at 16M: " + d[1 << 24][1].replace(";", "  "))
    if key.startswith("bucket-sort") and d:
        print(f"  {key}: largest n measured {max(d) >> 20}M")
# Device bytes per pair of the default (docs/algorithms/bucket-sort.md, "Memory per pair"): the
# caller's 16 plus the workspace, from the configuration rule of bucket_sort_sorter.cu.
print("  default device bytes per pair (caller's 16 + workspace):")
for n in sizes:
    L, tile = 8192, 16384
    m = -(-n // L)
    s = 16
    while s < -(-2 * m * L // tile): s *= 2
    s = min(s, 4096, L)
    gather = 2 * m * L // s <= tile
    work = 8 * n + (0 if gather else 8 * n) + m * s * (8 * 2 + 12)
    print(f"    {n >> 20:5d}M  s={s:5d} {'gather' if gather else 'reloc '}  {16 + work / n:6.1f}")
print("== deviations one at a time, 16M uniform (ms; steps)")
for r in rows("knobs.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {short(r['options']):40s} {ms(r):7.3f}  " + r["steps"].replace(";", " "))
print("== checks (16M)")
for r in rows("check.csv"):
    print(f"  {r['sorter']:12s} {short(r['options']):22s} {r['dist']:10s} {r['check']}")
PY
