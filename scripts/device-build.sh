#!/usr/bin/env bash
# Builds what a GPU machine needs (the `streamcheck` binary and the injected
# tracer, no lint, no tests) into ${DEVICE_BUILD_DIR:-.device-build}, with
# debug information stripped so the folder travels small. The GPU machine has
# no SQLite headers and no Clang, so this runs here and the folder is carried.
# It also installs that build into ${DEVICE_INSTALL_DIR:-.device-install}
# (cmake --install: the layout users get, with the PyTorch plugin's sources),
# which tests/gpu/install/run_install_tests.sh takes.
# Extra arguments go to cmake (e.g. -DSTREAMCHECK_SANITIZER_INCLUDE=DIR for
# `run --precise` where the toolkit has no compute-sanitizer/include).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DEVICE_BUILD_DIR:-$root/.device-build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTREAMCHECK_BUILD_LINT=OFF -DSTREAMCHECK_BUILD_TESTS=OFF -DSTREAMCHECK_BUILD_BENCHMARKS=OFF \
  -DSTREAMCHECK_BUILD_SOAK_WRITER=ON "$@" >/dev/null
# soak_writer: the soak's traced stand-in (tests/soak/run_soak_gpu.sh $build OUT).
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target streamcheck streamcheck_tracer streamcheck_preload soak_writer
strip --strip-debug "$build/cli/streamcheck" "$build/tracer/libstreamcheck_tracer.so" "$build/tests/soak/soak_writer"
du -sh "$build/cli/streamcheck" "$build/tracer/"*.so*
install=${DEVICE_INSTALL_DIR:-$root/.device-install}
rm -rf "$install"
cmake --install "$build" --prefix "$install" --strip >/dev/null
du -sh "$install"
