#!/usr/bin/env bash
# Builds the PyTorch plugin (tracer/frameworks/pytorch/) where PyTorch is installed (a GPU
# machine) and puts it beside the tracer in DIR (default .device-build/tracer).
# Usage: build-torch-plugin.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$root/.device-build/tracer}" && pwd)
py=${PYTHON:-python3}
prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
build=${TORCH_PLUGIN_BUILD_DIR:-/tmp/streamcheck-torch-plugin}
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root/tracer/frameworks/pytorch" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DSTREAMCHECK_PLUGIN_DIR="$dir" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "${JOBS:-$(nproc)}"
ls -la "$dir/libstreamcheck_torch.so"
