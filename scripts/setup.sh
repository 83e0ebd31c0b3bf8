#!/usr/bin/env bash
# Installs exactly the Debian packages depthsort needs that are missing; quiet when all are there.
# The CUDA toolkit 13 (nvcc, CUB, Thrust, NVTX) is expected under /usr/local/cuda.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libgtest-dev xvfb xauth                        # tests (xvfb-run: the windowed panel test)
  libglfw3-dev libglm-dev libimgui-dev libtinyobjloader-dev libstb-dev python3-glad  # demo
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri  # headless EGL; Mesa's llvmpipe where no GPU is
  python3-matplotlib                             # bench/plot.py
)

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
