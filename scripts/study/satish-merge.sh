#!/usr/bin/env bash
# The measurements of satish-merge (Satish, Harris & Garland 2009, Section IV) on a lent GPU, in
# one call of at most about 90 s.
# Usage (on the GPU machine, from the repository root):
#   scripts/study/satish-merge.sh BIN_DIR OUT_DIR [curve] [tiles] [check] [summary]
# BIN_DIR holds depthsort-bench (statically linked, built elsewhere); every part named runs (all
# when none is named) and leaves its CSV in OUT_DIR:
#   curve    Fig. 3/4 in kind: time and rate against n (1K..64M), satish-merge faithful and default
#            beside cub-merge (and cub-radix, the bench's baseline), per-step medians
#   tiles    the tile size t at 16M, faithful and not (the one knob the paper fixes at 256)
#   check    every distribution at 1M, checked against the CPU reference (the GPU suite goes to 16M)
#   summary  one line per row: time, rate, ratio to cub-merge, tile sort / splitters / tiles sums
set -uo pipefail
BIN=${1:?bin dir}
OUT=${2:?out dir}
shift 2
parts=${*:-curve tiles check summary}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
has() { [[ " $parts " == *" $1 "* ]]; }
bench() { timeout 80 "$BIN/depthsort-bench" "$@"; }

if has curve; then
  bench --sorters cub-merge,satish-merge --sizes 1K,4K,16K,64K,256K,1M,4M,16M,64M --dist uniform --reps 11 \
    --options satish-merge:faithful=1 --options satish-merge:faithful=0 \
    --csv "$OUT/satish-merge-n.csv" >"$OUT/satish-merge-n.txt" 2>&1
fi

if has tiles; then
  bench --sorters cub-merge,satish-merge --sizes 16M --dist uniform --reps 11 \
    --options satish-merge:faithful=1 --options satish-merge:faithful=1,t=512 \
    --options satish-merge:faithful=0,t=256 --options satish-merge:faithful=0,t=512 \
    --options satish-merge:faithful=0,t=1024 --options satish-merge:faithful=0,t=2048 \
    --csv "$OUT/satish-merge-t.csv" >"$OUT/satish-merge-t.txt" 2>&1
fi

if has check; then
  bench --sorters satish-merge --sizes 1M --dist all --reps 3 --warmup 1 --check \
    --options satish-merge:faithful=1 --options satish-merge:faithful=0 \
    --csv "$OUT/satish-merge-dists.csv" >"$OUT/satish-merge-dists.txt" 2>&1
  echo "== check: $(grep -c ',pass,' "$OUT/satish-merge-dists.csv") pass, $(grep -c ',FAIL' "$OUT/satish-merge-dists.csv") FAIL"
fi

if has summary; then
  python3 - "$OUT"/satish-merge-*.csv <<'PY'
import csv, sys
def sz(n):
    n = int(n)
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    if "dists" in path:
        continue
    print("==", path.rsplit("/", 1)[-1])
    merge = {(r["dist"], r["n"]): float(r["median_ms"]) for r in rows if r["sorter"] == "cub-merge" and r["median_ms"]}
    for r in rows:
        if r["sorter"] not in ("satish-merge", "cub-merge") or not r["median_ms"]:
            continue
        ms = float(r["median_ms"])
        steps = [s.split("=") for s in r["steps"].split(";") if s]
        parts = {"tile": 0.0, "split": 0.0, "tiles": 0.0}
        for name, v in steps:
            key = "tile" if name == "tile sort" else "split" if name.endswith("splitters") else "tiles"
            parts[key] += float(v)
        ratio = ms / merge[(r["dist"], r["n"])] if (r["dist"], r["n"]) in merge else float("nan")
        detail = f"tile sort {parts['tile']:.3f} splitters {parts['split']:.3f} merge tiles {parts['tiles']:.3f}" if steps else ""
        print(f"{r['sorter']:12s} {r['options'][:20]:20s} {sz(r['n']):>4s} {ms:8.3f} ms {float(r['gpairs_per_s']):6.2f} G/s "
              f"x{ratio:.2f} merge  {detail}")
PY
fi
