#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test (ctest).
# GPU tests skip themselves on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" chromium python3-dev python3-pytest
"$root/scripts/build.sh" -DSTREAMCHECK_BUILD_TESTS=ON -DSTREAMCHECK_BUILD_BENCHMARKS=ON
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
