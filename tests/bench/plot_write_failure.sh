#!/bin/sh
# plot.py with a write that fails part way (a file-size limit stands in for a full disk; Python
# ignores SIGXFSZ, so the write raises EFBIG): exit 1, the file and the reason named, and nothing
# left in the output folder, neither a truncated PNG nor a temporary file.
set -u
plot=$1
csv=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
message=$( (ulimit -f 16; /usr/bin/python3 "$plot" "$csv" "$out") 2>&1 >/dev/null)
status=$?
fail() { printf '%s\nplot.py said:\n%s\n' "$1" "$message"; exit 1; }
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
printf '%s' "$message" | grep -q "^plot.py: cannot write '$out/[a-z]*_uniform.png': File too large" ||
  fail "no one-line message naming the PNG and the reason"
[ -z "$(ls -A "$out")" ] || fail "left in $out: $(ls -A "$out")"
exit 0
