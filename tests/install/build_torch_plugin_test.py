"""tracer/frameworks/pytorch/build_torch_plugin.py against a stand-in PyTorch
(torch.utils.cpp_extension as setuptools' own Extension and build_ext): the
checks' reasons and fixes, the build through setuptools with the real
compiler, and the last two lines the tracer repeats.
Usage: python3 -m pytest build_torch_plugin_test.py --builder PATH"""
import os
import subprocess
import sys
import textwrap

import pytest

FAKE_EXTENSION = textwrap.dedent("""
    import os
    from setuptools import Extension
    from setuptools.command.build_ext import build_ext

    CUDA_HOME = os.environ.get("FAKE_CUDA_HOME")

    def CUDAExtension(name, sources, include_dirs=None, extra_compile_args=None, **kwargs):
        return Extension(name, sources, include_dirs=include_dirs, language="c++",
                         extra_compile_args=extra_compile_args["cxx"], libraries=["torch_python", "m"])

    class BuildExtension(build_ext):
        @classmethod
        def with_options(cls, **options):
            return cls
""")

PLUGIN = '#include "tracer/frameworks/hooks.h"\nextern "C" int streamcheck_framework_attach() { return kAnswer; }\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


@pytest.fixture
def world(tmp_path):
    """A stand-in torch package, CUDA headers, and the plugin's sources."""
    write(tmp_path / "site/torch/__init__.py", "from . import version\n__version__ = version.__version__\n")
    write(tmp_path / "site/torch/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n")
    write(tmp_path / "site/torch/utils/__init__.py", "")
    write(tmp_path / "site/torch/utils/cpp_extension.py", FAKE_EXTENSION)
    write(tmp_path / "cuda/include/cuda_runtime_api.h", "")
    write(tmp_path / "src/tracer/frameworks/pytorch/torch_plugin.cpp", PLUGIN)
    write(tmp_path / "src/tracer/frameworks/hooks.h", "constexpr int kAnswer = 0;\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"), FAKE_CUDA_HOME=str(tmp_path / "cuda"))
    return tmp_path, env


def run_builder(builder, world, *args, env_changes=None):
    root, env = world
    env = dict(env, **(env_changes or {}))
    command = [sys.executable, builder, "--torch-dir", str(root / "site/torch"), "--source-root", str(root / "src"),
               *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def last_words(result):
    lines = result.stderr.strip().splitlines()
    return lines[-2], lines[-1]


def test_builds_the_plugin_with_pytorchs_extension_builder(builder, world):
    root, _ = world
    output = root / "cache/libstreamcheck_torch.so.partial"
    os.makedirs(root / "cache")
    result = run_builder(builder, world, "--build-dir", str(root / "cache/build"), "--output", str(output))
    assert result.returncode == 0, result.stdout + result.stderr
    with open(output, "rb") as f:
        assert f.read(4) == b"\x7fELF"
    assert "building for torch 2.11.0+cu130 (CUDA 13.0)" in result.stdout


def test_check_builds_nothing(builder, world):
    result = run_builder(builder, world, "--check")
    assert result.returncode == 0, result.stderr
    assert "ok: torch 2.11.0+cu130" in result.stdout


@pytest.mark.parametrize("case, env_changes, why, fix", [
    ("no torch", {"PYTHONPATH": ""}, "cannot import torch", "--python PATH"),
    ("no compiler", {"CXX": "no-such-c++"}, "no C++ compiler: 'no-such-c++' is not on PATH", "apt-get install g++"),
    ("no CUDA headers", {"FAKE_CUDA_HOME": "/nonexistent"}, "finds no CUDA toolkit headers", "CUDA_HOME"),
])
def test_what_is_missing_is_said_with_its_fix(builder, world, case, env_changes, why, fix):
    result = run_builder(builder, world, "--check", env_changes=env_changes)
    assert result.returncode == 1, case
    said_why, said_fix = last_words(result)
    assert said_why.startswith("streamcheck-plugin-build: error: ") and why in said_why, said_why
    assert said_fix.startswith("streamcheck-plugin-build: fix: ") and fix in said_fix, said_fix


def test_another_pytorch_than_the_programs_is_refused(builder, world):
    root, env = world
    command = [sys.executable, builder, "--torch-dir", str(root / "elsewhere/torch"), "--source-root",
               str(root / "src"), "--check"]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert "not the traced program's" in last_words(result)[0]


def test_a_compiler_error_and_an_unwritable_output_fail_with_a_reason(builder, world):
    root, _ = world
    write(root / "src/tracer/frameworks/hooks.h", "constexpr int kAnswer = ;\n")
    result = run_builder(builder, world, "--build-dir", str(root / "b1"), "--output", str(root / "out.so"))
    assert result.returncode == 1
    assert "the compiler failed" in last_words(result)[0]
    assert not os.path.exists(root / "out.so")
    write(root / "src/tracer/frameworks/hooks.h", "constexpr int kAnswer = 0;\n")
    result = run_builder(builder, world, "--build-dir", str(root / "b2"), "--output", str(root / "no/such/dir/out.so"))
    assert result.returncode == 1
    assert "cannot write" in last_words(result)[0]
