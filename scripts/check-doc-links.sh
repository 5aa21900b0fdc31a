#!/usr/bin/env bash
# Every link in the docs names a file that exists. Checks README.md, docs/**/*.md,
# rules/docs/*.md and tests/gpu/bench/results/README.md:
# - Markdown links `](PATH)`, relative to the page (http(s) and mailto links and
#   #anchors are not checked);
# - repository paths the text names, in backticks or bare (`docs/NCCL.md`,
#   tracer/host/guard_table.h), relative to the checkout; names with a glob or a
#   placeholder in them (`*`, `<`, `NN`, `{`) and build outputs are not checked.
# Prints each missing target as FILE:LINE: PATH and exits 1 if there is one.
# Pages another change adds may be listed in EXPECTED (space-separated) to pass.
# A path after `REV:` (git show d3c0669:PATH) is in the history and not checked, and a
# pytest test id (tests/test_loader.py::test_prefetch) names a user's file.
set -uo pipefail
cd "$(dirname "$0")/.."
expected=" ${EXPECTED:-} "
pages=$( (ls README.md rules/docs/*.md tests/gpu/bench/results/README.md; find docs -name '*.md') | sort -u)
missing=0
# Prose that looks like a path: "runtime/driver API calls", "include/cccl headers".
prose=" runtime/driver include/cccl "
report() {  # page line target resolved
  [[ -e $4 ]] && return
  # A source file named without its extension (the benchmark `tests/bench/replay_benchmark`,
  # `analyzer/stream_state.{h,cpp}`).
  local ext; for ext in .h .cpp .c .cu .py .sh .md; do [[ -e $4$ext ]] && return; done
  [[ $expected == *" $4 "* || $prose == *" $4 "* ]] && return
  echo "$1:$2: $3"
  missing=1
}
for page in $pages; do
  dir=$(dirname "$page")
  # Markdown links.
  while IFS=: read -r line target; do
    target=${target#](}; target=${target%)}; target=${target%%#*}
    [[ -z $target || $target == http* || $target == mailto:* ]] && continue
    report "$page" "$line" "$target" "$(realpath -m --relative-to=. "$dir/$target")"
  done < <(grep -noE '\]\([^) ]+\)' "$page")
  # Paths from the checkout's root.
  while IFS=: read -r line target; do
    target=${target%.}; target=${target%,}; target=${target%:}
    [[ $target == *'*'* || $target == *'<'* || $target == *NN* || $target == *'{'* ]] && continue
    report "$page" "$line" "$target" "$target"
  done < <(grep -noE '(^|[^A-Za-z0-9_./:-])(docs|rules|tests|tracer|runtime|scripts|store|report|cli|analyzer|testdata|include|python)/[A-Za-z0-9_./*<>{},-]*[A-Za-z0-9_/](::)?' "$page" |
           sed -E 's/^([0-9]+):[^A-Za-z0-9_.]?/\1:/' |
           grep -v '::$')  # a test's id (tests/test_loader.py::test_prefetch) names the user's file
done
exit $missing
