#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test (ctest).
# GPU tests skip themselves on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# chromium renders the HTML report; python3-dev embeds CPython for the PyTorch
# plugin's Python-stack tests; the rest are for tests/install/ (the packages
# built and installed, its pytest tests, git repositories).
"$root/scripts/install-deps.sh" chromium python3-dev python3-pytest python3-build python3-wheel python3-setuptools \
  python3-venv git
"$root/scripts/build.sh" -DSTREAMCHECK_BUILD_TESTS=ON -DSTREAMCHECK_BUILD_BENCHMARKS=ON
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
