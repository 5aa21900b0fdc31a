#!/usr/bin/env bash
# The pytest plugin on a GPU (docs/SCOPES.md): this folder's suite of 3 racy
# and 4 clean tests (PyTorch and CuPy, one race across two tests) under
# `streamcheck run`:
#   1. with --streamcheck-fail exactly the racy tests fail, each with its
#      finding's headline and fix, the race across two tests naming both;
#   2. without it every test passes, and the findings are stored with their
#      test ids (the cross-test one with the earlier test on its earlier side);
#   3. `streamcheck replay` of the trace recorded in 2 gives the same findings
#      with the same scopes, and `report --group-by test` heads each test.
# Usage: run_scope_tests.sh STREAMCHECK_BINARY OUT_DIR
#   PYTHON: the Python with PyTorch, CuPy and pytest (default python3; on the
#   GPU machines /opt/torch/.venv/bin/python). The plugin comes from the
#   source tree's python/ (PYTHONPATH), standing in for the installed wheel.
# Exit: 0 as expected, 1 a mismatch, 77 no GPU, PyTorch, CuPy or pytest (skipped, saying which).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
sc=$(cd "$(dirname "${1:?streamcheck binary}")" && pwd)/$(basename "$1")
out=${2:?output directory}
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
for need in "import pytest" "import cupy" "import torch; assert torch.cuda.is_available()"; do
  if ! "$py" -c "$need" 2>/dev/null; then
    echo "skipped: '$need' fails with $py (set PYTHON to a Python with pytest, CuPy and PyTorch with CUDA)"
    exit 77
  fi
done
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
cd "$here"
racy="test_cupy_scopes.py::test_cupy_copies_race test_torch_scopes.py::test_side_stream_reads_before_producer test_torch_scopes.py::test_reuses_buffer_in_flight"
status=0

# run NAME [PYTEST_OPTIONS...]: the suite under `streamcheck run`, into OUT/NAME.*
run() {
  local name=$1; shift
  rm -f "$out/$name".*
  "$sc" run --db "$out/$name.db" --trace "$out/$name.sctrace" -- "$py" -m pytest -p streamcheck.pytest \
    -p no:cacheprovider --rootdir "$here" --junitxml "$out/$name.xml" -q -rA "$@" . >"$out/$name.log" 2>&1
  echo $? >"$out/$name.rc"
}

# check NAME: the junit outcomes (and, with the flag, the failures' words) against $racy.
check() {
  "$py" - "$out/$1.xml" "$2" "$racy" <<'EOF'
import sys
import xml.etree.ElementTree as ET
junit, mode, racy = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
results = {}
for case in ET.parse(junit).iter("testcase"):
    node = case.get("classname").replace(".", "/") + ".py::" + case.get("name")
    bad = [c for c in case if c.tag in ("failure", "error", "skipped")]
    results[node] = (bad[0].tag if bad else "passed", "" if not bad else (bad[0].get("message") or "") + (bad[0].text or ""))
problems = []
if len(results) != 7:
    problems.append("%d tests ran, expected 7: %s" % (len(results), sorted(results)))
failed = {n for n, (o, _) in results.items() if o != "passed"}
expected = racy if mode == "fail" else set()
if failed != expected:
    problems.append("failed %s, expected %s" % (sorted(failed), sorted(expected)))
for node in failed & racy if mode == "fail" else ():
    outcome, words = results[node]
    if "stream-ordering error" not in words or "fix: " not in words:
        problems.append("%s: %s without the finding's words: %s" % (node, outcome, words[:400]))
cross = "test_torch_scopes.py::test_reuses_buffer_in_flight"
if mode == "fail" and "earlier access in test_torch_scopes.py::test_leaves_copy_in_flight" not in results.get(cross, ("", ""))[1]:
    problems.append("%s does not name the earlier test: %s" % (cross, results.get(cross, ("", ""))[1][:600]))
print("\n".join(problems) or "ok: " + ("exactly the racy tests failed: " + ", ".join(sorted(failed)) if mode == "fail" else "all 7 passed"))
sys.exit(1 if problems else 0)
EOF
}

# stored NAME: the errors' tests in the database (or a replay's) are the racy tests.
stored() {
  "$sc" report "$1" --format json | "$py" -c '
import json, sys
racy = set(sys.argv[1].split())
findings = [f for f in json.load(sys.stdin)["findings"] if f["severity"] == "error"]
tests = {f["test"] for f in findings}
problems = []
if tests != racy:
    problems.append("error findings in %s, expected %s" % (sorted(map(str, tests)), sorted(racy)))
cross = [f for f in findings if f["test"] == "test_torch_scopes.py::test_reuses_buffer_in_flight"]
if not cross or cross[0]["accesses"][0]["scope"] != "test_torch_scopes.py::test_leaves_copy_in_flight":
    problems.append("the race across two tests: %s" % [[a["scope"] for a in f["accesses"]] for f in cross])
for f in findings:
    print("  %s: %s [%s] %s" % (f["test"], f["severity"], f["rule"], " / ".join(str(a["scope"]) for a in f["accesses"])))
print("\n".join(problems) or "ok: the errors are stored under the racy tests")
sys.exit(1 if problems else 0)
' "$racy"
}

echo "== with --streamcheck-fail"
run fail --streamcheck-fail
[[ $(cat "$out/fail.rc") == 1 ]] || { echo "FAIL: exit $(cat "$out/fail.rc"), expected 1 (pytest's: tests failed)"; status=1; }
check fail fail || status=1
stored "$out/fail.db" || status=1

echo "== without it"
run pass
[[ $(cat "$out/pass.rc") == 0 ]] || { echo "FAIL: exit $(cat "$out/pass.rc"), expected 0"; status=1; }
check pass pass || status=1
stored "$out/pass.db" || status=1

echo "== replay of the trace"
rm -f "$out/replay.db"*
"$sc" replay -q --db "$out/replay.db" "$out/pass.sctrace" >"$out/replay.log" 2>&1 || { echo "FAIL: replay"; status=1; }
stored "$out/replay.db" || status=1

echo "== report --group-by test"
"$sc" report "$out/pass.db" --group-by test --format summary | tee "$out/grouped.txt"
for t in $racy; do
  grep -qF "== test $t ==" "$out/grouped.txt" || { echo "FAIL: no group for $t"; status=1; }
done

echo "GPU scopes: $([[ $status == 0 ]] && echo ok || echo FAILED) (logs in $out)"
exit $status
