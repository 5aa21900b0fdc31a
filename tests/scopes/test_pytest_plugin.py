"""The pytest plugin (python/streamcheck/pytest.py) and the scopes binding
(python/streamcheck/scopes.py) end to end, without a GPU: `streamcheck run`
runs pytest on scopes_suite/, whose CUDA work fake_traced_process.cpp makes up
for a real tracer inside the process (tests/gpu/pytorch/scopes/ is the same on
a GPU). Run by ctest (tests/python/CMakeLists.txt), which says where things are:

  SC_STREAMCHECK         the streamcheck binary
  SC_PRELOAD             libstreamcheck_preload.so
  FAKE_TRACED_PROCESS    the fake process's library
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PYTHON_PACKAGE = HERE.parent.parent / "python"
SUITE = HERE / "scopes_suite"
TEST_FILE = "scopes_suite/test_fake_cuda.py"
RACY = {
    TEST_FILE + "::test_side_stream_reads_before_producer",
    TEST_FILE + "::test_reuses_buffer_in_flight",
    TEST_FILE + "::test_two_side_streams",
}
ALL = RACY | {
    TEST_FILE + "::" + name
    for name in ("test_side_stream_waits", "test_leaves_copy_in_flight", "test_two_side_streams_ordered", "test_host_only")
}
STREAMCHECK = os.environ.get("SC_STREAMCHECK", "")
PRELOAD = os.environ.get("SC_PRELOAD", "")


def environment(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PYTHON_PACKAGE), env.get("PYTHONPATH", "")) if p)
    env.pop("PYTEST_ADDOPTS", None)
    env.update(extra)
    return env


def pytest_command(*args):
    # -p no:cacheprovider: nothing written into the source tree.
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "streamcheck.pytest", *args]


def outcomes(junit_xml):
    """node id -> (outcome, message) from a junit XML file."""
    results = {}
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        path = case.get("classname").replace(".", "/") + ".py"
        node = path + "::" + case.get("name")
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome, message = child.tag, (child.get("message") or "") + "\n" + (child.text or "")
        results[node] = (outcome, message)
    return results


def traced(tmp_path, *pytest_args, db="findings.db"):
    junit = tmp_path / "junit.xml"
    command = [STREAMCHECK, "run", "--db", str(tmp_path / db), "--",
               *pytest_command("scopes_suite", "--rootdir", str(HERE), "--junitxml", str(junit), "-q", *pytest_args)]
    done = subprocess.run(command, cwd=HERE, env=environment(), capture_output=True, text=True, timeout=300)
    return done, outcomes(junit)


needs_streamcheck = pytest.mark.skipif(not STREAMCHECK or not PRELOAD, reason="SC_STREAMCHECK / SC_PRELOAD not given")


def test_untraced_every_scope_is_a_no_op(tmp_path):
    """Without streamcheck the binding answers NOT_TRACED and the plugin fails nothing."""
    probe = ("from streamcheck import scopes; print(scopes.traced(), scopes.begin('x'), scopes.errors(), "
             "scopes.end())")
    done = subprocess.run([sys.executable, "-c", probe], env=environment(), capture_output=True, text=True)
    assert done.stdout.strip() == "0 1 (0, '') 1", done.stderr
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n")
    done = subprocess.run(pytest_command("--streamcheck-fail", "-q", str(tmp_path / "test_plain.py")), cwd=tmp_path,
                          env=environment(), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "not running under `streamcheck run`" in done.stdout + done.stderr


@needs_streamcheck
def test_the_preloaded_library_keeps_scopes_before_cuda(tmp_path):
    """Under the preloaded library alone (no CUDA yet) scopes are kept, and bad names are escaped."""
    probe = ("from streamcheck import scopes; print(scopes.traced(), scopes.begin('ok'), scopes.begin(b'bad\\xff'), "
             "scopes.begin(''), scopes.end(), scopes.end(), scopes.end(), scopes.end(), scopes.errors())")
    done = subprocess.run([sys.executable, "-c", probe], env=environment(LD_PRELOAD=PRELOAD), capture_output=True,
                          text=True)
    assert done.stdout.strip() == "1 0 2 2 0 0 0 -1 (0, '')", done.stderr
    assert 'scope name not valid UTF-8 (invalid bytes escaped): opened as "bad\\xff"' in done.stderr
    assert "with no scope open on this thread" in done.stderr


@needs_streamcheck
def test_with_the_flag_exactly_the_racy_tests_fail(tmp_path):
    done, results = traced(tmp_path, "--streamcheck-fail")
    assert set(results) == ALL, done.stdout + done.stderr
    failed = {node for node, (outcome, _) in results.items() if outcome != "passed"}
    assert failed == RACY, done.stdout + done.stderr
    for node in RACY:
        outcome, message = results[node]
        assert outcome == "failure", (node, outcome)
        assert "streamcheck found 1 stream-ordering error:" in message, message
        assert "cross-stream-race: " in message and "fix: " in message, message
    # The race across two tests fails the later one, naming both.
    _, message = results[TEST_FILE + "::test_reuses_buffer_in_flight"]
    assert "earlier access in " + TEST_FILE + "::test_leaves_copy_in_flight" in message, message
    assert "later access in " + TEST_FILE + "::test_reuses_buffer_in_flight" in message, message
    assert done.returncode == 1, done.stderr


@needs_streamcheck
def test_without_the_flag_tests_pass_and_findings_keep_their_tests(tmp_path):
    done, results = traced(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {node for node, (outcome, _) in results.items() if outcome == "passed"} == ALL
    assert "streamcheck: 3 findings" in done.stderr, done.stderr
    report = subprocess.run([STREAMCHECK, "report", str(tmp_path / "findings.db"), "--format", "json"],
                            capture_output=True, text=True, check=True)
    findings = json.loads(report.stdout)["findings"]
    assert {f["test"] for f in findings} == RACY
    assert all(f["rule"] == "cross-stream-race" and f["severity"] == "error" for f in findings)
    across = [f for f in findings if f["test"].endswith("::test_reuses_buffer_in_flight")]
    assert [a["scope"] for a in across[0]["accesses"]] == [TEST_FILE + "::test_leaves_copy_in_flight",
                                                         TEST_FILE + "::test_reuses_buffer_in_flight"]
    grouped = subprocess.run([STREAMCHECK, "report", str(tmp_path / "findings.db"), "--group-by", "test",
                              "--format", "summary"], capture_output=True, text=True, check=True).stdout
    for node in RACY:
        assert "test " + node in grouped, grouped
    one = subprocess.run([STREAMCHECK, "report", str(tmp_path / "findings.db"), "--scope", "*two_side_streams",
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    assert [f["test"] for f in json.loads(one)["findings"]] == [TEST_FILE + "::test_two_side_streams"]


def install_entry_point(tmp_path, name):
    """A distribution whose pytest11 entry point `name` is streamcheck.pytest, as the wheel's."""
    dist = tmp_path / "site" / "streamcheck_entry_point_probe-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: streamcheck-entry-point-probe\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\n{} = streamcheck.pytest\n".format(name))
    return str(tmp_path / "site")


@pytest.mark.parametrize("entry_point", ["streamcheck.pytest", "streamcheck"])
def test_entry_point_and_p_option_together(tmp_path, entry_point):
    """Registered by its entry point, and named with -p as well: loaded once."""
    site = install_entry_point(tmp_path, entry_point)
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join((site, env["PYTHONPATH"]))
    for command in (pytest_command("-q", "test_plain.py"),
                    [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--streamcheck-fail",
                     "test_plain.py"]):
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 passed" in done.stdout
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["streamcheck.pytest"]\n')
    done = subprocess.run(pytest_command("-q", "test_plain.py"), cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_streamcheck
def test_forbid_default_stream_names_the_test(tmp_path):
    """run --forbid-default-stream=GLOB under the plugin: each default-stream call site in each test is a
    warning naming its test, never a failure; a replay of the trace checks it again as the run did."""
    db, trace = tmp_path / "findings.db", tmp_path / "run.sctrace"
    command = [STREAMCHECK, "run", "--db", str(db), "--trace", str(trace), "--forbid-default-stream=*libfake_traced*",
               "--", *pytest_command("scopes_suite", "--rootdir", str(HERE), "-q", "--streamcheck-fail", "-k",
                                     "side_stream_waits or host_only")]
    done = subprocess.run(command, cwd=HERE, env=environment(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report = subprocess.run([STREAMCHECK, "report", str(db), "--format", "json"], capture_output=True, text=True,
                            check=True)
    findings = json.loads(report.stdout)["findings"]
    assert [(f["rule"], f["severity"], f["test"]) for f in findings] == [
        ("default-stream-use", "warning", TEST_FILE + "::test_side_stream_waits")]
    assert findings[0]["message"].endswith("issued to the legacy default stream by libfake_traced_process.so")
    replayed = subprocess.run([STREAMCHECK, "replay", "--no-db", "-q", str(trace)], capture_output=True, text=True)
    assert "1 finding " in replayed.stderr, replayed.stderr
