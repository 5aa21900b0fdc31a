#!/usr/bin/env bash
# Overhead benchmark: native vs traced in the same run (issue item 7).
# Usage: run_bench.sh STREAMCHECK_BINARY OUT_DIR [LAUNCHES] [TORCH_ITERS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}; out=${2:?output dir}; n=${3:-200000}; iters=${4:-2000}
mkdir -p "$out"
${NVCC:-nvcc} -O2 -arch=sm_90 -o "$out/launch_rate" "$here/launch_rate.cu" || exit 1
traced() { "$sc" run -q --db "$out/bench.db" "$@" 2>>"$out/bench.stderr"; }
for round in 1 2; do
  echo "native:              $("$out/launch_rate" "$n")"
  echo "traced:              $(traced -- "$out/launch_rate" "$n")"
  echo "traced, no stacks:   $(traced --no-stacks -- "$out/launch_rate" "$n")"
  echo "traced, glibc stacks:$(STREAMCHECK_UNWINDER=glibc traced -- "$out/launch_rate" "$n")"
  echo "CUPTI callbacks only:$(STREAMCHECK_DEBUG=callbacks-only traced -- "$out/launch_rate" "$n")"
done
py=${PYTHON:-python3}
if "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  for round in 1 2; do
    echo "torch native:    $("$py" "$here/torch_loop.py" "$iters")"
    echo "torch traced:    $(traced -- "$py" "$here/torch_loop.py" "$iters")"
    echo "torch no stacks: $(traced --no-stacks -- "$py" "$here/torch_loop.py" "$iters")"
    echo "torch sanitizer: $(TORCH_CUDA_SANITIZER=1 "$py" "$here/torch_loop.py" "$((iters / 10))" 2>>"$out/bench.stderr")"
  done
fi
