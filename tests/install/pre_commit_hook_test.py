""".pre-commit-hooks.yaml's hook run as pre-commit runs it (the framework
itself is not installed here): `entry`, then `args`, then the staged files
its `files` pattern matches, on a bundled example with a compile database.
Usage: python3 -m pytest pre_commit_hook_test.py --streamcheck BIN --source-dir DIR"""
import json
import os
import re
import shlex
import subprocess

import pytest


def read_hook(source_dir):
    """The one hook's fields, read without a YAML library (Debian's python3 has none by default)."""
    hook = {}
    with open(os.path.join(source_dir, ".pre-commit-hooks.yaml")) as f:
        for line in f:
            match = re.match(r"^-? +(\w+): (.*)$", line.rstrip("\n"))
            if match:
                hook[match.group(1)] = match.group(2)
    hook["args"] = [a.strip() for a in hook["args"].strip("[]").split(",")]
    return hook


@pytest.fixture
def hook(source_dir):
    return read_hook(source_dir)


def test_the_hook_declares_what_pre_commit_needs(hook):
    assert hook["id"] == "streamcheck-lint"
    assert hook["language"] == "system"
    assert hook["entry"].startswith("streamcheck lint")
    pattern = re.compile(hook["files"])
    for name in ["a.cu", "a.cuh", "a.cpp", "a.h", "src/x.hpp"]:
        assert pattern.search(name), name
    for name in ["a.py", "README.md", "CMakeLists.txt", "a.cu.orig"]:
        assert not pattern.search(name), name


def run_hook(hook, streamcheck, cwd, files):
    entry = shlex.split(hook["entry"])
    entry[0] = streamcheck  # language: system runs `streamcheck` from PATH
    pattern = re.compile(hook["files"])
    command = entry + hook["args"] + [f for f in files if pattern.search(f)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture
def project(tmp_path, source_dir):
    """A project with a compile database in build/ (the hook's default -p) and a header it does not build."""
    for name in ["two_streams.cu", "two_streams_fixed.cu"]:
        with open(os.path.join(source_dir, "testdata/examples", name)) as f:
            (tmp_path / name).write_text(f.read())
    (tmp_path / "streams.cuh").write_text("#pragma once\n")
    (tmp_path / "notes.py").write_text("pass\n")
    os.makedirs(tmp_path / "build")
    entries = [{"directory": str(tmp_path / "build"), "file": str(tmp_path / name),
                "command": f"/usr/local/cuda/bin/nvcc -std=c++17 -c {tmp_path / name} -o {name}.o"}
               for name in ["two_streams.cu", "two_streams_fixed.cu"]]
    (tmp_path / "build/compile_commands.json").write_text(json.dumps(entries))
    return tmp_path


def test_a_racy_change_fails_the_commit(hook, streamcheck, project):
    result = run_hook(hook, streamcheck, project, ["two_streams.cu", "streams.cuh", "notes.py"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "two_streams.cu:" in result.stdout and "[cross-stream-race]" in result.stdout
    assert "skipped streams.cuh (no compile command in build" in result.stderr


def test_a_clean_change_passes(hook, streamcheck, project):
    result = run_hook(hook, streamcheck, project, ["two_streams_fixed.cu", "streams.cuh"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_headers_alone_pass_with_a_note(hook, streamcheck, project):
    result = run_hook(hook, streamcheck, project, ["streams.cuh"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "nothing to lint" in result.stderr
