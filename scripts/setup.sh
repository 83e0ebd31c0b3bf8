#!/usr/bin/env bash
# Installs exactly the Debian packages depthsort needs that are missing; quiet when all are there.
# The CUDA toolkit 13 (nvcc, CUB, Thrust, NVTX) is expected under /usr/local/cuda.
set -euo pipefail

# The package list lives in third_party/packages.txt (also read by its README), so this script,
# the README and CMake's "not found" messages never disagree.
packages=()
while read -r line; do
  line=${line%%#*}
  for package in $line; do packages+=("$package"); done
done < "$(dirname "$0")/../third_party/packages.txt"

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "depthsort setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "depthsort setup: nvcc not found: install the CUDA toolkit 13 under /usr/local/cuda" >&2
  exit 1
fi
