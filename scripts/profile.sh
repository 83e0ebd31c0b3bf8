#!/usr/bin/env bash
# Per-step profile of a sorter (or of one demo frame) with Nsight Compute, by NVTX range.
#
#   scripts/profile.sh sort SORTER [--size N] [--dist D]          one timed sort (default 16M uniform)
#   scripts/profile.sh sequence SORTER [--size N] [--path P]      one timed coherent frame (default 15M orbit)
#   scripts/profile.sh demo [-- DEMO-ARGS...]                     one frame of depthsort --headless --no-draw
#   scripts/profile.sh all [--size N] [--sequence-size N]         every GPU sorter, sort and sequence, and the demo
#   scripts/profile.sh table DIR                                  the table again from DIR's reports (no GPU)
# Options before the command: --bin DIR (programs, default build/bin), --out DIR (reports and tables,
# default profile-out). NCU names the ncu binary (default: ncu on PATH, else /usr/local/cuda/bin/ncu).
#
# Each profile is one ncu run of the program with --nvtx, kernels selected by their range in the
# `depthsort` domain (the benchmark's "timed" sorts: one, --reps 1 --warmup 0; a sequence's frame 1;
# the demo's "frame"), --clock-control none (the card's clocks as they are) and the metrics
# dram__bytes_read.sum, dram__bytes_write.sum, gpu__time_duration.sum. Each step's kernels are then
# read back from the report by the step's own range (ncu --import --nvtx-include), and
# scripts/tables/profile_table.py prints bytes per pair and bandwidth against the benchmark's reference copy
# kernel. DIR/NAME/ keeps the .ncu-rep (for the GUI), the CSVs, the program's --json and table.txt.
# docs/profiling.md explains the columns.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=build/bin
out=profile-out
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
usage_error() {
  echo "profile.sh: $*" >&2
  echo "usage:" >&2
  usage >&2
  exit 2
}
fail() {
  echo "profile.sh: $*" >&2
  exit 1
}

while (($# > 0)); do
  case $1 in
    --bin) (($# >= 2)) || usage_error "--bin needs a folder"; bin=$2; shift 2 ;;
    --out) (($# >= 2)) || usage_error "--out needs a folder"; out=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) usage_error "unknown option '$1'" ;;
    *) break ;;
  esac
done
(($# > 0)) || usage_error "no command"
command=$1
shift

# A count as depthsort-bench spells it (digits, 2^N, K/M/G): its own parser has the last word.
size_ok() { [[ $1 =~ ^([0-9]+|2\^[0-9]+|[0-9]+[KMG])$ ]]; }

find_ncu() {
  if [[ -n ${NCU:-} ]]; then
    [[ -x $NCU ]] || command -v "$NCU" >/dev/null || fail "NCU=$NCU is not an executable"
    echo "$NCU"
  elif command -v ncu >/dev/null; then
    command -v ncu
  elif [[ -x /usr/local/cuda/bin/ncu ]]; then
    echo /usr/local/cuda/bin/ncu
  else
    fail "Nsight Compute's 'ncu' was found neither on PATH nor in /usr/local/cuda/bin: install Nsight Compute" \
      "(it comes with the CUDA toolkit) or name it with NCU=/path/to/ncu"
  fi
}

need_program() {
  [[ -x $bin/$1 ]] || fail "$bin/$1 not found: build it (cmake --build build) or name the folder with --bin"
}

# ncu's own account of a run that could not profile: said plainly, then stop.
explain_ncu_log() {
  local log=$1
  if grep -q "ERR_NVGPUCTRPERM" "$log"; then
    fail "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): profiling needs root or" \
      "the driver option NVreg_RestrictProfilingToAdminUsers=0 (see $log)"
  fi
  if grep -qE "==ERROR==" "$log"; then
    echo "profile.sh: ncu reported errors ($log):" >&2
    grep -E "==ERROR==" "$log" | head -5 >&2
    exit 1
  fi
}

# profile_run DIR NAME INCLUDE... -- PROGRAM ARGS...: one ncu run into DIR/NAME.ncu-rep.
profile_run() {
  local dir=$1 name=$2
  shift 2
  local filters=()
  while [[ $1 != -- ]]; do
    filters+=(--nvtx-include "$1")
    shift
  done
  shift
  "$ncu" --nvtx "${filters[@]}" --clock-control none --cache-control all --metrics "$metrics" \
    --export "$dir/$name" --force-overwrite "$@" >"$dir/$name.log" 2>&1
  local rc=$?
  explain_ncu_log "$dir/$name.log"
  ((rc == 0)) || fail "ncu exited with $rc ($dir/$name.log): $(tail -3 "$dir/$name.log" | tr '\n' ' ')"
}

# export_csv REPORT FILTER CSV: the report's kernels under FILTER ("" = all) as raw CSV, base units.
export_csv() {
  local filter=()
  [[ -n $2 ]] && filter=(--nvtx-include "$2")
  if ! "$ncu" --import "$1" --csv --page raw --print-units base "${filter[@]}" >"$3" 2>"$3.err"; then
    fail "ncu could not export $1${2:+ filtered by '$2'}: $(head -3 "$3.err" | tr '\n' ' ')"
  fi
}

# The NVTX filter of a range path: domain@A/B/C/ ; a name holding '/' (hybrid's "min/max") is
# written as a regular expression, '.' standing for its '/'.
nvtx_filter() {
  local path=("$@") part text="" regex=0
  for part in "${path[@]}"; do [[ $part == */* ]] && regex=1; done
  for part in "${path[@]}"; do
    if ((regex)); then
      part=$(printf '%s' "$part" | sed 's/[][\.*^$+?(){}|]/\\&/g; s#/#.#g')
    fi
    text+="$part/"
  done
  if ((regex)); then echo "regex:depthsort@$text"; else echo "depthsort@$text"; fi
}

kernel_rows() { grep -c '^"[0-9]' "$1" 2>/dev/null || true; }

# Step names of the one benchmark row of SORTER in JSON (in order, once each).
bench_steps() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["sorter"] == sys.argv[2] and "@" not in r["dist"]]
seen = []
for row in rows[:1]:
    for step in row["steps"]:
        if step["name"] not in seen:
            seen.append(step["name"])
print("\n".join(seen))
EOF
}

# make_table DIR TITLE PAIRS PARENT-PATH... : per-step CSVs from DIR/profile.ncu-rep, then the table.
make_table() {
  local dir=$1 title=$2 pairs=$3
  shift 3
  local parent=("$@") report=$dir/profile.ncu-rep steps=() step i=0
  [[ -f $report ]] || fail "$report not found"
  rm -f "$dir"/step-*
  export_csv "$report" "$(nvtx_filter "${parent[@]}")" "$dir/all.csv"
  mapfile -t names <"$dir/steps.txt"
  # One import per step, side by side (each is a separate ncu process reading the report).
  for step in "${names[@]}"; do
    [[ -n $step ]] || continue
    i=$((i + 1))
    (export_csv "$report" "$(nvtx_filter "${parent[@]}" "$step")" "$dir/step-$i.csv" || : >"$dir/step-$i.failed") &
    steps+=(--step "$step=$dir/step-$i.csv")
  done
  wait
  ! compgen -G "$dir/step-*.failed" >/dev/null || fail "the per-step exports failed ($dir/step-*.csv.err)"
  local copy=$dir/copy.csv note="reference copy: the benchmark's copy kernel, same ncu run"
  if [[ -f $dir/reference.ncu-rep ]]; then
    export_csv "$dir/reference.ncu-rep" "" "$copy"
    note="reference copy: the benchmark's copy kernel, its own ncu run of the same command"
    note+=" (ncu here would not select both ranges in one run)"
  else
    export_csv "$report" "depthsort@reference copy/" "$copy"
  fi
  python3 "$here/tables/profile_table.py" --title "$title" --pairs "$pairs" --whole "$dir/all.csv" --copy "$copy" \
    --copy-note "$note" "${steps[@]}" >"$dir/table.txt" || fail "no table for $dir (see above)"
  cat "$dir/table.txt"
}

# profile_bench NAME SORTER BENCH-ARGS...: the timed sort of SORTER profiled into $out/NAME/.
profile_bench() {
  local name=$1 sorter=$2
  shift 2
  local dir=$out/$name
  mkdir -p "$dir"
  local program=("$bin/depthsort-bench" --sorters "$sorter" --warmup 0 --json "$dir/bench.json" "$@")
  local sort_filter copy_filter="depthsort@reference copy/"
  sort_filter=$(nvtx_filter timed "$sorter")
  rm -f "$dir/reference.ncu-rep"
  profile_run "$dir" profile "$sort_filter" "$copy_filter" -- "${program[@]}"
  export_csv "$dir/profile.ncu-rep" "$sort_filter" "$dir/all.csv"
  export_csv "$dir/profile.ncu-rep" "$copy_filter" "$dir/copy.csv"
  if (($(kernel_rows "$dir/all.csv") == 0)); then
    # Two --nvtx-include filters selected nothing: this ncu ANDs them. The sort alone, then the copy.
    profile_run "$dir" profile "$sort_filter" -- "${program[@]}"
    export_csv "$dir/profile.ncu-rep" "$sort_filter" "$dir/all.csv"
    (($(kernel_rows "$dir/all.csv") > 0)) || fail "no kernel of $sorter's timed sort was profiled ($dir/profile.log)"
  fi
  if (($(kernel_rows "$dir/copy.csv") == 0)); then
    profile_run "$dir" reference "$copy_filter" -- "${program[@]}"
  fi
  bench_steps "$dir/bench.json" "$sorter" >"$dir/steps.txt" || fail "cannot read $dir/bench.json"
}

pairs_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][0]["n"])' "$1"; }

cmd_bench() {  # sort|sequence SORTER [--size N] [--dist D | --path P]
  local kind=$1 sorter=${2:-}
  [[ -n $sorter && $sorter != -* ]] || usage_error "$kind needs a sorter name (depthsort-bench --list)"
  shift 2
  local size dist=uniform path=orbit
  if [[ $kind == sort ]]; then size=16M; else size=15M; fi
  while (($# > 0)); do
    case $1 in
      --size)
        (($# >= 2)) && size_ok "$2" || usage_error "--size needs a count such as 16M, 2^24 or 1000000"
        size=$2; shift 2 ;;
      --dist)
        [[ $kind == sort && $# -ge 2 ]] || usage_error "--dist belongs to 'sort' and needs a distribution"
        dist=$2; shift 2 ;;
      --path)
        [[ $kind == sequence && $# -ge 2 ]] ||
          usage_error "--path belongs to 'sequence' and needs orbit, fly-through or cuts"
        path=$2; shift 2 ;;
      *) usage_error "$kind: unknown argument '$1'" ;;
    esac
  done
  ncu=$(find_ncu) || exit 1
  need_program depthsort-bench
  "$bin/depthsort-bench" --list 2>/dev/null |
    awk -v s="$sorter" '$1 == s && $2 == "gpu" { found = 1 } END { exit !found }' ||
    usage_error "'$sorter' is no GPU sorter of this build (depthsort-bench --list)"
  if [[ $kind == sort ]]; then
    profile_bench "sort-$sorter-$size-$dist" "$sorter" --sizes "$size" --dist "$dist" --reps 1 || exit 1
    local dir=$out/sort-$sorter-$size-$dist
    make_table "$dir" "$sorter: one timed sort of $size $dist pairs (depthsort-bench, NVTX range timed/$sorter)" \
      "$(pairs_of "$dir/bench.json")" timed "$sorter"
  else
    profile_bench "sequence-$sorter-$size-$path" "$sorter" --sizes "$size" --sequence "$path" --frames 2 || exit 1
    local dir=$out/sequence-$sorter-$size-$path
    local title="$sorter: the timed frame 1 of a coherent $path sequence, $size pairs"
    title+=" (depthsort-bench --sequence, NVTX range timed/$sorter)"
    make_table "$dir" "$title" \
      "$(pairs_of "$dir/bench.json")" timed "$sorter"
  fi
}

cmd_demo() {
  [[ ${1:-} == -- ]] && shift
  ncu=$(find_ncu) || exit 1
  need_program depthsort
  local dir=$out/demo
  mkdir -p "$dir"
  local program=("$bin/depthsort" --headless --no-draw --frames 1 --json "$dir/frame.json" "$@")
  profile_run "$dir" profile "depthsort@frame/" -- "${program[@]}"
  # The phases that launch kernels, and the sort's steps inside the sorter's own range.
  python3 - "$dir/frame.json" >"$dir/plan.txt" <<'EOF' || fail "cannot read $dir/frame.json"
import json, sys
report = json.load(open(sys.argv[1]))
meta, frame = report["meta"], report["frames"][0]
print(meta["triangles"] + meta["particles"])
print(meta["sorter"])
for label in frame:
    group, _, name = label.partition("/")
    if group == "frame" and name in ("simulate", "depth", "sort", "gather", "expand"):
        print("phase\t" + name)
    elif group == "sort":
        print("step\t" + name)
EOF
  local pairs sorter
  pairs=$(sed -n 1p "$dir/plan.txt")
  sorter=$(sed -n 2p "$dir/plan.txt")
  local report=$dir/profile.ncu-rep steps=() i=0 kind name
  export_csv "$report" "depthsort@frame/" "$dir/all.csv"
  while IFS=$'\t' read -r kind name; do
    i=$((i + 1))
    if [[ $kind == phase ]]; then
      [[ $name == sort ]] && continue  # shown as its steps
      export_csv "$report" "$(nvtx_filter frame "$name")" "$dir/step-$i.csv"
      steps+=(--step "$name=$dir/step-$i.csv")
    else
      export_csv "$report" "$(nvtx_filter frame sort "$sorter" "$name")" "$dir/step-$i.csv"
      steps+=(--step "sort: $name=$dir/step-$i.csv")
    fi
  done < <(tail -n +3 "$dir/plan.txt")
  # The demo has no copy kernel of its own: the benchmark's, at the frame's pair count, same card.
  need_program depthsort-bench
  profile_run "$dir" reference "depthsort@reference copy/" -- "$bin/depthsort-bench" --sorters cub-radix \
    --sizes "$pairs" --reps 1 --warmup 0
  export_csv "$dir/reference.ncu-rep" "" "$dir/copy.csv"
  python3 "$here/tables/profile_table.py" \
    --title "depthsort: one headless frame ($pairs primitives, sorter $sorter), NVTX range frame" \
    --pairs "$pairs" --whole "$dir/all.csv" --copy "$dir/copy.csv" \
    --copy-note "reference copy: depthsort-bench's copy kernel at $pairs pairs, its own ncu run" "${steps[@]}" \
    >"$dir/table.txt" || fail "no table for $dir"
  cat "$dir/table.txt"
}

cmd_all() {
  local size=16M seq_size=15M
  while (($# > 0)); do
    case $1 in
      --size) (($# >= 2)) && size_ok "$2" || usage_error "--size needs a count"; size=$2; shift 2 ;;
      --sequence-size)
        (($# >= 2)) && size_ok "$2" || usage_error "--sequence-size needs a count"
        seq_size=$2; shift 2 ;;
      *) usage_error "all: unknown argument '$1'" ;;
    esac
  done
  find_ncu >/dev/null || exit 1
  need_program depthsort-bench
  local sorter failed=0
  for sorter in $("$bin/depthsort-bench" --list 2>/dev/null | awk '$2 == "gpu" { print $1 }'); do
    (cmd_bench sort "$sorter" --size "$size") || failed=$((failed + 1))
    (cmd_bench sequence "$sorter" --size "$seq_size") || failed=$((failed + 1))
  done
  (cmd_demo) || failed=$((failed + 1))
  echo "profile.sh: reports and tables in $out/ ($failed profile(s) failed)"
  ((failed == 0))
}

cmd_table() {
  local dir=${1:-}
  [[ -n $dir && -d $dir ]] || usage_error "table needs a profile folder (one that profile.sh wrote)"
  ncu=$(find_ncu) || exit 1
  [[ -f $dir/bench.json ]] || fail "$dir/bench.json not found: 'table' remakes benchmark profiles"
  local sorter
  # The profiled sorter: the last row that is not the cub-radix baseline (or the baseline itself).
  sorter=$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print(([r for r in rows if not r["baseline"]] or rows)[-1]["sorter"])' "$dir/bench.json")
  make_table "$dir" "$sorter (from $dir)" "$(pairs_of "$dir/bench.json")" timed "$sorter"
}

case $command in
  sort | sequence) cmd_bench "$command" "$@" ;;
  demo) cmd_demo "$@" ;;
  all) cmd_all "$@" ;;
  table) cmd_table "$@" ;;
  *) usage_error "unknown command '$command'" ;;
esac
