#!/usr/bin/env bash
# Bundles this machine's `perf` (Debian's linux-perf) with every library it
# loads, the dynamic loader included, into DIR (default .gpu/perf), for a GPU
# machine that has no profiler: carry DIR there and run
#   DIR/lib/ld-linux-x86-64.so.2 --library-path DIR/lib DIR/perf record -F 1999 -o F -- CMD
# The carried loader runs perf whatever the C library there; the programs
# perf starts run as they are. On the GPU machines seen so far only software
# events exist (cpu-clock; no cycles), which is what `perf record` falls back
# to; report with `--time 50%-98%` to leave a PyTorch program's start out,
# `--sort pid,dso,sym` for each thread's share. Call graphs (`--call-graph
# dwarf`) work but take perf minutes to report: bound them with `timeout`.
# About 33 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.gpu/perf}
if ! command -v perf >/dev/null; then
  apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null
fi
perf=$(readlink -f "$(command -v perf)")
mkdir -p "$out/lib"
cp "$perf" "$out/perf"
ldd "$perf" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | xargs -I{} cp -L {} "$out/lib/"
"$out/lib/ld-linux-x86-64.so.2" --library-path "$out/lib" "$out/perf" --version
du -sh "$out"
