# Sourced by scripts/run.sh and scripts/test.sh: sets cuda_architectures to the architectures of
# this machine's GPUs (nvidia-smi's compute capability: 8.6 -> 86; different GPUs joined by ';'),
# or, where nvidia-smi finds none (CI), to 90 (the H100 and H200), saying so in one line.
# CUDA_ARCHITECTURES, where set, is taken as it is (e.g. "80;86;89"). The build folder stays the
# same: CMake re-configures it, and rebuilds its CUDA code, when the architectures change.
# GPUs older than sm_75 are left out: CUDA 13 builds for sm_75 and newer (docs/gpus.md).
script_name=$(basename "$0")
if [[ -n ${CUDA_ARCHITECTURES:-} ]]; then
  cuda_architectures=$CUDA_ARCHITECTURES
  echo "$script_name: building for CUDA_ARCHITECTURES=$cuda_architectures"
else
  found=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .\r' | grep -E '^[0-9]+$' |
    sort -un || true)
  cuda_architectures=$(awk '$1 >= 75' <<<"$found" | paste -sd ';')
  if [[ -n $cuda_architectures ]]; then
    echo "$script_name: building for the GPU here: sm_${cuda_architectures//;/, sm_}"
  elif [[ -n $found ]]; then
    cuda_architectures=90
    echo "$script_name: this GPU (sm_${found//$'\n'/, sm_}) is older than sm_75, which CUDA 13 needs: building for sm_90; the demo will take its CPU path"
  else
    cuda_architectures=90
    echo "$script_name: no CUDA GPU found (nvidia-smi): building for sm_90 (H100, H200)"
  fi
fi
