#!/usr/bin/env bash
# The main job on bundled data, no GPU needed: lint the bundled CUDA examples,
# replay bundled traces recorded on a GPU into a findings database, and report.
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
BUILD_DIR=$build "$root/scripts/build.sh" "${flags[@]}"
sc="$build/cli/streamcheck"
db=${DEMO_DB:-$root/streamcheck-demo.db}
rm -f "$db" "$db-wal" "$db-shm"

echo "== streamcheck lint: the bundled CUDA examples (static half)"
if [[ -x "$build/analyzer/streamcheck-lint" ]]; then
  "$sc" lint --db "$db" "$root"/testdata/examples/*.cu || true
else
  echo "(streamcheck-lint was not built: Clang 22 missing)"
fi

echo
echo "== streamcheck replay: traces recorded on a GPU (dynamic half)"
shopt -s nullglob
# -q: the findings are printed once, by the report below.
"$sc" replay -q --db "$db" "$root"/testdata/examples/*.trace.txt "$root"/testdata/traces/*.sctrace || true

echo
echo "== streamcheck report --format summary $db (one line per finding)"
"$sc" report --format summary "$db"

# One finding in full: both accesses with their stacks, why no ordering
# exists, and the fix. The PyTorch docs' normal_()/sum() race, replayed alone.
example_db=${db%.db}-example.db
rm -f "$example_db" "$example_db-wal" "$example_db-shm"
"$sc" replay -q --db "$example_db" "$root/testdata/examples/pytorch_normal_sum.trace.txt" || true
echo
echo "== streamcheck report $example_db (every finding in full; here the PyTorch docs' example)"
"$sc" report "$example_db"
