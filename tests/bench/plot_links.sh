#!/bin/sh
# plot.py through symbolic links, as open() writes through them: a link to a PNG that exists
# and one to a PNG not yet there (through a chain of relative links) both stay links, their
# targets written; a link into a missing folder is exit 1 naming the link and its target.
set -u
plot=$1
csv=$2
out=$3
rm -rf "$out"
mkdir -p "$out/pngs" "$out/real" "$out/chain"
fail() { printf '%s\n' "$1"; exit 1; }
printf 'old' > "$out/real/existing.png"
ln -s ../real/existing.png "$out/pngs/time_uniform.png"
ln -s ../chain/hop "$out/pngs/throughput_uniform.png"      # relative to pngs/, not to the working folder
ln -s ../real/new.png "$out/chain/hop"                      # relative to chain/
ln -s "$out/real/steps.png" "$out/pngs/steps_uniform.png"   # absolute, not there yet
message=$(/usr/bin/python3 "$plot" "$csv" "$out/pngs" 2>&1 >/dev/null) || fail "plot.py failed: $message"
for link in pngs/time_uniform.png pngs/throughput_uniform.png chain/hop pngs/steps_uniform.png; do
  [ -L "$out/$link" ] || fail "$link is no longer a symbolic link"
done
for png in existing new steps; do
  head -c 4 "$out/real/$png.png" | grep -q PNG || fail "real/$png.png was not written as a PNG"
done
[ "$(ls -A "$out/real" | tr '\n' ' ')" = "existing.png new.png steps.png " ] ||
  fail "left in real/: $(ls -A "$out/real")"

rm -f "$out/pngs/steps_uniform.png"
ln -s ../missing/steps.png "$out/pngs/steps_uniform.png"
message=$(/usr/bin/python3 "$plot" "$csv" "$out/pngs" 2>&1 >/dev/null)
status=$?
[ "$status" -eq 1 ] || fail "a link into a missing folder: exit status $status, expected 1 ($message)"
printf '%s' "$message" | grep -q "^plot.py: cannot write '$out/pngs/steps_uniform.png': it is a symbolic link to '$out/pngs/../missing/steps.png', whose folder '$out/pngs/../missing' does not exist" ||
  fail "no message naming the link and its target: $message"
[ -L "$out/pngs/steps_uniform.png" ] || fail "the link into a missing folder was replaced"
exit 0
