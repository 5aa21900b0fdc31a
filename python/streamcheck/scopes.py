"""streamcheck's per-test scopes from Python (docs/SCOPES.md).

Marks which test (or phase, or request) the calling thread is in, so that every
finding of ``streamcheck run -- python ...`` names the scopes of both of its
sides::

    from streamcheck import scopes

    with scopes.scope("tests/test_loader.py::test_prefetch"):
        ...                                  # CUDA work: it belongs to the scope
        count, text = scopes.errors()        # the scope's error findings so far

A binding of the C ABI (include/streamcheck/scope.h) through ctypes: under
``streamcheck run`` the functions are those of the preloaded
libstreamcheck_preload.so, found in the process with ``ctypes.CDLL(None)``;
anywhere else every call is a no-op (``begin``/``end`` return NOT_TRACED,
``errors`` returns ``(0, "")``). Nothing here imports CUDA or a framework.
"""

import ctypes
import threading

OK = 0
NOT_TRACED = 1
NAME_ALTERED = 2
NONE_OPEN = -1

UNTRACED = 0  # not under streamcheck
WAITING = 1  # under streamcheck, CUDA not initialized yet: scopes are kept
TRACING = 2  # the tracer is observing this process

# Room for the words of the errors a query returns (cut beyond it).
_ERRORS_TEXT_BYTES = 256 * 1024

_lock = threading.Lock()
_functions = None


def _abi():
    """The preloaded library's functions, or None without streamcheck."""
    global _functions
    with _lock:
        if _functions is None:
            try:
                process = ctypes.CDLL(None)
                begin = process.streamcheck_scope_begin
                end = process.streamcheck_scope_end
                errors = process.streamcheck_scope_errors
                traced = process.streamcheck_scope_traced
            except (OSError, AttributeError):
                _functions = False
            else:
                begin.argtypes, begin.restype = [ctypes.c_char_p], ctypes.c_int
                end.argtypes, end.restype = [], ctypes.c_int
                errors.argtypes, errors.restype = [ctypes.c_char_p, ctypes.c_size_t], ctypes.c_long
                traced.argtypes, traced.restype = [], ctypes.c_int
                _functions = (begin, end, errors, traced)
        return _functions or None


def _encode(name):
    """A scope name as bytes: str as UTF-8 (an unpaired surrogate escaped as
    \\udcxx rather than refused), bytes as they are (the library escapes what
    is not UTF-8)."""
    if isinstance(name, bytes):
        return name
    return str(name).encode("utf-8", errors="backslashreplace")


def traced():
    """UNTRACED, WAITING or TRACING."""
    abi = _abi()
    return abi[3]() if abi else UNTRACED


def begin(name):
    """Opens the scope ``name`` on the calling thread, inside the one it is in.

    Returns OK, NOT_TRACED, or NAME_ALTERED (opened under an escaped,
    shortened or placeholder name: streamcheck said why on stderr)."""
    abi = _abi()
    return abi[0](_encode(name)) if abi else NOT_TRACED


def end():
    """Closes the calling thread's innermost scope: OK, NOT_TRACED, or
    NONE_OPEN (it had none; nothing closed)."""
    abi = _abi()
    return abi[1]() if abi else NOT_TRACED


def errors():
    """``(count, text)``: the error findings made inside the calling thread's
    innermost scope (and scopes nested in it; with none open, anywhere) since
    they were last reported, once the analysis caught up with every CUDA call
    made so far. ``text`` has each one's headline, the tests of its two sides
    when they differ, and its fix. ``(0, "")`` when not traced."""
    abi = _abi()
    if not abi:
        return 0, ""
    buffer = ctypes.create_string_buffer(_ERRORS_TEXT_BYTES)
    count = abi[2](buffer, len(buffer))
    return int(count), buffer.value.decode("utf-8", errors="replace")


class scope:
    """``with scope(name):`` opens the scope for the block (a decorator too)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        begin(self.name)
        return self

    def __exit__(self, *exc):
        end()
        return False

    def __call__(self, function):
        def scoped(*args, **kwargs):
            with scope(self.name):
                return function(*args, **kwargs)

        scoped.__name__ = getattr(function, "__name__", "scoped")
        scoped.__doc__ = getattr(function, "__doc__", None)
        return scoped
