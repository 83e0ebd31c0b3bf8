#!/usr/bin/env bash
# The multi-GPU sort (docs/algorithms/multi-gpu.md) on a machine with several GPUs, in one run within
# a time budget, the measurements that decide the goals first: the machine (GPUs, NCCL's version,
# `nvidia-smi topo -m`), the benchmark at 1G and 256M pairs on 1, 2 and 4 GPUs (or as many as
# there are), the exactness tests on every GPU, then with two GPUs visible and with one, the
# benchmark at 64M and 16M where time is left, and a summary: every row, the weighted split's
# model, the tests, and last a short table with the goals.
# depthsort-multigpu links libnccl dynamically: the machine needs NCCL's library (libnccl.so.2).
#
#   scripts/multi-gpu.sh BIN_DIR OUT_DIR
#     BIN_DIR  holds depthsort-multigpu
#     OUT_DIR  gets machine.txt, test.log, bench.log, multi-gpu-bench.csv, summary.txt (5 files)
# Environment: MULTIGPU_BUDGET_S (default 280: the whole run, in seconds; a part that would not
# fit in what is left is skipped and says so), MULTIGPU_SIZES (default "1G 256M 64M 16M", run in
# that order), MULTIGPU_REPS (default 7), MULTIGPU_TEST_MAX (default 4M+5: the largest test size on
# every GPU).
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
budget=${MULTIGPU_BUDGET_S:-280}
left() { echo $((budget - ($(date +%s) - started))); }
failures=0

# NVLink multicast (NVLS) stays off in every process: NCCL would otherwise create multicast
# objects (cuMulticastCreate) on NVSwitch systems, which can take the host's GPUs out of service.
# The program sets it too, before NCCL starts.
export NCCL_NVLS_ENABLE=0
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

if [[ ! -x $bin ]]; then
  note "no executable $bin"
  exit 1
fi
# libnccl.so.2: where the loader finds it, else the CUDA toolkit's, else wherever this machine keeps it.
if ldd "$bin" 2>/dev/null | grep -q 'libnccl.*not found'; then
  for dir in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64 /usr/local/cuda/lib \
             /usr/local/cuda/targets/x86_64-linux/lib \
             $(find / -xdev -name 'libnccl.so.2' -printf '%h\n' 2>/dev/null | head -3); do
    if [[ -e $dir/libnccl.so.2 ]]; then
      export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      break
    fi
  done
fi

machine=$out/machine.txt
{
  echo "== libnccl: $(ldd "$bin" 2>/dev/null | grep nccl | tr -s ' \t' ' ')"
  echo "== depthsort-multigpu --info"
  timeout 60 "$bin" --info 2>&1
  echo "== nvidia-smi topo -m"
  nvidia-smi topo -m 2>&1
  echo "== GPUs"
  nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv 2>&1
} >"$machine"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
grep -E '^(NCCL|CUDA|GPU [0-9])' "$machine" | tee -a "$summary"
note "== $gpus GPU(s); NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE; budget $budget s"
(( gpus > 8 )) && gpus=8
counts=1
(( gpus >= 2 )) && counts=1,2
(( gpus >= 4 )) && counts=1,2,4
(( gpus > 4 )) && counts=$counts,$gpus

csv=$out/multi-gpu-bench.csv
bench_log=$out/bench.log
: >"$csv"
: >"$bench_log"
# run_bench SIZE SECONDS_WANTED SECONDS_KEPT: one --bench process for one size (a size that does
# not fit in memory or time leaves the others), leaving SECONDS_KEPT of the budget for what follows.
run_bench() {
  local size=$1 need=$2 keep=$3
  if (( $(left) - keep < need )); then
    note "bench $size skipped: needs ~$need s, $(left) s left of $budget ($keep kept for what follows)"
    return
  fi
  local t0=$(date +%s)
  echo "== bench $size: --bench --gpus $counts --sizes $size --reps ${MULTIGPU_REPS:-7} --warmup 2" >>"$bench_log"
  timeout -k 10 $(( $(left) - keep )) "$bin" --bench --gpus "$counts" --sizes "$size" --reps "${MULTIGPU_REPS:-7}" \
    --warmup 2 --csv "$out/bench.part.csv" >>"$bench_log" 2>&1
  local code=$?
  note "bench $size: exit $code ($(( $(date +%s) - t0 )) s)"
  if [[ $code != 0 ]]; then
    failures=$((failures + 1))
    tail -4 "$bench_log"
  fi
  if [[ -s $out/bench.part.csv ]]; then
    if [[ -s $csv ]]; then tail -n +2 "$out/bench.part.csv" >>"$csv"; else cat "$out/bench.part.csv" >"$csv"; fi
  fi
  rm -f "$out/bench.part.csv"
}

test_log=$out/test.log
: >"$test_log"
# run_test LABEL SECONDS_WANTED ENV... -- ARGS...: one --test invocation, its log appended to test.log.
run_test() {
  local label=$1 want=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  if (( $(left) < want / 2 )); then
    note "test ($label) skipped: wants ~$want s, $(left) s left of $budget"
    return
  fi
  local limit=$(( $(left) < want ? $(left) : want ))
  echo "== test ($label): ${envs[*]} --test $* (limit $limit s)" >>"$test_log"
  local t0=$(date +%s)
  env "${envs[@]}" timeout -k 10 "$limit" "$bin" --test "$@" >>"$test_log.part" 2>&1
  local code=$?
  cat "$test_log.part" >>"$test_log"
  local last
  last=$(grep -E 'passed, [0-9]+ failed|^skipped' "$test_log.part" | tail -1)
  grep '^FAIL' "$test_log.part" | head -5
  rm -f "$test_log.part"
  (( code == 124 )) && last="timed out after $limit s (${last:-no result line})"
  note "test ($label): ${last:-no result line} (exit $code, $(( $(date +%s) - t0 )) s)"
  [[ $code != 0 && $code != 77 ]] && failures=$((failures + 1))
}

# 1. The sizes the goals are taken at, first (every output checked on the GPUs), leaving time for
#    the exactness tests after them.
sizes=${MULTIGPU_SIZES:-1G 256M 64M 16M}
for size in $sizes; do
  case $size in
    1G) run_bench "$size" 90 110 ;;
    256M) run_bench "$size" 35 110 ;;
  esac
done
# 2. Exactness on every GPU: the sorters on 1, 2 and every GPU, both cases, both transports, with
#    and without the pipeline's sub-ranges, every distribution, sizes around the split points.
run_test "$gpus GPUs" 80 CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((gpus - 1)))" -- --max-test-size "${MULTIGPU_TEST_MAX:-4M+5}"
# 3. Exactness with two GPUs visible (NCCL set up over those two alone), then with one.
(( gpus >= 3 )) && run_test "2 GPUs visible" 30 CUDA_VISIBLE_DEVICES=0,1 -- --max-test-size 1M+3
run_test "1 GPU visible" 20 CUDA_VISIBLE_DEVICES=0 -- --max-test-size 1M+3
# 4. The smaller sizes, where time is left.
for size in $sizes; do
  case $size in
    1G | 256M) ;;
    *) run_bench "$size" 20 5 ;;
  esac
done

# The summary: every row, the weighted split's model, the tests; last a short table and the goals.
tests=$(grep -E '^test \(' "$summary")
rows_of() {  # the CSV's rows as a table; $1: an awk condition on the row
  awk -F, -v OFS=' ' "NR > 1 && ($1)"' {
      n = $3; s = n;
      if (n >= 1073741824 && n % 1073741824 == 0) s = n / 1073741824 "G"; else if (n >= 1048576 && n % 1048576 == 0) s = n / 1048576 "M";
      steps = ($14 == "") ? "-" : sprintf("%.2f/%.2f/%.2f/%.2f/%.2f", $14, $15, $16, $17, $18);
      check = ($25 == "pass" || $25 == "-") ? $25 : "FAIL";
      printf "%-22s %4s %5s %9.3f %6.2f %6.2f %2s %-34s %6.2f %6s %6s %s\n", $1, $2, s, $6, $10, $11, $13, steps, $19 / 1e9,
             ($23 == "" ? "-" : sprintf("%.2f", $23)), ($27 == "" || $21 == "" ? "-" : sprintf("%.2f", $21 / $27)), check
    }' "$csv"
}
header() {
  printf '%-22s %4s %5s %9s %6s %6s %2s %-34s %6s %6s %6s %s\n' case gpus n median_ms x_hyb x_cub K \
    "steps spl/part/xchg/sort/gather" GB x/NCCL NC/CE check
}
echo
{
  echo "== every row (median ms; x = one GPU's time / this; steps overlap; GB = every pair that crossed;"
  echo "   x/NCCL = NCCL alone moving the exchange's pairs / the exchange (1.00: NCCL's rate);"
  echo "   NC/CE = NCCL alone / the copy engines alone for the same pairs (above 1: the copy engines are faster);"
  echo "   check: the output checked on the GPUs)"
  header
  rows_of 1
  echo "== the weighted split's model (f T1 = (1 - f)(2S + T1/(N-1)), the run's own T1 and S)"
  grep -A3 '^model ' "$bench_log" | grep -v '^--$' | awk '!seen[$0]++'
  echo "== the splitters: what their levels read (candidates: the keys inside the sample's brackets)"
  awk -F, 'NR > 1 && $28 != "-" && $28 != "" { printf "  %-22s %s GPUs %s: %s (%s keys in brackets)\n", $1, $2, $3, $28, $29 }' "$csv" | sort -u | head -12
  echo "== outputs checked on the GPUs: $(awk -F, 'NR > 1 && $25 == "pass"' "$csv" | wc -l) pass, $(awk -F, 'NR > 1 && $25 ~ /FAIL/' "$csv" | wc -l) fail"
  awk -F, 'NR > 1 && $25 ~ /FAIL/ { print "  " $1 ", " $2 " GPUs, n " $3 ": " $25 }' "$csv" | head -5
  echo "== tests"
  echo "$tests"
  echo "== the goals (uniform keys; one GPU's rows from the same run)"
  header
  rows_of '($3 == 1073741824 || $3 == 268435456) && ($1 ~ /^one-gpu/ || $1 == "distributed" || $1 == "gathered" || $1 ~ /^gathered-share/)'
  awk -F, 'NR > 1 { key = $1 "|" $2 "|" $3; x_cub[key] = $11; x_hyb[key] = $10; if ($23 != "") ratio[key] = $23 }
    function verdict(v, goal) { return (v == "" ? "not measured" : (v + 0 >= goal ? "met" : "NOT met")) }
    function show(label, v, goal) { printf "  %-64s %8s  %s\n", label, (v == "" ? "-" : sprintf("%.2fx", v)), verdict(v, goal) }
    END {
      G = 1073741824; M256 = 268435456;
      show("distributed, 2 GPUs, 256M: x cub-radix >= 1.0", x_cub["distributed|2|" M256], 1.0);
      show("distributed, 2 GPUs, 1G: x cub-radix >= 1.0 (aim 1.3)", x_cub["distributed|2|" G], 1.0);
      show("distributed, 4 GPUs, 1G: x cub-radix >= 2.0", x_cub["distributed|4|" G], 2.0);
      show("gathered (hybrid), 2 GPUs, 1G: x hybrid >= 1.5", x_hyb["gathered|2|" G], 1.5);
      for (k in x_hyb) { split(k, p, "|"); if (p[1] ~ /^gathered-share/ && p[2] == 2 && p[3] == G) show(p[1] " (hybrid), 2 GPUs, 1G: x hybrid >= 1.5", x_hyb[k], 1.5) }
      for (k in ratio) { split(k, p, "|");
        if ((p[3] == G || p[3] == M256) && p[2] > 1 && (p[1] == "distributed" || p[1] == "gathered" || p[1] ~ /^gathered-share/)) {
          label = sprintf("%s, %s GPUs, %s: exchange >= 0.90 of NCCL'"'"'s rate", p[1], p[2], (p[3] == G ? "1G" : "256M"));
          printf "  %-64s %8.2f  %s\n", label, ratio[k], verdict(ratio[k], 0.9) } }
    }' "$csv" | sort
} | tee -a "$summary"
echo "== $(( $(date +%s) - started )) s of $budget; failures: $failures"
exit $((failures > 0))
