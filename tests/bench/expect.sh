#!/bin/sh
# expect.sh STATUS REGEX COMMAND [ARG...]: passes when COMMAND exits with STATUS and its output
# (stdout and stderr together) matches the extended REGEX; otherwise prints what it got.
set -u
want_status=$1
pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
if [ "$status" -ne "$want_status" ]; then
  printf 'exit status %s, expected %s; output:\n%s\n' "$status" "$want_status" "$output"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  printf 'output does not match /%s/:\n%s\n' "$pattern" "$output"
  exit 1
fi
exit 0
