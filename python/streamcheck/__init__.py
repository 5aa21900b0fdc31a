"""streamcheck finds stream-ordering bugs in CUDA programs.

The wheel carries the whole installation under streamcheck/_prefix/ (as
`cmake --install` lays it out); these functions say where its parts are, for
the `streamcheck` command, the pytest plugin and programs that open scopes
(include_dir()). Outside a wheel (a source tree, a Debian package) the
`streamcheck` on PATH stands in for the bundled one.
"""
import os
import shutil

try:
    from ._version import __version__
except ImportError:  # a source tree: scripts/package.sh writes _version.py
    __version__ = "unknown"

_PREFIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_prefix")


def _is_binary(path):
    """An ELF file: the real command, not this package's own `streamcheck` script."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def prefix():
    """The installation's root (bin/, lib/, share/, include/), or None."""
    if os.path.isfile(os.path.join(_PREFIX, "bin", "streamcheck")):
        return _PREFIX
    found = shutil.which("streamcheck")
    if found is None or not _is_binary(found):
        return None
    return os.path.dirname(os.path.dirname(os.path.realpath(found)))


def executable():
    """The streamcheck binary, or None when there is none."""
    root = prefix()
    path = os.path.join(root, "bin", "streamcheck") if root else None
    return path if path and os.access(path, os.X_OK) else None


def library_dir():
    """lib/streamcheck/: the tracer, the preloaded library, streamcheck-lint."""
    root = prefix()
    return os.path.join(root, "lib", "streamcheck") if root else None


def include_dir():
    """The folder to add to a compiler's include path for <streamcheck/...> headers."""
    root = prefix()
    return os.path.join(root, "include") if root else None
