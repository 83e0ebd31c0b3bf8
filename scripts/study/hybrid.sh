#!/usr/bin/env bash
# The measurements of the hybrid sort (Sintorn & Assarsson 2008) on a CUDA GPU, in one run.
# Usage (on the GPU machine, from the repository root):
#   scripts/study/hybrid.sh BIN_DIR OUT_DIR [tests] [bench] [curve] [dists] [faithful] [knobs] [large] [summary]
# BIN_DIR holds depthsort-gpu-tests and depthsort-bench (statically linked, built elsewhere);
# every part named runs (all when none is named) and leaves its log or CSV in OUT_DIR:
#   tests     the GPU suite for hybrid and hybrid-quick, every option variant, in parallel shards
#   bench     Fig. 7 / Fig. 9: time against n (1M..64M), uniform and mesh order, shuffle off / on
#   curve     total time against L (1K..256K buckets) at 4M and 16M uniform pairs
#   dists     every distribution of the suite at 16M (the worst-distribution figure)
#   faithful  the paper's own execution (Fig. 4 atomics, Fig. 3 global passes) against the default
#   knobs     the on-chip merge: word or pair path, 8 or 16 outputs per thread; 1M, 4M, 16M uniform
#   large     many buckets (64M with auto L; 16M with 16384 and 60000 buckets) and the paper's
#             execution, each checked against the CPU reference (--check)
#   summary   one line per hybrid / cub-radix row of every CSV written, with the steps
set -uo pipefail
tables=$(cd "$(dirname "$0")/../tables" && pwd)  # the table programs
BIN=${1:?bin dir}
OUT=${2:?out dir}
shift 2
parts=${*:-tests bench curve dists faithful knobs}
mkdir -p "$OUT"
LOGS=${LOGS:-/tmp/hybrid-logs}  # the tables printed by the bench (the CSVs go to OUT_DIR)
mkdir -p "$LOGS"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
has() { [[ " $parts " == *" $1 "* ]]; }

if has tests; then
  shards=12
  for i in $(seq 0 $((shards - 1))); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout 240 "$BIN/depthsort-gpu-tests" \
      --gtest_filter='*hybrid*' >"/tmp/hybrid-shard-$i.log" 2>&1 &
  done
  wait
  cat /tmp/hybrid-shard-*.log >"$OUT/tests.log"
  echo "== tests: $(grep -c '^\[       OK' "$OUT/tests.log") ok," \
    "$(grep -c '^\[  FAILED  \].*(' "$OUT/tests.log") failed"
  grep -E '^\[  FAILED  \].*\(|Failure|error:' "$OUT/tests.log" | head -20
fi

bench() { timeout 280 "$BIN/depthsort-bench" "$@"; }

if has bench; then
  bench --sorters hybrid,hybrid-quick --sizes 1M,4M,16M,64M --dist uniform,mesh --reps 15 \
    --options hybrid:shuffle=0 --options hybrid:shuffle=1 --options hybrid-quick:shuffle=0 \
    --csv "$OUT/hybrid-n.csv" >"$LOGS/hybrid-n.txt" 2>&1
  grep -vE '^\s+steps' "$LOGS/hybrid-n.txt" | tail -n 40
fi

if has curve; then
  opts=()
  for L in 1024 2048 4096 8192 16384 32768 65536 131072 262144; do opts+=(--options "hybrid:buckets=$L"); done
  bench --sorters hybrid --sizes 4M,16M --dist uniform --reps 11 "${opts[@]}" --options hybrid:buckets=0 \
    --csv "$OUT/hybrid-L.csv" >"$LOGS/hybrid-L.txt" 2>&1
  tail -n 25 "$LOGS/hybrid-L.txt"
fi

if has dists; then
  bench --sorters hybrid,hybrid-quick --sizes 16M --dist all --reps 7 --check \
    --csv "$OUT/hybrid-dists.csv" >"$LOGS/hybrid-dists.txt" 2>&1
  tail -n 40 "$LOGS/hybrid-dists.txt"
fi

if has faithful; then
  bench --sorters hybrid --sizes 1M,4M,16M --dist uniform --reps 5 --options hybrid:buckets=0 \
    --options hybrid:atomic_count=1 --options hybrid:global_merge=1 \
    --options hybrid:atomic_count=1,global_merge=1,buckets=1024,splitter=0 \
    --csv "$OUT/hybrid-faithful.csv" >"$LOGS/hybrid-faithful.txt" 2>&1
  tail -n 20 "$LOGS/hybrid-faithful.txt"
fi

if has knobs; then
  bench --sorters hybrid --sizes 1M,4M,16M --dist uniform --reps 15 \
    --options hybrid:word_merge=0,merge_outputs=16 --options hybrid:word_merge=0,merge_outputs=8 \
    --options hybrid:word_merge=1,merge_outputs=16 --options hybrid:word_merge=1,merge_outputs=8 \
    --options hybrid:word_merge=1,merge_outputs=0 \
    --csv "$OUT/hybrid-knobs.csv" >"$LOGS/hybrid-knobs.txt" 2>&1
  grep -E '^\[' "$LOGS/hybrid-knobs.txt" |
    sed -E 's/atomic_count=0,buckets=0,global_merge=0,histogram_bins=1024,//; s/,refinements=1,shuffle=0//'
fi

if has large; then
  # Many buckets (64M pairs with auto L; 16M with 16384 and 60000 buckets, whose counters no
  # longer fit shared memory) and the paper's execution, checked against the CPU.
  bench --sorters hybrid --sizes 64M --dist uniform,mesh --reps 5 --check \
    --csv "$OUT/hybrid-large.csv" >"$LOGS/hybrid-large.txt" 2>&1
  bench --sorters hybrid --sizes 16M --dist uniform,zipf,specials --reps 3 --check \
    --options hybrid:buckets=16384 --options hybrid:buckets=60000 \
    --csv "$OUT/hybrid-large2.csv" >>"$LOGS/hybrid-large.txt" 2>&1
  bench --sorters hybrid --sizes 1M,16M --dist uniform --reps 3 --check \
    --options hybrid:atomic_count=1,global_merge=1,buckets=1024,splitter=0 \
    --csv "$OUT/hybrid-large3.csv" >>"$LOGS/hybrid-large.txt" 2>&1
  grep -E "FAIL|error" "$LOGS/hybrid-large.txt" | head
fi

if has summary; then
  # One line per row of every CSV in OUT_DIR (hybrid and cub-radix): time, ratio, check, steps.
  python3 "$tables/hybrid-summary.py" "$OUT"/hybrid-*.csv
fi
