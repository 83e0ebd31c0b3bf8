#!/usr/bin/env bash
# The multi-GPU sort (docs/algorithms/multi-gpu.md) on a machine with several GPUs, in one run:
# topology, the exactness tests, then the benchmark at 16M..1G pairs, within about
# 300 s. depthsort-multigpu links libnccl dynamically: the machine needs NCCL's library.
#
#   scripts/multi-gpu.sh BIN_DIR OUT_DIR
#     BIN_DIR  holds depthsort-multigpu
#     OUT_DIR  gets topo.txt, test.log, bench-*.log, multi-gpu-bench.csv, summary.txt
# MULTIGPU_SIZES (default "16M 64M 256M 1G") and MULTIGPU_BUDGET_S (default 300) override.
set -uo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BIN_DIR OUT_DIR" >&2
  exit 2
fi
bin=$1/depthsort-multigpu
out=$2
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
budget=${MULTIGPU_BUDGET_S:-300}
left() { echo $((budget - ($(date +%s) - started))); }
failures=0

# NVLink multicast (NVLS) stays off: NCCL would otherwise create
# multicast objects (cuMulticastCreate) on NVSwitch systems. The program forces it too.
export NCCL_NVLS_ENABLE=0
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

if [[ ! -x $bin ]]; then
  note "no executable $bin"
  exit 1
fi
# libnccl.so.2: the CUDA toolkit's, or wherever this machine keeps it.
if ldd "$bin" | grep -q 'libnccl.*not found'; then
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu \
             $(find / -xdev -name 'libnccl.so.2' -printf '%h\n' 2>/dev/null | head -3); do
    if [[ -e $dir/libnccl.so.2 ]]; then
      export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      break
    fi
  done
fi
note "== libnccl: $(ldd "$bin" | grep nccl | tr -s ' \t' ' ')"

{
  echo "== nvidia-smi topo -m"
  nvidia-smi topo -m 2>&1
  echo "== GPUs"
  nvidia-smi --query-gpu=index,name,memory.total,memory.free,driver_version --format=csv 2>&1
} | tee "$out/topo.txt"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
note "== $gpus GPU(s); NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"

# 1. Exactness: both cases, 1 and every GPU, 17 distributions, sizes around the split points.
note "== test (budget $(left) s)"
timeout $(( $(left) > 200 ? 170 : $(left) / 2 )) "$bin" --test >"$out/test.log" 2>&1
code=$?
tail -25 "$out/test.log"
note "test: $(tail -1 "$out/test.log") (exit $code)"
[[ $code != 0 ]] && failures=$((failures + 1))

# 2. Benchmark: one invocation per size, so a size that does not fit in memory or time leaves the
# others; 1G pairs need about 60 GB on GPU 0 (input, its copy, output, the split's buffers).
csv=$out/multi-gpu-bench.csv
: >"$csv"
for size in ${MULTIGPU_SIZES:-16M 64M 256M 1G}; do
  reps=11
  need=25
  case $size in 256M) need=35 ;; 1G) reps=5; need=70 ;; esac
  if (( $(left) < need )); then
    note "bench $size skipped: needs ~$need s, $(left) s left of $budget"
    continue
  fi
  timeout $(( $(left) - 5 )) "$bin" --bench --gpus "$gpus" --sizes "$size" --reps $reps --warmup 2 \
      --csv "$out/bench-$size.csv" >"$out/bench-$size.log" 2>&1
  code=$?
  note "bench $size: exit $code ($(( $(date +%s) - started )) s elapsed)"
  if [[ $code != 0 ]]; then
    failures=$((failures + 1))
    tail -5 "$out/bench-$size.log"
  fi
  if [[ -s $out/bench-$size.csv ]]; then
    if [[ -s $csv ]]; then tail -n +2 "$out/bench-$size.csv" >>"$csv"; else cat "$out/bench-$size.csv" >"$csv"; fi
  fi
done

# The summary table, last.
echo
echo "== summary: $(tail -1 "$out/test.log" 2>/dev/null)"
{
  printf '%-20s %6s %5s %10s %9s %7s %9s %9s %9s %9s %9s %8s %9s %s\n' case n gpus median_ms x_hybrid x_cub \
    hist_ms part_ms xchg_ms sort_ms gather_ms GB xchg/nccl ranges
  awk -F, 'NR > 1 {
      n = $3; s = n;
      if (n >= 1073741824 && n % 1073741824 == 0) s = n / 1073741824 "G"; else if (n >= 1048576 && n % 1048576 == 0) s = n / 1048576 "M";
      printf "%-20s %6s %5s %10s %9s %7s %9s %9s %9s %9s %9s %8.2f %9s %s\n", $1, s, $2, $6, $10, $11, $12, $13, $14, $15, $16, $17 / 1e9, $21, $22
    }' "$csv"
} | tee -a "$summary"
echo "== $(( $(date +%s) - started )) s; failures: $failures"
exit $((failures > 0))
