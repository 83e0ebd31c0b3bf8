#!/usr/bin/env bash
# The measurements of GPU-MMS (Karsin et al., ICS 2018) on a CUDA GPU, in one run (<= 90 s).
# Usage (on the GPU machine, from the repository root): scripts/study/gpu-mms.sh BIN_DIR OUT_DIR
# BIN_DIR holds depthsort-bench and depthsort-mms-types (statically linked, built elsewhere).
# Writes to OUT_DIR:
#   n.csv      Fig. 5: time against n (1M..16M, checked; n256.csv 64M, 256M) beside cub-merge, cub-radix
#   k.csv      the K sweep (2..32) at 16M, faithful execution (independent_merge=0, narrow_last=0)
#   share.csv  outputs per warp at 1M and 4M
#   types.csv  Fig. 7 and Fig. 6: pairs / l1 / rational beside cub::DeviceMergeSort, conflict input
# and prints a short summary (per-round step medians from the bench's steps column).
set -uo pipefail
tables=$(cd "$(dirname "$0")/../tables" && pwd)  # the table programs
BIN=${1:?bin dir}
OUT=${2:?out dir}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/device.txt"
bench() { timeout 40 "$BIN/depthsort-bench" "$@"; }

bench --sorters gpu-mms,cub-merge --sizes 1M,4M,16M --reps 9 --check --csv "$OUT/n.csv" >"$OUT/n.txt" 2>&1
bench --sorters gpu-mms,cub-merge --sizes 64M,256M --reps 3 --warmup 1 --csv "$OUT/n256.csv" >"$OUT/n256.txt" 2>&1
opts=()
for k in 2 4 8 16 32; do opts+=(--options "gpu-mms:k=$k"); done
bench --sorters gpu-mms --sizes 16M,64M --reps 7 "${opts[@]}" --options gpu-mms:independent_merge=0 \
  --options gpu-mms:narrow_last=0 --options gpu-mms:k=8,independent_merge=0,narrow_last=0,share=4096 \
  --csv "$OUT/k.csv" >"$OUT/k.txt" 2>&1
bench --sorters gpu-mms --sizes 1M,4M --reps 9 --options gpu-mms:share=1024 --options gpu-mms:share=2048 \
  --options gpu-mms:share=4096 --options gpu-mms:share=512 --csv "$OUT/share.csv" >"$OUT/share.txt" 2>&1
timeout 50 "$BIN/depthsort-mms-types" --sizes 1M,4M,16M --reps 7 --k 8,16 --csv "$OUT/types.csv" >"$OUT/types.txt" 2>&1

python3 "$tables/gpu-mms-tables.py" "$OUT"
echo "== types (Fig. 7) and conflict input (Fig. 6)"
cat "$OUT/types.txt"
