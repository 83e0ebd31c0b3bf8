#!/usr/bin/env bash
# The measurements of satish-merge (Satish, Harris & Garland 2009, Section IV) on a CUDA GPU, in
# one run of at most about 90 s.
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
tables=$(cd "$(dirname "$0")/../tables" && pwd)  # the table programs
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
  echo "== check: $(grep -c ',pass,' "$OUT/satish-merge-dists.csv") pass," \
    "$(grep -c ',FAIL' "$OUT/satish-merge-dists.csv") FAIL"
fi

if has summary; then
  python3 "$tables/satish-merge-tables.py" "$OUT"/satish-merge-*.csv
fi
