#!/usr/bin/env bash
# An installed streamcheck on a GPU machine with PyTorch (issue 42, items 1-3):
# the tree `cmake --install` made (scripts/device-build.sh writes it to
# .device-install), copied elsewhere, traces a small PyTorch program with a
# clean per-user cache:
#   1. the first run builds the PyTorch plugin, says so in one line, and its
#      findings have aten op names;
#   2. the second run reuses it: no build, no message, faster;
#   3. `plugin build` ahead of time fills a cache a run then only loads;
#   4. two processes at once build it once;
#   5. a cache that cannot be written, and a machine without a C++ compiler:
#      one line why and how to fix it, the race still found at the CUDA level,
#      the program's output and status unchanged; the failed build is not
#      retried by the next run;
#   6. `doctor` before and after.
# Usage: tests/gpu/install/run_install_tests.sh PREFIX OUT_DIR
#   PYTHON: the Python with PyTorch (default /opt/torch/.venv/bin/python).
# Exit: 0 every check passed, 1 some failed (each says PASS/FAIL), 77 no GPU.
set -uo pipefail
prefix=$(cd "${1:?installed prefix}" && pwd)
out=${2:?output directory}
py=${PYTHON:-/opt/torch/.venv/bin/python}
export PATH=$(dirname "$py"):$PATH  # the venv's ninja for PyTorch's extension builder
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipped"; exit 77
fi
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -a "$prefix" "$out/prefix"  # a copy elsewhere: nothing may point back
sc=$out/prefix/bin/streamcheck
failures=0
check() {  # check NAME COMMAND...: PASS when the command succeeds
  local name=$1; shift
  if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}
lines() { grep -c -- "$1" "$2" || true; }
aten_ops() { "$sc" report --format json "$1" | "$py" -c '
import json, sys
ops = {a.get("framework_op") for f in json.load(sys.stdin)["findings"] for a in f["accesses"]}
print(" ".join(sorted(o for o in ops if o)))'; }
findings() { "$sc" report --format json "$1" | "$py" -c 'import json, sys; print(len(json.load(sys.stdin)["findings"]))'; }

# The PyTorch docs' race: normal_() on the default stream, sum() on another.
cat >"$out/race.py" <<'PY'
import torch
side = torch.cuda.Stream()
a = torch.empty(1 << 22, device="cuda").normal_()
with torch.cuda.stream(side):
    b = torch.sum(a)
torch.cuda.synchronize()
print("done")
PY
traced() {  # traced NAME [ENV...]: runs race.py under streamcheck; stderr in NAME.err, db NAME.db
  local name=$1; shift
  local start=$(date +%s%N)
  env "$@" "$sc" run --db "$out/$name.db" -- "$py" "$out/race.py" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.status"
  echo $((($(date +%s%N) - start) / 1000000)) >"$out/$name.ms"
}

"$sc" doctor --need run,pytorch --python "$py" >"$out/doctor-before.txt" 2>&1
echo "doctor before (exit $?):"; cat "$out/doctor-before.txt"

# 1-2: a clean cache, built on first use, reused after.
cache=$out/cache
traced first XDG_CACHE_HOME="$cache"
traced second XDG_CACHE_HOME="$cache"
echo "first run $(cat "$out/first.ms") ms, second $(cat "$out/second.ms") ms"
grep -h "streamcheck: building\|streamcheck: no PyTorch plugin" "$out/first.err" "$out/second.err"
check "first run: one line says it builds the plugin" test "$(lines 'building the PyTorch plugin' "$out/first.err")" = 1
check "first run: the program's output and status" test "$(cat "$out/first.out")" = done -a "$(cat "$out/first.status")" = 0
check "first run: a plugin in the cache" test -n "$(find "$cache/streamcheck" -name libstreamcheck_torch.so)"
check "first run: nothing half-built left" test -z "$(find "$cache/streamcheck" -name '*.partial' -o -name build -type d)"
check "first run: findings name aten ops" grep -q aten:: <(aten_ops "$out/first.db")
check "second run: no build, no message" test "$(lines 'PyTorch plugin' "$out/second.err")" = 0
check "second run: findings name aten ops" grep -q aten:: <(aten_ops "$out/second.db")
check "second run: faster than the first" test "$(cat "$out/second.ms")" -lt "$(cat "$out/first.ms")"

# 3: ahead of time (a Docker image's build step).
XDG_CACHE_HOME=$out/cache-ahead "$sc" plugin build --python "$py" >"$out/ahead.out" 2>"$out/ahead.err"
check "plugin build: exits 0 and prints the plugin" test -f "$(cat "$out/ahead.out")"
traced after_ahead XDG_CACHE_HOME="$out/cache-ahead"
check "plugin build: the run after it only loads" test "$(lines 'PyTorch plugin' "$out/after_ahead.err")" = 0

# 4: two processes at once (ranks): one builds, the other waits.
traced rank0 XDG_CACHE_HOME="$out/cache-ranks" & traced rank1 XDG_CACHE_HOME="$out/cache-ranks" & wait
check "two at once: built once" test "$(cat "$out/rank0.err" "$out/rank1.err" | lines 'building the PyTorch plugin' -)" = 1
check "two at once: both have aten ops" grep -q aten:: <(aten_ops "$out/rank0.db"; aten_ops "$out/rank1.db")

# 5: no plugin to be had: said in one line, the race still found at the CUDA level.
traced readonly XDG_CACHE_HOME=/proc/streamcheck-cache
grep -h "no PyTorch plugin" "$out/readonly.err"
check "unwritable cache: one line why and the fix" grep -q "no PyTorch plugin for PyTorch .*cannot create.*Fix: .*XDG_CACHE_HOME" "$out/readonly.err"
check "unwritable cache: the race found at the CUDA level" test "$(findings "$out/readonly.db")" -ge 1
check "unwritable cache: the program's output and status" test "$(cat "$out/readonly.out")" = done -a "$(cat "$out/readonly.status")" = 0
traced nocompiler XDG_CACHE_HOME="$out/cache-nocxx" CXX=/nonexistent/c++
traced nocompiler_again XDG_CACHE_HOME="$out/cache-nocxx" CXX=/nonexistent/c++
grep -h "no PyTorch plugin" "$out/nocompiler.err" "$out/nocompiler_again.err"
check "no compiler: says so with the fix" grep -q "no C++ compiler.*Fix: install one" "$out/nocompiler.err"
check "no compiler: the race found at the CUDA level" test "$(findings "$out/nocompiler.db")" -ge 1
check "no compiler: the next run does not build again" grep -q "failed before" "$out/nocompiler_again.err"
check "no compiler: no plugin left in the cache" test -z "$(find "$out/cache-nocxx" -name libstreamcheck_torch.so)"

# 6: doctor after: the plugin is there.
XDG_CACHE_HOME=$cache "$sc" doctor --need run,pytorch --python "$py" >"$out/doctor-after.txt" 2>&1
echo "doctor after (exit $?):"; cat "$out/doctor-after.txt"
check "doctor: the plugin in the cache" grep -q "pytorch  ok: plugin for PyTorch" "$out/doctor-after.txt"
check "doctor: driver and CUDA versions" grep -q "driver   ok: NVIDIA driver" "$out/doctor-after.txt"

echo "$failures check(s) failed"
((failures == 0))
