#!/usr/bin/env bash
# The traced program is never harmed (issue 44): harm.cu's modes (file
# descriptors exhausted, host memory exhausted, the database's folder renamed
# or removed mid-run, SIGKILL) each run without and with `streamcheck run`;
# the program's stdout and exit status must be the same, and the database
# must hold, once each, every finding the program made before the harm (and
# after it where the database can still be written), and pass
# integrity_check.
# Usage: run_harm_tests.sh BUILD_DIR OUT_DIR
# Exit: 0 all held (or no GPU/nvcc: skipped, said so), 1 a failure (listed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?build directory (with cli/streamcheck)}
out=${2:?output directory}
sc="$build/cli/streamcheck"
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipping the harm tests"; exit 0
fi
if ! command -v "${NVCC:-nvcc}" >/dev/null; then
  echo "no nvcc: skipping the harm tests"; exit 0
fi
if [[ ! -x "$sc" ]]; then
  echo "FAIL: $sc is not built"; exit 1
fi
if ! "${NVCC:-nvcc}" -O2 -g -arch=sm_90 -std=c++17 -o "$out/harm" "$here/harm.cu" >"$out/harm.build.log" 2>&1; then
  echo "FAIL: harm.cu did not build:"; cat "$out/harm.build.log"; exit 1
fi

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# check_db DB MIN: integrity, no finding twice, at least MIN cross-stream races.
check_db() {
  python3 - "$1" "$2" <<'EOF'
import sqlite3, sys
db, least = sys.argv[1], int(sys.argv[2])
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
verdict = con.execute("PRAGMA integrity_check").fetchone()[0]
twice = con.execute("SELECT count(*) FROM (SELECT 1 FROM findings GROUP BY run_id, ifnull(process_id, 0), local_id "
                    "HAVING count(*) > 1)").fetchone()[0]
races = con.execute("SELECT count(*) FROM findings WHERE rule = 'cross-stream-race'").fetchone()[0]
problems = []
if verdict != "ok": problems.append("integrity_check: " + verdict)
if twice: problems.append("%d findings stored twice" % twice)
if races < least: problems.append("%d cross-stream races stored, %d made before the end" % (races, least))
print("; ".join(problems) if problems else "%d cross-stream races stored, database whole" % races)
sys.exit(1 if problems else 0)
EOF
}

# harm MODE FINDINGS_KEPT: native and traced runs compared, then the database
# (FINDINGS_KEPT: races it must hold; "-" where it is gone).
harm() {
  local mode=$1 kept=$2 dir="$out/$mode"
  rm -rf "$dir" "$dir.gone" "$dir.native" "$dir.native.gone"
  mkdir -p "$dir" "$dir.native"
  "$out/harm" "$mode" "$dir.native" >"$out/$mode.native.out" 2>"$out/$mode.native.err"
  local native=$?
  "$sc" run --db "$dir/f.db" -- "$out/harm" "$mode" "$dir" >"$out/$mode.traced.out" 2>"$out/$mode.traced.err"
  local traced=$?
  if [[ $native -ne $traced ]]; then
    fail "$mode: exit status $traced traced, $native without the tracer (stderr: $(tail -3 "$out/$mode.traced.err"))"
  elif ! cmp -s "$out/$mode.native.out" "$out/$mode.traced.out"; then
    fail "$mode: the program's output differs traced:"; diff "$out/$mode.native.out" "$out/$mode.traced.out" | head -10
  elif grep -Eq "Segmentation|Aborted|terminate called|core dumped" "$out/$mode.traced.err"; then
    fail "$mode: a crash: $(grep -E "Segmentation|Aborted|terminate called|core dumped" "$out/$mode.traced.err" | head -2)"
  else
    local db="$dir/f.db"
    [[ "$mode" == vanish ]] && db="$dir.gone/f.db"
    if [[ "$kept" == - ]]; then
      echo "ok   $mode: exit $traced and output as without the tracer (the database went with its folder)"
    elif verdict=$(check_db "$db" "$kept"); then
      echo "ok   $mode: exit $traced and output as without the tracer; $verdict"
    else
      fail "$mode: $verdict (stderr: $(tail -3 "$out/$mode.traced.err"))"
    fi
  fi
}

harm fds 3
harm oom 2  # race 2 may fail for want of host memory, traced or not
harm vanish 2
harm remove -
harm kill 1
if ((failures)); then echo "harm tests: $failures failed"; exit 1; fi
echo "harm tests: all passed"
