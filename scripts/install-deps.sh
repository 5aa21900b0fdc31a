#!/usr/bin/env bash
# Installs what streamcheck needs to build and test on Debian 12 (as root).
# Extra package names given as arguments are installed too (the tests add
# chromium, which renders the HTML report in a test).
# The CUDA toolkit is optional here: without it the tracer is skipped and
# everything else (lint, replay, report, all non-GPU tests) still builds.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libunwind-dev
  clang-22 libclang-22-dev llvm-22-dev libclang-rt-22-dev
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
