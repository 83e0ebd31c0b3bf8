#!/usr/bin/env bash
# Compiles the device code of every CUDA source of a configured build for each GPU architecture
# depthsort supports but the build's own (docs/gpus.md), so that an instruction newer than an
# architecture, left outside its guard, fails here and not on a user's card. It keeps nothing: one
# nvcc call per source with the build's own flags (-fatbin: device code only, no host compiler).
# No GPU is needed.
#
# The guards in the code (kernels/sort/primitives) switch at sm_80 and sm_90, so one PTX per guard
# level is compiled and ptxas turns it into machine code for every architecture of that level:
#   compute_75 -> sm_75;  compute_80 -> sm_80, sm_86, sm_89;  compute_100 -> sm_100, sm_120
# (three front-end passes instead of six; ARCH_CHECK_EXACT=1 compiles each architecture from its
# own PTX, as a build for it does, for about twice the time). A source that fails is compiled
# again for each level alone, to name the architectures it fails for.
#
#   scripts/arch-check.sh [build-dir]
#     build-dir         a configured build folder (default build): its compile_commands.json lists
#                       the sources and their flags
#   ARCH_CHECK_JOBS     sources compiled at once (default: the machine's cores)
#   ARCH_CHECK_ONLY     a regular expression over the sources' paths: check only those
#   ARCH_CHECK_SKIP     a regular expression over the sources' paths: leave those out (default
#                       bench/types/: depthsort-mms-types instantiates GPU-MMS's kernels, which
#                       gpu_mms_sorter.cu checks, for three more comparators, and takes about
#                       four times as long as any other source; '^$' leaves nothing out)
#   ARCH_CHECK_EXACT    1: each architecture from its own PTX
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [[ ! -f $build/compile_commands.json ]]; then
  echo "arch-check: $build/compile_commands.json missing: configure the build first (cmake --preset default)" >&2
  exit 2
fi
exec python3 - "$build/compile_commands.json" <<'EOF'
import concurrent.futures, json, os, re, shlex, subprocess, sys, tempfile, time

commands_file = sys.argv[1]
if os.environ.get('ARCH_CHECK_EXACT', '0') == '1':
    levels = [('75', ['75']), ('80', ['80']), ('86', ['86']), ('89', ['89']), ('100', ['100']), ('120', ['120'])]
else:
    levels = [('75', ['75']), ('80', ['80', '86', '89']), ('100', ['100', '120'])]
archs = [a for _, reals in levels for a in reals]
only = re.compile(os.environ.get('ARCH_CHECK_ONLY', '.'))
left_out = re.compile(os.environ.get('ARCH_CHECK_SKIP', 'bench/types/'))
jobs = int(os.environ.get('ARCH_CHECK_JOBS', '0')) or os.cpu_count() or 1


def gencode(virtual, reals):
    return '-gencode=arch=compute_%s,code=[%s]' % (virtual, ','.join('sm_' + r for r in reals))


# Each source's nvcc command without its architectures, object output and dependency file.
sources, seen = [], set()
for entry in json.load(open(commands_file)):
    source = entry['file']
    if not source.endswith('.cu') or source in seen or not only.search(source) or left_out.search(source):
        continue
    seen.add(source)
    kept, skip = [], False
    for word in shlex.split(entry['command']):
        if skip:
            skip = False
        elif word in ('-o', '-MF', '-MT'):
            skip = True
        elif word not in ('-c', '-MD', source) and not word.startswith(
                ('--generate-code', '-gencode', '-arch', '--gpu-architecture')):
            kept.append(word)
    sources.append((os.path.relpath(source), entry['directory'], kept, source))
if not sources:
    sys.exit('arch-check: no CUDA source in %s%s' % (commands_file, ' matching ' + only.pattern if only.pattern != '.' else ''))

names = ', '.join('sm_' + a for a in archs)
print('arch-check: device code of %d CUDA sources for %s, %d at a time' % (len(sources), names, jobs), flush=True)
work = tempfile.mkdtemp(prefix='depthsort-arch-check.')


def compile_for(index, directory, kept, source, level_list):
    out = os.path.join(work, '%d-%s.fatbin' % (index, '-'.join(v for v, _ in level_list)))
    command = kept + [gencode(v, r) for v, r in level_list] + ['-fatbin', '-o', out, source]
    result = subprocess.run(command, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if os.path.exists(out):
        os.remove(out)
    return result.returncode, result.stdout


def check(index):
    name, directory, kept, source = sources[index]
    started = time.time()
    status, output = compile_for(index, directory, kept, source, levels)
    if status == 0:
        return True, 'ok      %s (%.0f s)' % (name, time.time() - started)
    # Which levels fail, each alone.
    failing = []
    for level in levels:
        level_status, level_output = compile_for(index, directory, kept, source, [level])
        if level_status != 0:
            failing.append(('sm_' + ', sm_'.join(level[1]), level_output))
    lines = ['FAILED  %s' % name]
    for archs_of_level, level_output in failing or [('?', output)]:
        lines.append('        for %s:' % archs_of_level)
        lines += ['          ' + line for line in level_output.strip().splitlines()[:30]]
    return False, '\n'.join(lines)


started = time.time()
failed = 0
# The largest sources first, so that the last to finish is a short one.
order = sorted(range(len(sources)), key=lambda i: -os.path.getsize(sources[i][3]))
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    for future in concurrent.futures.as_completed([pool.submit(check, i) for i in order]):
        ok, report = future.result()
        print(report, flush=True)
        failed += not ok
os.rmdir(work)
elapsed = time.time() - started
if failed:
    print('arch-check: FAILED after %.0f s: %d source(s) above do not compile for every one of %s '
          '(docs/gpus.md: the guards go in kernels/sort/primitives)' % (elapsed, failed, names), file=sys.stderr)
    sys.exit(1)
print('arch-check: every source compiles for %s (%.0f s)' % (names, elapsed))
EOF
