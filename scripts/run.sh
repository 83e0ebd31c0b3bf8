#!/usr/bin/env bash
# Sets up, builds (for this machine's GPU; sm_90 where there is none) and runs the demo on its
# default scene: in a window where a display exists, otherwise headless for 120 frames around an
# orbit, writing depthsort.png. Arguments go to the demo (scripts/run.sh --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/cuda-architectures.sh
cmake --preset default -DCMAKE_CUDA_ARCHITECTURES="$cuda_architectures" >/dev/null
cmake --build --preset default
if [[ -n ${DISPLAY:-}${WAYLAND_DISPLAY:-} || " $* " == *" --headless "* || " $* " == *" --help "* ]]; then
  exec build/bin/depthsort "$@"
fi
# The defaults only where the arguments do not give their own: a flag that takes one value is an
# error when given twice.
defaults=(--headless)
for pair in "--frames 120" "--camera-path orbit" "--screenshot depthsort.png"; do
  flag=${pair%% *}
  [[ " $* " == *" $flag "* || " $* " == *" $flag="* ]] || defaults+=("$flag" "${pair#* }")
done
if [[ " ${defaults[*]} " == *" --screenshot "* ]]; then
  echo "run.sh: no display: running headless; the last frame goes to depthsort.png"
else
  echo "run.sh: no display: running headless"
fi
exec build/bin/depthsort "${defaults[@]}" "$@"
