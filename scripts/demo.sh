#!/usr/bin/env bash
# The main job on bundled data, no GPU needed: the lint on one CUDA file, then
# four races recorded on a GPU replayed by the dynamic half (each with its
# fix), then the HTML report of them all. Every path it prints is relative to
# the checkout. The full sweep of the recorded traces is in the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
# A fresh build directory leaves the tests out (the demo needs the CLI and the
# analyzer). One configured already (by scripts/test.sh) keeps its settings:
# turning its tests off would leave a later `ninja -C build` running stale
# test binaries.
flags=()
[[ -f $build/CMakeCache.txt ]] || flags=(-DSTREAMCHECK_BUILD_TESTS=OFF -DSTREAMCHECK_BUILD_BENCHMARKS=OFF)
BUILD_DIR=$build "$root/scripts/build.sh" "${flags[@]}" >/dev/null
sc="$build/cli/streamcheck"
cd "$root"
db=streamcheck-demo.db
html=streamcheck-demo.html
rm -f "$db" "$db-wal" "$db-shm"
traces=testdata/traces

bold=; plain=
[[ -t 1 ]] && bold=$'\033[1m' && plain=$'\033[0m'
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
# One replay of the given traces into the demo's database, then its findings
# one line each (-q: the summary line only; findings print once, below).
replay() { "$sc" replay -q --db "$db" "$@" 2>/dev/null || true; }
summary() { "$sc" report --format summary --run last "$db" | grep -v -e '^by rule: ' -e ' in 1 run of '; }

step "1. streamcheck lint: a CUDA file checked before it runs (testdata/examples/two_streams.cu)"
if [[ -x "$build/analyzer/streamcheck-lint" ]]; then
  "$sc" lint --db "$db" testdata/examples/two_streams.cu 2>&1 | grep -E 'warning:|fix-it|note: nothing' || true
  echo "-- the fixed file (testdata/examples/two_streams_fixed.cu):"
  "$sc" lint testdata/examples/two_streams_fixed.cu && echo "no warnings"
else
  echo "(streamcheck-lint was not built: Clang 22 missing)"
fi

step "2. The PyTorch docs' race: normal_() on the default stream, sum() on a side stream"
replay $traces/pytorch_normal_sum.racy.sctrace
"$sc" report --run last "$db" | grep -v ' in 1 run of '
echo "-- with the fix, s.wait_stream(torch.cuda.current_stream()) before the side stream:"
"$sc" replay -q --no-db $traces/pytorch_normal_sum.fixed.sctrace 2>&1 | tail -1

step "3. The host reads a tensor copied to it with non_blocking=True before a synchronize"
replay $traces/pytorch_d2h_print.racy.sctrace
summary

step "4. A CUDA graph's replay still writing what a side stream reads"
replay $traces/pytorch_cuda_graph.racy.sctrace
summary

step "5. dist.all_reduce(x, async_op=True) on two ranks, then x.mul_(2) before work.wait()"
replay $traces/distributed/two_ranks/allreduce_async.racy.rank0.sctrace \
  $traces/distributed/two_ranks/allreduce_async.racy.rank1.sctrace
summary

step "6. All of it in one page"
"$sc" report --format html -o "$html" "$db"
echo "streamcheck report --format html -o $html $db: open $html in a browser"
