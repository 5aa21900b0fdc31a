#!/bin/sh
# --print-commands: each printed command runs in a shell as printed and
# parses the file cleanly, -D values with parentheses, quotes and spaces
# included, and without the flags the lint drops (a GCC-only -fabi-version
# clang's driver does not know).  Usage: print_commands_test.sh STREAMCHECK_LINT SOURCE
set -u
lint=$1 source=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$lint" --print-commands "$source" -- -fabi-version=13 '-DSQUARE(x)=((x)*(x))' '-DGREETING="a b"' "-DQUOTE='q'" \
  >/dev/null 2>"$dir/err"
grep -F -- "--cuda-host-only" "$dir/err" | head -1 >"$dir/cmd.sh"
[ -s "$dir/cmd.sh" ] || { echo "no command printed:"; cat "$dir/err"; exit 1; }
cat "$dir/cmd.sh"
sh "$dir/cmd.sh" || { echo "the printed command failed"; exit 1; }
echo ok
