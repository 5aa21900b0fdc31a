#!/usr/bin/env bash
# Rewrites the golden report files (testdata/golden/: the text, JSON and SARIF
# reports of bundled traces) from the current build, then shows what changed.
# Run it only for a deliberate change of a report, and read the diff before
# committing it: the golden files are how a report change gets reviewed.
#   BUILD_DIR=build scripts/update-golden.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target cli_tests streamcheck -j "${JOBS:-2}"
STREAMCHECK_UPDATE_GOLDEN=1 "$build/tests/cli/cli_tests" --gtest_filter='*GoldenReports*' --gtest_brief=1
cd "$root"
if git diff --quiet -- testdata/golden && [ -z "$(git ls-files --others --exclude-standard testdata/golden)" ]; then
  echo "update-golden: no report changed"
else
  git --no-pager diff --stat -- testdata/golden
  git ls-files --others --exclude-standard testdata/golden | sed 's/^/  new: /'
  echo "update-golden: review the change (git diff testdata/golden) before committing it"
fi
