#!/usr/bin/env bash
# The packages of scripts/package.sh, installed as a user would and used
# from there: the wheel into a fresh virtual environment (pip --no-index,
# nothing else in it), the Debian package unpacked into a fresh root (and
# dpkg's dry run of `dpkg -i` against this machine); in each, `streamcheck
# rules`, a replay, a lint of a bundled example and a report. The Debian
# package's dependencies are held to what its files need (check_deb_dependencies.py).
# Usage: package_test.sh BUILD_DIR SOURCE_DIR WORK_DIR   (exit 77: packaging tools missing)
set -euo pipefail
build=$1 source=$2 work=$3
python=${PYTHON:-/usr/bin/python3}
"$python" -c 'import build, wheel, venv' 2>/dev/null || { echo "python3-build, -wheel or -venv missing: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_status() {  # expect_status WANTED COMMAND...: runs it, output in $work/out
  local want=$1 got=0; shift
  "$@" >"$work/out" 2>&1 || got=$?
  [[ $got == "$want" ]] || { cat "$work/out" >&2; fail "$* exited $got, not $want"; }
}
# The four commands CI runs from an installation: rules, replay, lint, report.
use_installation() {  # use_installation STREAMCHECK NAME
  local sc=$1 db=$work/$2.db
  expect_status 0 "$sc" rules
  grep -q cross-stream-race "$work/out" || fail "$2: rules lists no cross-stream-race"
  expect_status 0 "$sc" replay -q --db "$db" "$source"/testdata/traces/*.sctrace
  if [[ -x $build/analyzer/streamcheck-lint ]]; then  # built, so packaged: it must work
    expect_status 1 "$sc" lint --db "$db" "$source/testdata/examples/two_streams.cu"
    grep -q '\[cross-stream-race\]' "$work/out" || fail "$2: the lint found nothing"
  fi
  expect_status 0 "$sc" report --format summary "$db"
  grep -q finding "$work/out" || fail "$2: the report has no findings"
  echo "$2: rules, replay, lint and report ok"
}

PYTHON=$python "$source/scripts/package.sh" "$build" "$work/packages" >"$work/package.log" 2>&1 ||
  { cat "$work/package.log" >&2; fail "scripts/package.sh failed"; }
wheel=$(ls "$work"/packages/streamcheck-*-py3-none-linux_x86_64.whl)
deb=$(ls "$work"/packages/streamcheck_*_amd64.deb)

# The wheel, in a virtual environment of its own.
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --no-index --quiet "$wheel"
use_installation "$work/venv/bin/streamcheck" wheel
expect_status 0 "$work/venv/bin/python" -m streamcheck --version
expect_status 0 "$work/venv/bin/python" - <<'PY'
import importlib.metadata as m, os, streamcheck
assert os.path.isfile(os.path.join(streamcheck.library_dir(), "libstreamcheck_tracer.so")), streamcheck.library_dir()
assert os.path.isdir(os.path.join(streamcheck.prefix(), "share", "streamcheck", "torch_plugin"))
assert streamcheck.include_dir().endswith("_prefix/include")
plugins = [e for e in m.entry_points().select(group="pytest11") if e.name == "streamcheck"]
assert plugins and plugins[0].value == "streamcheck.pytest", plugins
assert m.version("streamcheck") == streamcheck.__version__ != "unknown"
PY
echo "wheel: python -m streamcheck, the package's paths and the pytest11 entry point ok"

# The Debian package: its metadata, its files, unpacked into a fresh root.
dpkg-deb -I "$deb" >"$work/info"
grep -q '^ Package: streamcheck$' "$work/info" || fail "no Package field"
grep -q '^ Depends: .*libsqlite3-0' "$work/info" || fail "no Depends on libsqlite3-0"
dpkg-deb -c "$deb" >"$work/contents"
for file in ./usr/bin/streamcheck ./usr/lib/streamcheck/libstreamcheck_tracer.so ./usr/share/doc/streamcheck/README.md; do
  grep -q " $file\$" "$work/contents" || fail "the package has no $file"
done
dpkg-deb -x "$deb" "$work/root"
use_installation "$work/root/usr/bin/streamcheck" deb
"$python" "$source/tests/install/check_deb_dependencies.py" "$deb" "$work/root"
# `dpkg -i` itself would change this machine: its dry run checks the package
# and its dependencies against what is installed here.
expect_status 0 dpkg --dry-run -i "$deb"
echo "deb: dpkg --dry-run -i ok"
echo "packages: ok"
