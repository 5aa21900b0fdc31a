#!/bin/sh
# A source file whose name holds control bytes: the lint's text shows them
# escaped (\x1b, \n), never raw, so a name cannot colour the terminal or fake
# a diagnostic line.  Usage: escaped_names_test.sh STREAMCHECK_LINT SOURCE
set -u
lint=$1 source=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
name=$(printf 'evil\033[31m\nfake: error: x.cu')
cp "$source" "$dir/$name.cu"
"$lint" "$dir/$name.cu" >"$dir/out" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "exit $rc, expected 1 (a finding)"; cat "$dir/out"; exit 1; }
if grep -q "$(printf '\033')" "$dir/out"; then echo "raw escape byte in the output"; exit 1; fi
if grep -q '^fake: error' "$dir/out"; then echo "a file name made a line of its own"; exit 1; fi
grep -q 'evil\\x1b\[31m\\nfake: error: x.cu.cu:' "$dir/out" || { echo "no escaped name:"; cat "$dir/out"; exit 1; }
echo ok
