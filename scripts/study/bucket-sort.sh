#!/usr/bin/env bash
# The measurements of GPU Bucket Sort (Dehne & Zaboli 2010) on a CUDA GPU, in one run (about
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
tables=$(cd "$(dirname "$0")/../tables" && pwd)  # the table programs
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
# The inputs are generated on one CPU core: about half of this run's time at 1G.
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

python3 "$tables/bucket-sort-tables.py" "$OUT"
