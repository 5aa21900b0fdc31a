#!/usr/bin/env bash
# Makes streamcheck's two packages from a build tree, both holding the tree
# `cmake --install --strip` makes (cmake/install_layout.cmake):
#   OUT/streamcheck_<version>_amd64.deb                      CPack (cmake/debian_package.cmake)
#   OUT/streamcheck-<version>-py3-none-linux_x86_64.whl      python/, built by Debian's python3-build
# Nothing comes from outside Debian: the wheel is built offline (--no-isolation)
# with Debian's setuptools and wheel. tests/install/package_test.sh installs both.
# Usage: scripts/package.sh [BUILD_DIR (default build)] [OUT (default BUILD_DIR/packages)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/packages}
python=${PYTHON:-/usr/bin/python3}
"$root/scripts/install-deps.sh" python3-build python3-wheel python3-setuptools python3-venv
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[[ -n $version ]] || { echo "package.sh: $build is not a configured build tree" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The wheel: python/ with the installed tree as streamcheck/_prefix/.
cp -r "$root/python" "$stage/wheel"
cmake --install "$build" --prefix "$stage/wheel/streamcheck/_prefix" --strip >/dev/null
printf '__version__ = "%s"\n' "$version" >"$stage/wheel/streamcheck/_version.py"
rm -f "$out"/streamcheck-*.whl
"$python" -m build --wheel --no-isolation --outdir "$out" "$stage/wheel" >"$stage/wheel.log" 2>&1 ||
  { cat "$stage/wheel.log" >&2; exit 1; }

# The Debian package: the same install rules under /usr, stripped.
rm -f "$out"/streamcheck_*.deb
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$stage/deb" -D CPACK_STRIP_FILES=ON >"$stage/deb.log" 2>&1 ||
  { cat "$stage/deb.log" >&2; exit 1; }
cp "$stage"/deb/*.deb "$out/"
ls -l "$out"/streamcheck*
