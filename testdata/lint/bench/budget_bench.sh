#!/bin/sh
# Issue 29, item 5: the lint's per-function budget. Time and peak memory of
# streamcheck-lint against `clang++-22 -fsyntax-only` (the lint's own clang
# command, from --print-commands) on the generated inputs of gen_budget.py.
#   testdata/lint/bench/budget_bench.sh BUILD_DIR [LINT]   (LINT: another streamcheck-lint to compare)
set -eu
build=${1:?usage: budget_bench.sh BUILD_DIR [LINT]}
lint=${2:-$build/analyzer/streamcheck-lint}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
# clang run by hand needs the prelude the lint serves from memory.
mkdir -p "$work/prelude/fallback"
cp "$here/../../../analyzer/prelude/nvcc_host_prelude.h" "$work/prelude/"
cp "$here/../../../analyzer/prelude/omp.h" "$work/prelude/fallback/"
measure() {  # prints "seconds peak_kb" of "$@" (at most 600 s and 8 GB)
  /usr/bin/time -f "%e %M" -o "$work/time" sh -c 'ulimit -v 8000000; exec timeout 600 "$@" >"$0" 2>&1' "$work/out" "$@" || true
  tail -1 "$work/time"
}
printf '%-18s %8s %10s %10s %10s %8s %9s\n' input lines clang_s lint_s ratio lint_MB warnings
for spec in long:2500 long:5000 long:10000 long:20000 clean-blocks:2500 racy-blocks:159 racy-blocks:2857; do
  shape=${spec%:*} n=${spec#*:}
  src="$work/$shape-$n.cu"
  python3 "$here/gen_budget.py" "$shape" "$n" "$src"
  cmd=$("$lint" --print-commands "$src" 2>&1 >/dev/null | head -1 | sed "s|/streamcheck-lint-prelude|$work/prelude|g; s|^clang++ |clang++-22 |")
  set -- $(measure $cmd); clang_s=$1
  set -- $(measure "$lint" "$src"); lint_s=$1 lint_kb=$2
  warnings=$(grep -c 'warning:' "$work/out" || true)
  printf '%-18s %8s %10s %10s %10s %8s %9s\n' "$shape:$n" "$(wc -l < "$src")" "$clang_s" "$lint_s" \
    "$(echo "scale=2; $lint_s / $clang_s" | bc)" "$((lint_kb / 1024))" "$warnings"
done
rm -rf "$work"
