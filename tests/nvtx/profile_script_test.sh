#!/usr/bin/env bash
# CPU test of scripts/profile.sh and scripts/tables/profile_table.py (no GPU, no Nsight Compute): usage
# errors exit 2; a missing ncu and counters ncu may not read are said plainly (exit 1); with a stand-in
# ncu (tests/nvtx/data/fake-ncu) and benchmark, the NVTX filters it asks for and the table it prints
# from the fixture CSVs (written by hand in ncu --csv --page raw --print-units base's format).
#   profile_script_test.sh REPO WORK-DIR
set -u
repo=$1
work=$2
script=$repo/scripts/profile.sh
data=$repo/tests/nvtx/data
fake=(--bin "$data/fake-bin" --out "$work/out")
rm -rf "$work" && mkdir -p "$work"
failures=0

# expect STATUS REGEX COMMAND...: the command exits STATUS and its output matches REGEX.
expect() {
  local want=$1 pattern=$2 output rc
  shift 2
  output=$("$@" 2>&1)
  rc=$?
  if [[ $rc != "$want" ]] || ! grep -qE -- "$pattern" <<<"$output"; then
    echo "FAIL: $* exited $rc (want $want), output should match /$pattern/:"
    sed 's/^/    /' <<<"$output" | head -30
    failures=$((failures + 1))
  else
    echo "ok: $want /$pattern/: ${*: -4}"
  fi
}

expect 2 "no command" "$script"
expect 2 "unknown command 'bogus'" "$script" bogus
expect 2 "unknown option '--frobnicate'" "$script" --frobnicate sort hybrid
expect 2 "--bin needs a folder" "$script" --bin
expect 2 "sort needs a sorter name" "$script" sort
expect 2 "--size needs a count" env NCU="$data/fake-ncu" "$script" "${fake[@]}" sort hybrid --size 12Q
expect 2 "unknown argument '--bogus'" env NCU="$data/fake-ncu" "$script" "${fake[@]}" sequence hybrid --bogus
expect 2 "'nosuch' is no GPU sorter" env NCU="$data/fake-ncu" "$script" "${fake[@]}" sort nosuch
expect 2 "'cpu' is no GPU sorter" env NCU="$data/fake-ncu" "$script" "${fake[@]}" sort cpu
expect 1 "NCU=/no/such/ncu is not an executable" env NCU=/no/such/ncu "$script" "${fake[@]}" sort hybrid
if [[ -x /usr/local/cuda/bin/ncu ]]; then
  echo "skipped: the search for ncu (this machine has /usr/local/cuda/bin/ncu)"
else
  expect 1 "found neither on PATH nor in /usr/local/cuda/bin" \
    env -u NCU PATH=/usr/bin:/bin "$script" "${fake[@]}" sort hybrid
fi
expect 1 "ERR_NVGPUCTRPERM.*NVreg_RestrictProfilingToAdminUsers=0" \
  env NCU="$data/fake-ncu" FAKE_NCU_MODE=perm "$script" "${fake[@]}" sort hybrid

# The whole path on the fixtures: the table's rows, and the filters and flags ncu was given.
export FAKE_NCU_LOG=$work/ncu-calls.txt
expect 0 "min/max +4\.00 +0\.00 +2\.0 +2 +0\.50 +min_max_kernel" \
  env NCU="$data/fake-ncu" "$script" "${fake[@]}" sort hybrid --size 1K
table=$work/out/sort-hybrid-1K-uniform/table.txt
expect 0 "shuffle +16\.00 +16\.00 +8\.2 +4 +1\.00 +shuffle_kernel x2" cat "$table"
expect 0 "\(outside the steps\) +1\.00 +1\.00 .*DeviceScanKernel" cat "$table"
expect 0 "reference copy +8\.00 +8\.00 .*copy_words" cat "$table"
expect 0 "same ncu run" cat "$table"
ncu_flags="^--nvtx --nvtx-include depthsort@timed/hybrid/ --nvtx-include depthsort@reference copy/ "
ncu_flags+="--clock-control none "
ncu_flags+=".*--metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum "
ncu_flags+=".*depthsort-bench --sorters hybrid --warmup 0 .*--sizes 1K --dist uniform --reps 1"
expect 0 "$ncu_flags" cat "$FAKE_NCU_LOG"
expect 0 "--nvtx-include regex:depthsort@timed/hybrid/min\.max/" cat "$FAKE_NCU_LOG"
expect 0 "profile.ncu-rep" ls "$work/out/sort-hybrid-1K-uniform"
# A sequence profiles frame 1 alone: --frames 2 --warmup 0, the "timed" range.
expect 0 "of copy" env NCU="$data/fake-ncu" "$script" "${fake[@]}" sequence hybrid --size 1K --path fly
expect 0 "--sequence fly --frames 2" cat "$FAKE_NCU_LOG"

# The table maker's own refusals (planted: a step kernel the whole profile lacks, units not in base,
# nothing profiled, two steps claiming one kernel).
table_maker=(python3 "$repo/scripts/tables/profile_table.py" --title t --pairs 1024 --copy "$data/copy.csv")
expect 1 "kernel IDs \['9'\] of step 's' are not in" \
  "${table_maker[@]}" --whole "$data/all.csv" --step "s=$data/step-unknown-id.csv"
expect 1 "export with --print-units base" "${table_maker[@]}" --whole "$data/units-not-base.csv"
expect 1 "no kernels were profiled" "${table_maker[@]}" --whole "$data/empty.csv"
expect 1 "selected for step 'b' and an earlier step too" "${table_maker[@]}" --whole "$data/all.csv" \
  --step "a=$data/step-shuffle.csv" --step "b=$data/step-shuffle.csv"

echo "profile_script_test: $failures failure(s)"
((failures == 0))
