#!/bin/sh
# Issue item 7: lint time vs `clang++-22 -fsyntax-only` on one large,
# template-heavy CUDA translation unit (same flags, best of REPEAT runs).
#   testdata/lint/bench/run_bench.sh BUILD_DIR [INSTANCES] [REPEAT]
set -eu
build=${1:?usage: run_bench.sh BUILD_DIR [INSTANCES] [REPEAT]}
n=${2:-150}
repeat=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
lint="$build/analyzer/streamcheck-lint"
cuda=${CUDA_PATH:-/usr/local/cuda}
src=$(mktemp -d)/template_heavy.cu
python3 "$here/gen_template_heavy.py" "$src" "$n"
flags="-std=c++17"
# nvcc (and streamcheck-lint) add the toolkit's cccl folder (Thrust, CUB) themselves.
cccl=""
[ -d "$cuda/include/cccl" ] && cccl="-isystem $cuda/include/cccl"
best() {  # best wall time in seconds of REPEAT runs of "$@"
  b=""
  for _ in $(seq "$repeat"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
syntax=$(best clang++-22 -fsyntax-only -w -x cuda --cuda-path="$cuda" --cuda-host-only -Wno-unknown-cuda-version $cccl $flags "$src")
lintt=$(best "$lint" "$src" -- $flags)
echo "input: $src ($(wc -l < "$src") lines, $n pipeline instantiations)"
echo "clang++-22 -fsyntax-only: ${syntax}s"
echo "streamcheck-lint:         ${lintt}s"
echo "ratio: $(echo "scale=3; $lintt / $syntax" | bc)"
