#!/usr/bin/env bash
# `cmake --install` into one prefix, the prefix moved elsewhere, and the
# commands run from there: the installed tree finds its own parts (tracer,
# lint, plugin sources) wherever it is, and names nothing of the build tree.
# Usage: relocated_install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/p1" --strip >/dev/null
mv "$work/p1" "$work/p2"
p=$work/p2 sc=$work/p2/bin/streamcheck
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_status() {  # expect_status WANTED COMMAND...: runs it, output in $work/out
  local want=$1 got=0; shift
  "$@" >"$work/out" 2>&1 || got=$?
  [[ $got == "$want" ]] || { cat "$work/out" >&2; fail "$* exited $got, not $want"; }
}

# Nothing installed names the build tree: no run path into it, no link to it.
while IFS= read -r -d '' file; do
  if head -c4 "$file" | grep -q ELF && readelf -d "$file" 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF "$build"; then
    fail "$file has a run path into the build tree"
  fi
done < <(find "$p" -type f -print0)
[[ -z $(find "$p" -type l) ]] || fail "links in the installed tree: $(find "$p" -type l)"

expect_status 0 "$sc" --version
expect_status 0 "$sc" rules
grep -q cross-stream-race "$work/out" || fail "rules lists no cross-stream-race"
db=$work/findings.db
for trace in "$source"/testdata/traces/*.sctrace; do
  expect_status 0 "$sc" replay -q --db "$db" "$trace"
done
expect_status 0 "$sc" report --format summary "$db"
grep -q "finding" "$work/out" || fail "the report has no findings"
# docs/getting-started.md's first finding, from the installed examples.
expect_status 0 "$sc" replay -q --db "$work/demo.db" "$p/share/streamcheck/examples/pytorch_normal_sum.trace.txt"
expect_status 0 "$sc" report "$work/demo.db"
grep -q "aten::sum (example.py:7) reads" "$work/out" || fail "the installed PyTorch example has no finding"

expect_status 0 "$sc" doctor --json --need tracer,preload
grep -qF "\"$p/lib/streamcheck/libstreamcheck_tracer.so\"" "$work/out" || fail "doctor's tracer is not the moved one"
if [[ -x $p/lib/streamcheck/streamcheck-lint ]]; then
  expect_status 1 "$sc" lint --db "$db" "$source/testdata/examples/two_streams.cu"
  grep -q '\[cross-stream-race\]' "$work/out" || fail "the lint found no cross-stream-race"
  expect_status 0 "$sc" doctor --need lint
  grep -qF "$p/lib/streamcheck/streamcheck-lint linted" "$work/out" || fail "doctor's lint is not the moved one"
fi
expect_status 0 "$sc" report --format sarif "$db"

# Without the precise front-end, --precise refuses instead of running fast mode.
if ! "$sc" doctor --need precise >/dev/null 2>&1; then
  expect_status 2 "$sc" run --precise -- true
  grep -q -- "--precise is not available" "$work/out" || fail "run --precise did not say why"
fi

# The PyTorch plugin's installed sources include only what is installed beside them.
if [[ -d $p/share/streamcheck/torch_plugin ]]; then
  python3 - "$p/share/streamcheck/torch_plugin" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
todo = glob.glob(os.path.join(root, "tracer/frameworks/pytorch/*.cpp"))
assert todo, "no plugin sources"
seen = set()
while todo:
    f = todo.pop()
    if f in seen:
        continue
    seen.add(f)
    for inc in re.findall(r'#\s*include\s+"([^"]+)"', open(f).read()):
        path = os.path.join(root, inc)
        if not os.path.exists(path):
            sys.exit(f"{f} includes {inc}, which is not installed")
        todo.append(path)
print(f"plugin sources: {len(seen)} files, every include installed")
PY
  [[ -x $p/lib/streamcheck/build_torch_plugin.py ]] || fail "no build_torch_plugin.py"
fi
[[ -f $p/share/doc/streamcheck/docs/getting-started.md ]] || fail "no getting-started.md in share/doc"
echo "relocated install: ok ($p)"
