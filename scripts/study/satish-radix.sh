#!/usr/bin/env bash
# The measurements of satish-radix (Satish, Harris & Garland 2009, Section III) on a CUDA GPU, in one
# run of at most about 90 s. Usage (on the GPU machine, from the repository root):
#   scripts/study/satish-radix.sh BIN_DIR OUT_DIR
# BIN_DIR holds depthsort-bench (statically linked, built elsewhere). Writes to OUT_DIR:
#   satish-radix-n.csv      Fig. 3/4 on today's GPU: time and rate against n (1K..64M, powers of 4),
#                           the default, the paper's configuration (faithful=1) and a few other b /
#                           tiles beside cub-radix
#   satish-radix-b.csv      the b sweep 4..8 at 16M uniform pairs, for every tile (items 4, 8, 16)
#                           and the paper's and the count-first arrangement of the phases (ballot
#                           scan), a few rows of the fused arrangement and of CUB's block scan
#   satish-radix-dists.csv  the default on every distribution at 4M, checked against the CPU
# Every CSV row carries per-step medians ("pass K <phase>"); the summary sums them per phase.
set -uo pipefail
tables=$(cd "$(dirname "$0")/../tables" && pwd)  # the table programs
BIN=${1:?bin dir}
OUT=${2:?out dir}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
bench() { timeout 60 "$BIN/depthsort-bench" "$@" >>"$OUT/bench.log" 2>&1; }

bench --sorters satish-radix --sizes 1K,4K,16K,64K,256K,1M,4M,16M,64M --dist uniform --reps 11 --warmup 2 \
  --options satish-radix:faithful=0 --options satish-radix:faithful=1 \
  --options satish-radix:bits=6,items=16,arrangement=2 --options satish-radix:bits=7,items=16,arrangement=2 \
  --options satish-radix:bits=8,items=8,arrangement=2 --csv "$OUT/satish-radix-n.csv"

opts=()
for b in 4 5 6 7 8; do
  for items in 4 8 16; do
    for a in 0 2; do opts+=(--options "satish-radix:bits=$b,items=$items,arrangement=$a"); done
  done
done
opts+=(--options satish-radix:bits=4,items=4,arrangement=1 --options satish-radix:bits=8,items=16,arrangement=1)
for b in 4 7 8; do opts+=(--options "satish-radix:bits=$b,items=16,arrangement=2,ballot_scan=0"); done
bench --sorters satish-radix --sizes 16M --dist uniform --reps 11 --warmup 2 "${opts[@]}" \
  --csv "$OUT/satish-radix-b.csv"

bench --sorters satish-radix --sizes 4M --dist all --reps 5 --warmup 1 --check --csv "$OUT/satish-radix-dists.csv"

python3 "$tables/satish-radix-tables.py" "$OUT"
