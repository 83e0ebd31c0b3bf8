#!/usr/bin/env bash
# The checks and measurements that need a CUDA GPU, by parts: GPU tests, compute-sanitizer over
# every sorter, the benchmark, the paper studies, the demo's checks and the soak. Runs on any
# machine with a CUDA GPU (driver for CUDA 13), from the repository root, on a build of this tree:
#
#   cmake --preset default && cmake --build build      # or scripts/test.sh
#   scripts/gpu-suite.sh build [parts...]
#
# The demo's parts (demo, views, soak) also need the GL libraries (libEGL with NVIDIA's vendor
# library, GLFW); a machine without them (a bare container image) can get them from .gl/*.deb
# packages beside the tree, unpacked by scripts/bare-image-gl.sh.
#
#   parts (default: tests sanitize bench):
#     tests     ctest -L ^gpu$ (every sorter x option flags x 17 distributions x 21 sizes, app GPU tests)
#     sanitize  compute-sanitizer memcheck, racecheck, synccheck, initcheck over every GPU sorter of
#               the registry, default options and each flag flipped, sizes around tile boundaries,
#               three distributions, and run-bucket's bucket path at small sizes (min_pairs_log2=12,
#               input in nearly key order, sorted twice); any reported error fails the part
#     bench     depthsort-bench, every GPU sorter, uniform 1M..64M, 21 repetitions
#     before    every GPU sorter's 16M uniform row from an older depthsort-bench (BEFORE_BENCH,
#               default before/depthsort-bench; its commit in COMMIT beside it), and the demo's
#               compute part at 5M triangles + 1M particles from the depthsort beside it,
#               alternating with this build's, twice: a refactor must leave the speed unchanged
#     studies   scripts/study/*.sh: each paper's figures (one script per sorter; STUDIES names some)
#     hybrid    scripts/study/hybrid.sh (HYBRID_PARTS, default "dists")
#     dists     every GPU sorter on every distribution at 16M
#     demo      scripts/demo-gpu.sh (whole frames with drawing, map + unmap drawing and not; DEMO_BUDGET_S,
#               DEMO_S the part's hard limit, default 300)
#     views     scripts/demo-views-gpu.sh (one order's pixel tests, coherent frames, segment views;
#               VIEWS_PARTS, e.g. tests,sort)
#     coherent  depthsort-bench --sequence orbit, fly-through, cuts: frame-coherent sorting
#     soak      10,000 headless frames switching sorter and options every frame (--cycle-sorters)
#     multigpu  scripts/multi-gpu.sh: the multi-GPU sort's exactness tests and benchmark on every
#               GPU of the machine (N = 1 on a one-GPU machine; MULTIGPU_SIZES, MULTIGPU_BUDGET_S)
#
# Results land in $OUT (default /tmp/depthsort-out): summary.txt, CSVs, and results.tgz (every
# log). SUITE_BUDGET_S (default 570) bounds the whole run: a part that would not fit is skipped,
# and says so.
#
# Builds for older architectures than the GPU's (the ptx80 and ptx75 presets: PTX only, which the
# driver compiles at load) run the same parts. The driver's compile cache is shared by every
# process of the run (CUDA_CACHE_PATH, default /tmp/depthsort-jit-cache, 4 GiB), and filled once
# before the tests by loading each program's kernels eagerly (the line "JIT warm-up" says how
# long), so that parallel test processes do not each compile them again.
# DEPTHSORT_SHARED_MEMORY_PER_BLOCK (bytes), where set, runs every part in the shared memory of a
# smaller GPU (65536: sm_75; 101376: sm_86 and sm_89): docs/gpus.md.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${1:-build}
shift || true
parts=${*:-tests sanitize bench}
OUT=${OUT:-/tmp/depthsort-out}
work=${WORK:-/tmp/depthsort-results}  # WORK: a folder of its own for a second suite run beside this one
mkdir -p "$OUT" "$work"
summary=$work/summary.txt
note() { echo "$*" | tee -a "$summary"; }
failures=0
started=$(date +%s)
budget=${SUITE_BUDGET_S:-570}
# status NAME CODE: records a part's exit status; any non-zero makes the script exit 1.
status() {
  note "$1 exit status $2"
  if [[ $2 != 0 ]]; then failures=$((failures + 1)); fi
}
has_part() { [[ " $parts " == *" $1 "* ]]; }
# fits NAME SECONDS: true if the part fits in what is left of the budget; otherwise says so.
fits() {
  local left=$((budget - ($(date +%s) - started)))
  if ((left < $2)); then
    note "== $1 skipped: needs ~$2 s, $left s left of SUITE_BUDGET_S=$budget"
    return 1
  fi
}
bin=$build/bin
export PATH=$PATH:/usr/local/cuda/bin
# One compile cache for every process of the run, at its largest size (4 GiB), so that no kernel a
# PTX build's process compiled is evicted and compiled again by the next.
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/depthsort-jit-cache} CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}

# A machine without the demo's GL libraries: .gl/*.deb beside the tree (scripts/bare-image-gl.sh).
if [[ -d .gl ]]; then
  # shellcheck source=scripts/bare-image-gl.sh
  source scripts/bare-image-gl.sh
fi

# ctest's files name the absolute paths of the machine that configured the build: give the tree
# the same path here.
configured=$(sed -n 's/^# Build directory: //p' "$build/CTestTestfile.cmake" 2>/dev/null | head -1)
if [[ -n $configured && ! -e $configured ]]; then
  mkdir -p "$(dirname "$(dirname "$configured")")"
  ln -sfn "$repo" "$(dirname "$configured")"
fi

# The commit the binaries were built from: BUILD/COMMIT where the build was packed elsewhere
# (scripts/device-pack.sh), else this tree's HEAD.
commit=$(cat "$build/COMMIT" 2>/dev/null || echo "unknown (no $build/COMMIT; this tree's HEAD: $(git rev-parse --short HEAD 2>/dev/null))")
# The architectures the binaries were built for: BUILD/CUDA_ARCHITECTURES where packed, else the cache.
archs=$(cat "$build/CUDA_ARCHITECTURES" 2>/dev/null ||
  sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
note "== depthsort GPU suite, $(date -u '+%Y-%m-%d %H:%M UTC'), binaries of commit $commit (CUDA architectures ${archs:-unknown}), parts: $parts"
[[ -n ${DEPTHSORT_SHARED_MEMORY_PER_BLOCK:-} ]] &&
  note "DEPTHSORT_SHARED_MEMORY_PER_BLOCK=$DEPTHSORT_SHARED_MEMORY_PER_BLOCK: every sorter sized for that much shared memory per block"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$summary"

# The GPU sorters of the registry, and for each the option sets every test runs: the defaults,
# then each flag flipped (as registry.cpp's option_variants does).
gpu_sorters() { "$bin/depthsort-bench" --list 2>/dev/null | awk '$2 == "gpu" { print $1 }'; }
option_variants() {  # SORTER -> lines "SORTER:" (defaults) and "SORTER:flag=V"
  echo "$1:"
  "$bin/depthsort-bench" --list 2>/dev/null | awk -v s="$1" '
    /^[^ ]/ { current = $1 }
    current == s && $1 == "option" && $3 == "(flag" { split($2, kv, "="); print s ":" kv[1] "=" (1 - kv[2]) }'
}

# The library's kernels compiled once into the shared cache (for a build carrying this GPU's
# machine code, only their load): every module loaded at the start (CUDA_MODULE_LOADING=EAGER) by
# one short run of the GPU tests and one of the benchmark. The demo and its tests carry the same
# library's PTX; what a process does not find in the cache it compiles and adds.
if [[ -x $bin/depthsort-gpu-tests ]] && fits "JIT warm-up" 60; then
  warm_started=$(date +%s)
  warm_s=${JIT_WARM_S:-300}
  CUDA_MODULE_LOADING=EAGER timeout "$warm_s" "$bin/depthsort-gpu-tests" --gtest_filter='GpuPrimitives.*' >"$work/jit-warm.log" 2>&1
  warm_status=$?
  [[ -x $bin/depthsort-bench ]] && CUDA_MODULE_LOADING=EAGER timeout "$warm_s" "$bin/depthsort-bench" --sorters cub-radix \
    --sizes 1000 --dist uniform --reps 1 --warmup 0 >>"$work/jit-warm.log" 2>&1
  note "JIT warm-up: $(($(date +%s) - warm_started)) s (the GPU tests' primitives: exit status $warm_status; cache $(du -sh "$CUDA_CACHE_PATH" 2>/dev/null | cut -f1))"
fi

if has_part tests && fits tests 240; then
  note "== ctest -L ^gpu$ (the label alone: -L is a regular expression, and multigpu has its own part)"
  (cd "${configured:-$build}" && timeout ${TESTS_S:-400} ctest -L '^gpu$' -j 14 --output-on-failure --timeout 380) >"$work/ctest-gpu.log" 2>&1
  status ctest $?
  grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test time" "$work/ctest-gpu.log" | tail -25 | tee -a "$summary"
fi

if has_part sanitize && fits sanitize 150 && command -v compute-sanitizer >/dev/null; then
  note "== compute-sanitizer (memcheck racecheck synccheck initcheck) x every GPU sorter x option variants"
  mkdir -p "$work/sanitize"
  jobs_file=$work/sanitize/jobs.txt
  : >"$jobs_file"
  # SANITIZE_JOBS, a regular expression over the job lines "TOOL SORTER:OPTIONS [DISTS]", narrows
  # a run to what changed (e.g. '^initcheck |bucket-sort').
  # First, run-bucket's bucket path: at the part's sizes it is cub-radix's sort (below
  # min_pairs_log2), and only a second sort of input in nearly key order, with the splitters the
  # first one kept, takes it.
  for tool in memcheck racecheck synccheck initcheck; do
    job="$tool run-bucket:min_pairs_log2=12 sorted,camera-step,mesh,nearly-sorted,uniform"
    [[ $job =~ ${SANITIZE_JOBS:-.} ]] && echo "$job" >>"$jobs_file"
  done
  for sorter in $(gpu_sorters); do
    for variant in $(option_variants "$sorter"); do
      for tool in memcheck racecheck synccheck initcheck; do
        [[ "$tool $variant" =~ ${SANITIZE_JOBS:-.} ]] && echo "$tool $variant" >>"$jobs_file"
      done
    done
  done
  # One job: the bench sorts three distributions at sizes around the tile boundaries (or the job's
  # own distributions, twice after a warm-up sort), each checked against the CPU reference
  # (--check), under one tool; cub-radix, the bench's baseline, runs too.
  sanitize_one() {
    local tool=$1 variant=$2 sorter=${2%%:*} options=${2#*:} dists=${5:-}
    local log="$3/$tool-$(echo "$variant${dists:+-$dists}" | tr ':=,' '_-_').log"
    local extra=()
    [[ $tool == racecheck ]] && extra=(--racecheck-report hazard)
    local args=(--sorters "$sorter" --sizes 1000,4099,65537 --dist uniform,specials,all-equal --reps 1 --warmup 0 --check)
    [[ -n $dists ]] && args=(--sorters "$sorter" --sizes 65537,300000 --dist "$dists" --reps 2 --warmup 1 --check)
    [[ -n $options ]] && args+=(--options "$sorter:$options")
    # Each job ends by the part's deadline itself: stopping xargs leaves its children running, and
    # they went on loading the GPU during the next part (seen: the studies after an early stop).
    local left=$((SANITIZE_DEADLINE - $(date +%s)))
    if ((left < 10)); then
      echo "$tool $variant${dists:+ $dists} not run (time)"
      return
    fi
    timeout "$left" compute-sanitizer --tool "$tool" --error-exitcode 86 "${extra[@]}" "$4/depthsort-bench" "${args[@]}" >"$log" 2>&1
    local rc=$?
    if ((rc == 124)); then
      echo "$tool $variant${dists:+ $dists} not run (time): stopped at the deadline"
      return
    fi
    local errors; errors=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool $variant${dists:+ $dists} rc=$rc ${errors:-no summary}"
  }
  export -f sanitize_one
  # The part ends by SANITIZE_S (default: what is left less the parts after it); jobs it stops are
  # reported as not run, never as clean.
  limit=${SANITIZE_S:-$((budget - ($(date +%s) - started) - ${SANITIZE_RESERVE_S:-150}))}
  export SANITIZE_DEADLINE=$(($(date +%s) + limit))
  xargs -P 12 -L 1 bash -c 'sanitize_one "$0" "$1" "'"$work/sanitize"'" "'"$bin"'" "${2:-}"' \
    <"$jobs_file" >"$work/sanitize/done.txt"
  grep -v "not run (time)" "$work/sanitize/done.txt" | sort >"$work/sanitize/summary.txt"
  clean='rc=0 .*(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)'
  bad=$(grep -vcE "$clean" "$work/sanitize/summary.txt")
  finished=$(wc -l <"$work/sanitize/summary.txt")
  note "sanitize: $finished of $(wc -l <"$jobs_file") runs finished (limit ${limit} s); $bad with errors, failures or no summary"
  grep -vE "$clean" "$work/sanitize/summary.txt" | head -20 | tee -a "$summary"
  if grep -q "not run (time)" "$work/sanitize/done.txt"; then
    note "sanitize: not run (time): $(grep "not run (time)" "$work/sanitize/done.txt" | awk '{ print $1 " " $2 }' | tr '\n' ';' | cut -c1-600)"
  fi
  status sanitize $((bad > 0))
  cp "$work/sanitize/summary.txt" "$OUT/sanitize-summary.txt"
fi

if has_part bench && fits bench 120 && [[ -x $bin/depthsort-bench ]]; then
  note "== depthsort-bench, every GPU sorter, uniform, 1M..64M"
  timeout 300 "$bin/depthsort-bench" --sizes 1M,4M,16M,64M --dist uniform --reps 21 \
    --csv "$work/bench.csv" --json "$work/bench.json" >"$work/bench.log" 2>&1
  status bench $?
  tail -45 "$work/bench.log" | tee -a "$summary"
  cp "$work/bench.csv" "$OUT/bench.csv" 2>/dev/null
fi

# csv_rows FILE: "sorter [options] median ms" of every row of a bench CSV (options hold commas).
csv_rows() {
  python3 -c 'import csv, sys
print("  ".join("%s [%s] %s ms" % (r["sorter"], r["options"], r["median_ms"]) for r in csv.DictReader(open(sys.argv[1]))))' "$1"
}

before_bench=${BEFORE_BENCH:-before/depthsort-bench}
before_demo=$(dirname "$before_bench")/depthsort
if has_part before && fits before 150 && [[ -x $before_bench ]]; then
  note "== every GPU sorter's 16M uniform row, and the demo's compute part, before ($(cat "$(dirname "$before_bench")/COMMIT" 2>/dev/null)) and after, same run"
  for run in 1 2; do
    for which in before after; do
      # The same algorithms both sides: BEFORE_OPTIONS names the options that select, in this build,
      # what the old build ran by default (e.g. hybrid:splitter=0).
      b=("$before_bench")
      if [[ $which == after ]]; then
        b=("$bin/depthsort-bench")
        for o in ${BEFORE_OPTIONS:-}; do b+=(--options "$o"); done
      fi
      timeout 120 "${b[@]}" --sizes 16M --dist uniform --reps 21 \
        --csv "$work/before-after-$which-$run.csv" >"$work/before-after-$which-$run.log" 2>&1
      note "$which (round $run): $(csv_rows "$work/before-after-$which-$run.csv")"
      cp "$work/before-after-$which-$run.csv" "$OUT/" 2>/dev/null
    done
  done
  # The demo's compute part (map, depth, sort, gather, unmap) at 5M triangles + 1M particles.
  if [[ -x $before_demo && -x $bin/depthsort ]]; then
    for run in 1 2; do
      for which in before after; do
        d=$before_demo
        [[ $which == after ]] && d=$bin/depthsort
        timeout 120 "$d" --headless --no-draw --triangles 5M --particles 1M --frames 300 \
          --json "$work/demo-$which-$run.json" >"$work/demo-$which-$run.log" 2>&1
        note "demo $which (round $run): $(grep -iE 'compute|sort ' "$work/demo-$which-$run.log" | head -3 | tr '\n' ' ')"
        cp "$work/demo-$which-$run.json" "$OUT/" 2>/dev/null
      done
    done
  fi
fi

if has_part studies; then
  for study in scripts/study/*.sh; do
    [[ -x $study ]] || continue
    name=$(basename "$study" .sh)
    [[ " ${STUDIES:-$name} " == *" $name "* ]] || continue  # STUDIES="bucket-sort gpu-mms" narrows
    [[ $name == hybrid && -z ${STUDIES:-} ]] && continue  # the hybrid part runs it (HYBRID_PARTS)
    # The demo's transparency modes draw (GL libraries) and take about 4 minutes: run alone.
    [[ $name == transparency && -z ${STUDIES:-} ]] && continue
    fits "study $name" 100 || continue
    note "== $study"
    mkdir -p "$work/study/$name"
    timeout 150 "$study" "$bin" "$work/study/$name" >"$work/study/$name/log.txt" 2>&1
    status "study $name" $?
    tail -25 "$work/study/$name/log.txt" | tee -a "$summary"
  done
fi

if has_part dists && fits dists 150; then
  note "== every GPU sorter, every distribution, 16M"
  timeout 240 "$bin/depthsort-bench" --sizes 16M --dist all --reps 11 --check \
    --csv "$work/dists.csv" >"$work/dists.log" 2>&1
  status dists $?
  tail -45 "$work/dists.log" | tee -a "$summary"
  cp "$work/dists.csv" "$OUT/dists.csv" 2>/dev/null
fi

if has_part hybrid && fits hybrid 120 && [[ -x scripts/study/hybrid.sh ]]; then
  note "== scripts/study/hybrid.sh"
  timeout 280 scripts/study/hybrid.sh "$bin" "$work/hybrid" ${HYBRID_PARTS:-dists} >"$work/hybrid.log" 2>&1
  status "hybrid study" $?
  tail -40 "$work/hybrid.log" | tee -a "$summary"
fi

if has_part demo && fits demo 200 && [[ -x scripts/demo-gpu.sh ]]; then
  note "== scripts/demo-gpu.sh"
  DEMO_BUDGET_S=${DEMO_BUDGET_S:-$((budget - ($(date +%s) - started) - 30))} \
    timeout ${DEMO_S:-300} scripts/demo-gpu.sh "$build" "$work" >"$work/demo.log" 2>&1
  status "demo checks" $?
  tail -40 "$work/demo/summary.txt" | tee -a "$summary"
fi

if has_part views && fits views 100 && [[ -x scripts/demo-views-gpu.sh ]]; then
  note "== scripts/demo-views-gpu.sh (one order for meshes and particles, coherent frames, segment views)"
  timeout ${VIEWS_S:-200} scripts/demo-views-gpu.sh "$build" "$work" ${VIEWS_PARTS:-} >"$work/views.log" 2>&1
  status "demo views" $?
  tail -40 "$work/views/summary.txt" | tee -a "$summary"
fi

if has_part coherent && fits coherent 90 && [[ -x $bin/depthsort-bench ]]; then
  # Consecutive frames of the scene along the demo's camera paths, each sorter fed the depths in
  # the order its own instance left the last frame; every frame checked on the device.
  note "== depthsort-bench --sequence orbit|fly-through|cuts (COHERENT_SIZES, COHERENT_FRAMES, COHERENT_SORTERS)"
  # COHERENT_SCRATCH=1 adds each path sorted from scratch (--scratch), for the comparison.
  runs="orbit fly-through cuts"
  [[ ${COHERENT_SCRATCH:-0} == 1 ]] && runs="$runs orbit:scratch fly-through:scratch cuts:scratch"
  for run in $runs; do
    path=${run%%:*} name=${run/:/-}
    extra=()
    [[ $run == *:scratch ]] && extra=(--scratch)
    frames=${COHERENT_FRAMES:-120}
    [[ $path == cuts ]] && frames=${COHERENT_CUT_FRAMES:-$frames}
    timeout ${COHERENT_S:-150} "$bin/depthsort-bench" --sequence "$path" "${extra[@]}" --frames "$frames" \
      --sizes "${COHERENT_SIZES:-4M,15M}" ${COHERENT_SORTERS:+--sorters "$COHERENT_SORTERS"} --csv "$work/sequence-$name.csv" --json "$work/sequence-$name.json" \
      >"$work/sequence-$name.log" 2>&1
    status "sequence $name" $?
    tail -30 "$work/sequence-$name.log" | tee -a "$summary"
    cp "$work/sequence-$name.csv" "$OUT/sequence-$name.csv" 2>/dev/null
  done
fi

if has_part soak && fits soak 120 && [[ -x $bin/depthsort ]]; then
  note "== soak: 10,000 frames, sorter and options switched every frame, order checked every frame"
  timeout 240 "$bin/depthsort" --headless --no-draw --cycle-sorters --frames 10000 --triangles 200K \
    --particles 50K --camera-path orbit --json "$work/soak.json" >"$work/soak.log" 2>&1
  status soak $?
  tail -15 "$work/soak.log" | tee -a "$summary"
  cp "$work/soak.json" "$OUT/soak.json" 2>/dev/null
fi

if has_part multigpu && fits multigpu 90 && [[ -x $bin/depthsort-multigpu ]]; then
  note "== scripts/multi-gpu.sh"
  left=$((budget - ($(date +%s) - started) - 15))
  MULTIGPU_BUDGET_S=${MULTIGPU_BUDGET_S:-$left} timeout $((left + 10)) scripts/multi-gpu.sh "$bin" "$work/multigpu" \
    >"$work/multigpu.log" 2>&1
  status multigpu $?
  tail -30 "$work/multigpu/summary.txt" | tee -a "$summary"
  cp "$work/multigpu/multi-gpu-bench.csv" "$OUT/multi-gpu-bench.csv" 2>/dev/null
fi

if has_part profile && fits profile 200 && [[ -x scripts/profile.sh ]]; then
  # Nsight Compute per-step tables (docs/profiling.md): every GPU sorter's timed sort at 16M uniform
  # and timed frame of a 15M coherent orbit, and a demo frame; the .ncu-rep files stay in results.tgz.
  note "== scripts/profile.sh all (Nsight Compute: bytes per pair and bandwidth of every step)"
  timeout ${PROFILE_S:-450} scripts/profile.sh --bin "$bin" --out "$work/profile" all >"$work/profile.log" 2>&1
  status profile $?
  grep -E "kernels profiled|profile\(s\) failed|^profile.sh:" "$work/profile.log" | tail -30 | tee -a "$summary"
  mkdir -p "$OUT/profile"
  for table in "$work"/profile/*/table.txt; do
    [[ -f $table ]] && cp "$table" "$OUT/profile/$(basename "$(dirname "$table")").txt"
  done
fi

note "== $(( $(date +%s) - started )) s; parts failed: $failures"
cp "$summary" "$OUT/summary.txt"
tar -czf "$OUT/results.tgz" -C "$work" . 2>/dev/null
echo "== results in \$OUT: summary.txt, CSVs, results.tgz"
exit $((failures > 0))
