#!/usr/bin/env bash
# Builds the GPU machine's bundle of another revision, for a side-by-side
# benchmark against it (tests/gpu/bench/run_bench.sh's BASE=): a worktree of
# REV in a temporary folder, its own scripts/device-build.sh, and of its
# output only what `streamcheck run` needs (cli/streamcheck and the tracer's
# libraries beside it in tracer/), in DIR (default .device-base, ignored by
# git and small enough to carry with .device-build).
# Usage: scripts/device-build-base.sh REV [DIR]
#   then, on the GPU machine: BASE=DIR/cli/streamcheck tests/gpu/bench/run_bench.sh ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:?usage: device-build-base.sh REV [DIR]}
dir=$(realpath -m "${2:-$root/.device-base}")
git -C "$root" rev-parse --verify --quiet "$rev^{commit}" >/dev/null || { echo "device-build-base: no revision $rev" >&2; exit 2; }
# Inside the checkout, so that ccache (base_dir) finds the objects of earlier builds.
work=$(mktemp -d "$root/.device-base-work.XXXXXX")
trap 'git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/tree" "$rev" >/dev/null
DEVICE_BUILD_DIR="$work/build" DEVICE_INSTALL_DIR="$work/install" "$work/tree/scripts/device-build.sh" >"$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log" >&2; echo "device-build-base: the build of $rev failed" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/cli" "$dir/tracer"
cp "$work/build/cli/streamcheck" "$dir/cli/"
cp -a "$work/build/tracer/"*.so* "$dir/tracer/"
git -C "$root" rev-parse "$rev" >"$dir/REVISION"
du -sh "$dir"
