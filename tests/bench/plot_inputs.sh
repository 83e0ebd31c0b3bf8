#!/bin/sh
# plot.py's input, read once and checked before anything is drawn, and its outputs, all drawn
# before any is written: a device or a FIFO without a writer is refused (in bounded time), a CSV
# that is not depthsort-bench's exits 1 naming the file, the line and the column, a title or a
# step name with "$" is drawn as written, and a plot whose name is the CSV itself is refused with
# the CSV untouched. Never a traceback, never some of the plots.
set -u
plot=$1
csv=$2
out=$3
rm -rf "$out"
mkdir -p "$out/pngs"
failures=0
fail() { printf 'FAIL: %s\n' "$1"; failures=$((failures + 1)); }
# expect NAME PATTERN ARG...: plot.py exits 1, one line matching PATTERN, no traceback, no PNG.
expect() {
  name=$1 pattern=$2
  shift 2
  rm -rf "$out/pngs" && mkdir -p "$out/pngs"
  message=$(timeout 60 /usr/bin/python3 "$plot" "$@" "$out/pngs" 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 1 ] || fail "$name: exit status $status, expected 1: $message"
  printf '%s\n' "$message" | grep -q "Traceback" && fail "$name: a traceback: $message"
  printf '%s\n' "$message" | grep -Eq "$pattern" || fail "$name: no line matching /$pattern/: $message"
  [ -z "$(ls -A "$out/pngs")" ] || fail "$name: written anyway: $(ls -A "$out/pngs")"
}
expect dev_zero "^plot.py: cannot read '/dev/zero': it is not a regular file or a pipe" /dev/zero
mkfifo "$out/no_writer.csv"
start=$(date +%s)
expect fifo_without_writer "no data from the pipe for 10 s" "$out/no_writer.csv"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "fifo_without_writer: waited more than 30 s"
sed 's/,1024,/,1e3,/' "$csv" > "$out/n_1e3.csv"
expect n_not_whole "n_1e3\\.csv:2: column 'n' is '1e3', not a whole number from 1" "$out/n_1e3.csv"
sed 's/,1024,/,0,/' "$csv" > "$out/n_0.csv"
expect n_zero "n_0\\.csv:2: column 'n' is '0', not a whole number from 1" "$out/n_0.csv"
sed '2s/,uniform,1024,3,/,uniform,1024,abc,/' "$csv" > "$out/reps.csv"
expect reps_not_number "reps\\.csv:2: column 'reps' is 'abc'" "$out/reps.csv"
cut -d, -f1-4,6- "$csv" > "$out/no_dist.csv"
expect no_dist_column "no_dist\\.csv: no column 'dist'" "$out/no_dist.csv"
{ head -1 "$csv"; printf 'cpu,,0,cpu,uni\377form,1024,3,1,1,1,1,,-,,none\n'; } > "$out/latin1.csv"
expect not_utf8 "latin1\\.csv:2: not UTF-8 text" "$out/latin1.csv"
# "$" in the title and in a step name: drawn as written, every plot written.
sed '2s/ordered bits=/ordered $bits=/' "$csv" > "$out/dollar.csv"
rm -rf "$out/pngs" && mkdir -p "$out/pngs"
message=$(/usr/bin/python3 "$plot" "$out/dollar.csv" "$out/pngs" --title 'cost in $ and $x' 2>&1)
[ $? -eq 0 ] || fail "dollar: exit status not 0: $message"
[ "$(ls "$out/pngs" | wc -l)" -eq 3 ] || fail "dollar: not 3 plots: $(ls "$out/pngs")"
# A plot's name that is the input (directly, or through a link): refused, the CSV untouched.
mkdir -p "$out/same" && cp "$csv" "$out/same/time_uniform.png"
message=$(/usr/bin/python3 "$plot" "$out/same/time_uniform.png" 2>&1)
[ $? -eq 1 ] || fail "input_is_a_plot: not refused: $message"
cmp -s "$csv" "$out/same/time_uniform.png" || fail "input_is_a_plot: the CSV was replaced"
mkdir -p "$out/linked" && cp "$csv" "$out/input.csv" && ln -sf ../input.csv "$out/linked/steps_uniform.png"
message=$(/usr/bin/python3 "$plot" "$out/input.csv" "$out/linked" 2>&1)
[ $? -eq 1 ] || fail "plot_links_to_input: not refused: $message"
printf '%s\n' "$message" | grep -q "it is the input CSV" || fail "plot_links_to_input: $message"
cmp -s "$csv" "$out/input.csv" || fail "plot_links_to_input: the CSV was replaced"
[ ! -e "$out/linked/time_uniform.png" ] || fail "plot_links_to_input: some plots written before the refusal"
[ "$failures" -eq 0 ]
