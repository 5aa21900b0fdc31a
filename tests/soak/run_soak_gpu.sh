#!/usr/bin/env bash
# The soak's large size on a GPU machine: run_soak.py for 8 minutes on 8 lanes
# (an hour of work), a real traced CUDA program (tests/gpu/scenarios,
# built here with nvcc) writing findings beside soak_writer and the replays.
# Usage: run_soak_gpu.sh BUILD_DIR OUT_DIR [run_soak.py options...]
# Without a GPU or nvcc the CUDA program is left out (said so); exit as
# run_soak.py: 0 everything held, 1 a failure (listed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?build directory}
out=${2:?output directory}
shift 2
mkdir -p "$out"
gpu=()
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && command -v "${NVCC:-nvcc}" >/dev/null; then
  if "${NVCC:-nvcc}" -O2 -g -arch=sm_90 -std=c++17 -o "$out/event_record_wait" \
       "$here/../gpu/scenarios/event_record_wait.cu" >"$out/nvcc.log" 2>&1; then
    gpu=(--gpu-program "$out/event_record_wait racy")
  else
    echo "run_soak_gpu: nvcc failed (see $out/nvcc.log); soaking without the CUDA program"
  fi
else
  echo "run_soak_gpu: no GPU or nvcc: soaking without the CUDA program"
fi
exec python3 "$here/run_soak.py" --size large --streamcheck "$build/cli/streamcheck" \
  --writer "$build/tests/soak/soak_writer" --traces "$here/../../testdata/traces" --workdir "$out/work" "${gpu[@]}" "$@"
