"""streamcheck's pytest plugin (docs/SCOPES.md).

Under ``streamcheck run -- python -m pytest ...`` each test's setup, call and
teardown are scopes, so every finding names its test: the call phase by the
test id (``tests/test_loader.py::test_prefetch``), the others with the phase
after it (``tests/test_loader.py::test_prefetch [setup]``). A module or session
fixture's work belongs to the phase that ran it.

``--streamcheck-fail``: a phase whose scope had an error finding fails (a
failing setup or teardown is reported by pytest as an error of the test), with
each finding's headline, the tests of both sides when a race crosses two
tests, and its fix. A race is found when its later side happens: a buffer left
in flight by one test and reused by the next fails the next, naming the first.

Loaded with ``pytest -p streamcheck.pytest``, or by the ``pytest11`` entry
point of the installed package (both at once load it once); ``-p
no:streamcheck.pytest`` (and ``-p no:`` with the entry point's name) turns it off.
Without streamcheck every scope is a no-op and no test fails because of it.
"""

import sys

import pytest

from streamcheck import scopes

_FAILURES = pytest.StashKey[dict]() if hasattr(pytest, "StashKey") else None
_PHASE_SUFFIX = {"setup": " [setup]", "call": "", "teardown": " [teardown]"}


# The names the plugin is loaded under: `-p streamcheck.pytest` (or
# `pytest_plugins`), and the installed package's pytest11 entry point.
_NAMES = ("streamcheck.pytest", "streamcheck")


def pytest_plugin_registered(plugin, manager):
    """Loaded under one of its names, the plugin is not loaded again under
    another: pluggy refuses a module registered twice (`-p streamcheck.pytest`
    with the entry point installed would end pytest with a ValueError)."""
    if plugin is not sys.modules[__name__]:
        return
    for name in _NAMES:
        if manager.get_plugin(name) is None and not manager.is_blocked(name):
            manager.set_blocked(name)


def pytest_addoption(parser):
    group = parser.getgroup("streamcheck", "streamcheck (stream-ordering races, docs/SCOPES.md)")
    group.addoption(
        "--streamcheck-fail",
        action="store_true",
        default=False,
        help="fail a test whose setup, call or teardown had a stream-ordering error finding "
        "(under `streamcheck run`; without it, findings are only stored)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "streamcheck: tests observed by streamcheck's scopes (docs/SCOPES.md)")
    if config.getoption("streamcheck_fail") and scopes.traced() == scopes.UNTRACED:
        config.issue_config_time_warning(
            pytest.PytestWarning(
                "--streamcheck-fail: not running under `streamcheck run` "
                "(streamcheck run -- python -m pytest ...): nothing is checked"
            ),
            stacklevel=2,
        )


def pytest_report_header(config):
    state = scopes.traced()
    if state == scopes.UNTRACED:
        return None
    fail = "failing tests on errors" if config.getoption("streamcheck_fail") else "findings stored, tests not failed"
    return "streamcheck: each test's setup, call and teardown are scopes; " + fail


def scope_name(item, when):
    """The scope of a phase of a test: its node id, then the phase but for the call."""
    return item.nodeid + _PHASE_SUFFIX[when]


def _failures(item):
    if _FAILURES is not None:
        return item.stash.setdefault(_FAILURES, {})
    if not hasattr(item, "_streamcheck_failures"):
        item._streamcheck_failures = {}
    return item._streamcheck_failures


def _observe(item, when):
    """A generator for the phase's hookwrapper: the phase runs in its scope,
    whose errors are asked for before it closes."""
    scopes.begin(scope_name(item, when))
    try:
        yield
    finally:
        if item.config.getoption("streamcheck_fail"):
            count, text = scopes.errors()
            if count > 0:
                _failures(item)[when] = (count, text)
        scopes.end()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _observe(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _observe(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield from _observe(item, "teardown")


def _words(count, text):
    return "streamcheck found {} stream-ordering error{}:\n{}".format(count, "" if count == 1 else "s", text)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    found = _failures(item).pop(call.when, None)
    if found is None:
        return
    report = outcome.get_result()
    words = _words(*found)
    if report.passed:
        # The phase's own report turns into a failure with the findings' words
        # (a hookwrapper that raised would be an internal error of pytest's).
        report.outcome = "failed"
        report.longrepr = words
    else:
        report.sections.append(("streamcheck", words))
